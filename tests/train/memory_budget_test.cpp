// The memory budget: XTRAIN_MEMORY_LIMIT's syntax, and /proc/meminfo and the cgroup files read
// from a fake tree, including missing and unreadable ones.
#include "lib/train/memory_budget.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "lib/base/check.h"
#include "tests/data/temp_folder.h"

namespace xtrain {
namespace {

constexpr size_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;

TEST(MemoryLimit, IsBytesWithAnOptionalSuffix) {
  EXPECT_EQ(parse_memory_limit("123456"), 123456u);
  EXPECT_EQ(parse_memory_limit("64K"), 64 * kKiB);
  EXPECT_EQ(parse_memory_limit("512m"), 512 * kMiB);
  EXPECT_EQ(parse_memory_limit("4G"), 4 * kGiB);
  EXPECT_EQ(parse_memory_limit("1.5g"), 3 * kGiB / 2);
  EXPECT_EQ(parse_memory_limit("2T"), 2048 * kGiB);
}

TEST(MemoryLimit, BadValuesAreOneLineErrorsNamingTheVariable) {
  for (const std::string bad : {"", "lots", "-4G", "4X", "4GB", "G", "0", "0.1", "1e30T", " 4G",
                                "0x100000000", "0X10G", "1e9", "1.2.3"}) {
    try {
      parse_memory_limit(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("XTRAIN_MEMORY_LIMIT=" + bad + ": ", 0), 0u) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

// A fake /proc and /sys/fs/cgroup under a temporary folder.
class FakeSystem {
 public:
  FakeSystem() {
    files_.meminfo = folder_.path() + "/meminfo";
    files_.self_cgroup = folder_.path() + "/self_cgroup";
    files_.cgroup_v2_root = folder_.path() + "/cgroup2";
    files_.cgroup_v1_memory_root = folder_.path() + "/cgroup1";
    files_.statm = folder_.path() + "/statm";
    files_.rlimit_as = std::nullopt;  // the tests' own ulimit -v plays no part
  }
  void write(const std::string& path, const std::string& text) {
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    folder_.write(path.substr(folder_.path().size() + 1), bytes);
  }
  void meminfo_available_kb(size_t kilobytes) {
    write(files_.meminfo,
          "MemTotal:       24684096 kB\nMemFree:        20000000 kB\n"
          "MemAvailable:   " +
              std::to_string(kilobytes) + " kB\n");
  }
  // RLIMIT_AS at `limit` bytes, of which `mapped` are mapped.
  void address_space(size_t limit, size_t mapped) {
    files_.rlimit_as = limit;
    write(files_.statm, std::to_string(mapped / sysconf(_SC_PAGESIZE)) + " 1000 100 10 0 500 0\n");
  }
  const MemoryBudgetFiles& files() const { return files_; }

 private:
  testing::TempFolder folder_;
  MemoryBudgetFiles files_;
};

TEST(AvailableMemory, IsMemAvailableWithoutACgroupLimit) {
  FakeSystem system;
  system.meminfo_available_kb(22072512);
  EXPECT_EQ(available_memory(nullptr, 1, 0, system.files()), size_t{22072512} * kKiB);
}

// The limit lowers the budget, never raises it: a run planned on memory that is not there would
// be killed midway.
TEST(AvailableMemory, XtrainMemoryLimitCapsWhatTheSystemSays) {
  FakeSystem system;
  system.meminfo_available_kb(22072512);
  EXPECT_EQ(available_memory("2G", 1, 0, system.files()), 2 * kGiB);
  EXPECT_EQ(available_memory("64G", 1, 0, system.files()), size_t{22072512} * kKiB);
  EXPECT_EQ(available_memory("", 1, 0, system.files()), size_t{22072512} * kKiB);  // set, empty
  EXPECT_THROW(available_memory("two", 1, 0, system.files()), Error);
  FakeSystem unreadable;
  EXPECT_EQ(available_memory("64G", 1, 0, unreadable.files()), 64 * kGiB);
}

TEST(AvailableMemory, TheJobsProcessesOnAMachineShareItsMemory) {
  FakeSystem system;
  system.meminfo_available_kb(8 * kMiB);
  EXPECT_EQ(available_memory(nullptr, 4, 0, system.files()), 2 * kGiB);
  EXPECT_EQ(available_memory("4G", 4, 0, system.files()), 1 * kGiB);
}

// ulimit -v: the limit, less what is mapped and the stacks to come, for each process on its own.
TEST(AvailableMemory, TheAddressSpaceLimitCountsPerProcess) {
  FakeSystem system;
  system.meminfo_available_kb(22072512);
  system.address_space(2 * kGiB, 256 * kMiB);
  EXPECT_EQ(available_memory(nullptr, 1, 100 * kMiB, system.files()), 2 * kGiB - 356 * kMiB);
  EXPECT_EQ(available_memory(nullptr, 4, 100 * kMiB, system.files()), 2 * kGiB - 356 * kMiB);
  EXPECT_EQ(available_memory("1G", 1, 100 * kMiB, system.files()), 1 * kGiB);
  system.address_space(300 * kMiB, 256 * kMiB);  // already past it
  EXPECT_EQ(available_memory(nullptr, 1, 100 * kMiB, system.files()), 0u);
  FakeSystem alone;  // nothing else readable
  alone.address_space(kGiB, 0);
  EXPECT_EQ(available_memory(nullptr, 1, 0, alone.files()), kGiB);
}

TEST(AvailableMemory, ACgroupV2LimitBelowMemAvailableWins) {
  FakeSystem system;
  system.meminfo_available_kb(22072512);
  system.write(system.files().self_cgroup, "0::/job/step\n");
  const std::string job = system.files().cgroup_v2_root + "/job";
  system.write(job + "/step/memory.max", "max\n");  // no limit of its own
  system.write(job + "/step/memory.current", "1000\n");
  system.write(job + "/memory.max", std::to_string(8 * kGiB) + "\n");
  system.write(job + "/memory.current", std::to_string(3 * kGiB) + "\n");
  EXPECT_EQ(available_memory(nullptr, 1, 0, system.files()), 5 * kGiB);
}

TEST(AvailableMemory, ACgroupV2MaxIsNoLimit) {
  FakeSystem system;
  system.meminfo_available_kb(1000);
  system.write(system.files().self_cgroup, "0::/job\n");
  system.write(system.files().cgroup_v2_root + "/job/memory.max", "max\n");
  system.write(system.files().cgroup_v2_root + "/job/memory.current", "5\n");
  EXPECT_EQ(available_memory(nullptr, 1, 0, system.files()), 1000 * kKiB);
}

TEST(AvailableMemory, ACgroupV1LimitCountsAndItsNoLimitNumberDoesNot) {
  FakeSystem system;
  system.meminfo_available_kb(22072512);
  system.write(system.files().self_cgroup, "5:cpu,memory:/job\n4:pids:/job\n0::/\n");
  const std::string job = system.files().cgroup_v1_memory_root + "/job";
  system.write(job + "/memory.limit_in_bytes", std::to_string(4 * kGiB) + "\n");
  system.write(job + "/memory.usage_in_bytes", std::to_string(1 * kGiB) + "\n");
  system.write(system.files().cgroup_v1_memory_root + "/memory.limit_in_bytes",
               "9223372036854771712\n");  // the root: no limit
  system.write(system.files().cgroup_v1_memory_root + "/memory.usage_in_bytes", "1\n");
  EXPECT_EQ(available_memory(nullptr, 1, 0, system.files()), 3 * kGiB);
}

TEST(AvailableMemory, AUsageAboveTheLimitLeavesNothing) {
  FakeSystem system;
  system.meminfo_available_kb(22072512);
  system.write(system.files().self_cgroup, "0::/job\n");
  system.write(system.files().cgroup_v2_root + "/job/memory.max", "100\n");
  system.write(system.files().cgroup_v2_root + "/job/memory.current", "200\n");
  EXPECT_EQ(available_memory(nullptr, 1, 0, system.files()), 0u);
}

TEST(AvailableMemory, AnUnreadableMeminfoFallsBackToTheCgroup) {
  FakeSystem system;  // no meminfo file
  system.write(system.files().self_cgroup, "0::/job\n");
  system.write(system.files().cgroup_v2_root + "/job/memory.max", std::to_string(kGiB));
  system.write(system.files().cgroup_v2_root + "/job/memory.current", "0");
  EXPECT_EQ(available_memory(nullptr, 1, 0, system.files()), kGiB);
}

TEST(AvailableMemory, AnUnreadableCgroupFallsBackToMeminfo) {
  FakeSystem system;
  system.meminfo_available_kb(2000);
  system.write(system.files().self_cgroup, "0::/job\n");
  system.write(system.files().cgroup_v2_root + "/job/memory.max", "garbage\n");
  // memory.current is missing too
  EXPECT_EQ(available_memory(nullptr, 1, 0, system.files()), 2000 * kKiB);
}

TEST(AvailableMemory, IsUnknownWhenNothingIsReadable) {
  FakeSystem system;
  EXPECT_EQ(available_memory(nullptr, 1, 0, system.files()), std::nullopt);
  system.write(system.files().meminfo, "MemTotal: 1000 kB\n");  // an old kernel's meminfo
  EXPECT_EQ(available_memory(nullptr, 1, 0, system.files()), std::nullopt);
}

}  // namespace
}  // namespace xtrain
