#include "lib/io/event_file.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "lib/io/crc32c.h"
#include "tests/io/io_test_util.h"
#include "tests/io/tf_records.h"

namespace xtrain {
namespace {

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

// Published CRC-32C check values: "123456789" (the CRC catalogue's check value) and RFC 3720's
// (iSCSI) 32-byte patterns.
TEST(Crc32c, KnownValues) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(crc32c(std::string(32, '\0').data(), 32), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xFF').data(), 32), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(crc32c(ascending.data(), 32), 0x46DD794Eu);
  EXPECT_EQ(crc32c("", 0), 0u);
}

TEST(Crc32c, MaskRotatesAndAddsTheDelta) {
  const uint32_t crc = crc32c("123456789", 9);
  EXPECT_EQ(masked_crc32c("123456789", 9), ((crc >> 15) | (crc << 17)) + 0xA282EAD8u);
}

// Golden bytes, from the wire format (protobuf.dev encoding) of event.proto's fields.
TEST(EventFile, FileVersionEventBytes) {
  const std::string expected = bytes({0x09, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F,  // wall_time 1.5
                                      0x1A, 0x0D}) +                       // file_version
                               "brain.Event:2";
  EXPECT_EQ(file_version_event(1.5), expected);
}

TEST(EventFile, ScalarEventBytes) {
  const std::string expected =
      bytes({0x09, 0,    0,    0,    0,   0,    0, 0, 0x40,          // wall_time 2.0
             0x10, 0xAC, 0x02,                                       // step 300
             0x2A, 0x14,                                             // summary, 20 bytes
             0x0A, 0x08, 0x0A, 0x01, 'a', 0x15, 0, 0, 0x80, 0x3F,    // value {tag "a", 1.0f}
             0x0A, 0x08, 0x0A, 0x01, 'b', 0x15, 0, 0, 0x00, 0xC0});  // value {tag "b", -2.0f}
  EXPECT_EQ(scalars_event(2.0, 300, {{"a", 1.0f}, {"b", -2.0f}}), expected);
}

TEST(EventFile, RecordFraming) {
  const std::string record = tf_record("xyz");
  ASSERT_EQ(record.size(), 8u + 4u + 3u + 4u);
  EXPECT_EQ(record.substr(0, 8), bytes({3, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(record.substr(12, 3), "xyz");
  EXPECT_EQ(testing::read_tf_records(record), std::vector<std::string>{"xyz"});
}

TEST(EventFile, NamedAsTensorBoardFindsItAndReadableAfterEachAdd) {
  testing::TempDir dir;
  EventFile events(dir.file(""), 1700000000.25);
  const std::string name = std::filesystem::path(events.path()).filename().string();
  EXPECT_EQ(name.rfind("events.out.tfevents.1700000000.", 0), 0u) << name;
  events.add_scalars(7, {{"Loss/train", 2.5f}}, 1700000001.0);
  // Nothing is buffered: what was added is in the file before the writer closes.
  const std::vector<std::string> records =
      testing::read_tf_records(testing::read_bytes(events.path()));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0], file_version_event(1700000000.25));
  EXPECT_EQ(records[1], scalars_event(1700000001.0, 7, {{"Loss/train", 2.5f}}));
}

TEST(EventFile, ASecondWriterInTheSameSecondGetsItsOwnFile) {
  testing::TempDir dir;
  EventFile first(dir.file(""), 1700000000.0);
  EventFile second(dir.file(""), 1700000000.5);
  EXPECT_NE(first.path(), second.path());
  EXPECT_EQ(second.path(), first.path() + ".1");
}

// A disk full from the start: the error names the file, and no empty event file is left for
// TensorBoard to list.
TEST(EventFile, AFirstWriteThatFailsLeavesNoFile) {
  testing::TempDir dir;
  std::string error;
  {
    const testing::FileSizeLimit full(0);
    try {
      EventFile events(dir.file(""), 1700000000.0);
    } catch (const Error& e) {
      error = e.what();
    }
  }
  EXPECT_EQ(error.rfind("cannot append to " + dir.file("events.out.tfevents.1700000000."), 0), 0u)
      << error;
  EXPECT_EQ(dir.names(), std::vector<std::string>{});
}

// A run killed in the middle of a write leaves a partial record; the whole ones before it read.
TEST(EventFile, ATruncatedFileReadsUpToItsLastWholeRecord) {
  const std::string whole =
      tf_record(file_version_event(1.0)) + tf_record(scalars_event(2.0, 1, {{"x", 1.0f}}));
  const std::string partial = tf_record(scalars_event(3.0, 2, {{"x", 2.0f}}));
  for (size_t cut = 0; cut < partial.size(); ++cut) {
    EXPECT_EQ(testing::read_tf_records(whole + partial.substr(0, cut)).size(), 2u) << cut;
  }
}

}  // namespace
}  // namespace xtrain
