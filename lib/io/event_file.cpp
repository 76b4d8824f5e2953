#include "lib/io/event_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "lib/base/check.h"
#include "lib/io/crc32c.h"
#include "lib/io/host_name.h"

namespace xtrain {
namespace {

// Protocol buffer wire types (protobuf.dev/programming-guides/encoding).
enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Field numbers: Event (event.proto), Summary and Summary.Value (summary.proto).
constexpr uint32_t kEventWallTime = 1, kEventStep = 2, kEventFileVersion = 3, kEventSummary = 5;
constexpr uint32_t kSummaryValue = 1;
constexpr uint32_t kValueTag = 1, kValueSimpleValue = 2;

constexpr const char* kFileVersion = "brain.Event:2";

void put_varint(std::string& out, uint64_t value) {
  for (; value >= 0x80; value >>= 7) out.push_back(static_cast<char>((value & 0x7F) | 0x80));
  out.push_back(static_cast<char>(value));
}

// x86-64 is little-endian, as protocol buffers' fixed fields and TFRecord's framing are.
template <typename T>
void put_little_endian(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void put_key(std::string& out, uint32_t field, WireType type) {
  put_varint(out, field << 3 | type);
}

void put_bytes_field(std::string& out, uint32_t field, std::string_view bytes) {
  put_key(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out.append(bytes);
}

std::string event_header(double wall_time) {
  std::string event;
  put_key(event, kEventWallTime, kFixed64);
  put_little_endian(event, wall_time);
  return event;
}

std::string new_event_file_path(const std::string& dir, double wall_time) {
  const std::string base = (std::filesystem::path(dir) /
                            fmt::format("events.out.tfevents.{:010d}.{}",
                                        static_cast<int64_t>(std::floor(wall_time)), host_name()))
                               .string();
  std::string path = base;
  for (int suffix = 1; std::filesystem::exists(path); ++suffix) {
    path = fmt::format("{}.{}", base, suffix);
  }
  return path;
}

}  // namespace

std::string file_version_event(double wall_time) {
  std::string event = event_header(wall_time);
  put_bytes_field(event, kEventFileVersion, kFileVersion);
  return event;
}

std::string scalars_event(double wall_time, int64_t step, const std::vector<Scalar>& scalars) {
  std::string summary;
  for (const auto& [tag, value] : scalars) {
    std::string summary_value;
    put_bytes_field(summary_value, kValueTag, tag);
    put_key(summary_value, kValueSimpleValue, kFixed32);
    put_little_endian(summary_value, value);
    put_bytes_field(summary, kSummaryValue, summary_value);
  }
  std::string event = event_header(wall_time);
  put_key(event, kEventStep, kVarint);
  put_varint(event, static_cast<uint64_t>(step));  // int64: two's complement, as protobuf's
  put_bytes_field(event, kEventSummary, summary);
  return event;
}

std::string tf_record(std::string_view data) {
  std::string record;
  put_little_endian(record, static_cast<uint64_t>(data.size()));
  put_little_endian(record, masked_crc32c(record.data(), record.size()));
  record.append(data);
  put_little_endian(record, masked_crc32c(data.data(), data.size()));
  return record;
}

EventFile::EventFile(const std::string& dir, double wall_time)
    : file_(new_event_file_path(dir, wall_time), AppendFile::Mode::kCreateNew) {
  try {
    file_.append(tf_record(file_version_event(wall_time)));
  } catch (const Error&) {
    ::unlink(file_.path().c_str());  // an empty file would stay, listed as a run by TensorBoard
    throw;
  }
}

void EventFile::add_scalars(int64_t step, const std::vector<Scalar>& scalars, double wall_time) {
  file_.append(tf_record(scalars_event(wall_time, step, scalars)));
}

double wall_time_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace xtrain
