#include "lib/io/folder_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "lib/base/check.h"
#include "lib/io/host_name.h"
#include "tests/io/io_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

// The xtrain::Error message of taking the lock, or "" if it is taken (and let go at once).
std::string lock_error(const std::string& folder) {
  return testing::error_of([&] { FolderLock lock(folder, "--logdir"); });
}

std::string record(const std::string& host, int64_t pid) {
  return nlohmann::json{{"host", host}, {"pid", pid}, {"started", "2026-11-28 04:10:00"}}.dump();
}

// What the refusal says of a live holder on this host.
std::string in_use_pattern(const std::string& folder, pid_t pid) {
  return "--logdir " + folder + " is in use by the run of PID " + std::to_string(pid) +
         " on host " + host_name() +
         R"( \(started [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\); give this run )"
         "another --logdir, or let that one end first";
}

// A child process that takes the lock and then waits to be killed; returns once it holds it.
pid_t child_holding_lock(const std::string& folder) {
  int ready[2];
  EXPECT_EQ(::pipe(ready), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    FolderLock lock(folder, "--logdir");
    const bool told = ::write(ready[1], "x", 1) == 1;
    while (told) ::pause();
    ::_exit(1);
  }
  char byte;
  EXPECT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ::close(ready[1]);
  return pid;
}

TEST(FolderLock, ASecondHolderIsRefusedNamingTheFirst) {
  testing::TempDir dir;
  const FolderLock first(dir.file(""), "--logdir");
  EXPECT_EQ(first.path(), dir.file("run.lock"));
  const nlohmann::json held = nlohmann::json::parse(testing::read_bytes(first.path()));
  EXPECT_EQ(held["host"], host_name());
  EXPECT_EQ(held["pid"], ::getpid());
  const std::string error = lock_error(dir.file(""));
  EXPECT_TRUE(std::regex_match(error, std::regex(in_use_pattern(dir.file(""), ::getpid()))))
      << error;
}

TEST(FolderLock, AnEndedHolderLeavesTheFolderFree) {
  testing::TempDir dir;
  { const FolderLock first(dir.file(""), "--logdir"); }
  EXPECT_EQ(testing::read_bytes(dir.file("run.lock")), "");  // released: free for any host
  EXPECT_EQ(lock_error(dir.file("")), "");
}

// Another process holds it; killed with SIGKILL, its lock goes with it, and its record (this
// host, a pid now gone) is taken over.
TEST(FolderLock, AKilledHoldersLockIsTakenOver) {
  testing::TempDir dir;
  const pid_t holder = child_holding_lock(dir.file(""));
  const std::string error = lock_error(dir.file(""));
  EXPECT_TRUE(std::regex_match(error, std::regex(in_use_pattern(dir.file(""), holder)))) << error;
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  EXPECT_EQ(nlohmann::json::parse(testing::read_bytes(dir.file("run.lock")))["pid"], holder);
  const FolderLock taken(dir.file(""), "--logdir");
  EXPECT_EQ(nlohmann::json::parse(testing::read_bytes(taken.path()))["pid"], ::getpid());
}

// A record of this host whose process is gone, or a record cut off while being written: free.
TEST(FolderLock, ALeftRecordOfThisHostOrAPartialOneIsTakenOver) {
  testing::TempDir dir;
  for (const std::string& left :
       {record(host_name(), testing::dead_pid()), record(host_name(), 1).substr(0, 20)}) {
    testing::write_bytes(dir.file("run.lock"), left);
    EXPECT_EQ(lock_error(dir.file("")), "") << left;
  }
}

// No lock tells whether a run on another host is alive (a file system may keep locks per host):
// refused, saying which file to remove once that run is known to be over.
TEST(FolderLock, ARecordOfAnotherHostIsRefused) {
  testing::TempDir dir;
  testing::write_bytes(dir.file("run.lock"), record("node3", 1234));
  EXPECT_EQ(lock_error(dir.file("")),
            "--logdir " + dir.file("") +
                " was locked by the run of PID 1234 on host node3 (started 2026-11-28 04:10:00), "
                "which cannot be checked from host " +
                host_name() + ": if that run has ended, remove " + dir.file("run.lock") +
                " and start again");
  EXPECT_EQ(testing::read_bytes(dir.file("run.lock")), record("node3", 1234));  // left alone
}

TEST(FolderLock, AFolderThatCannotHoldTheFileIsOneLine) {
  testing::TempDir dir;
  EXPECT_EQ(
      lock_error(dir.file("missing")),
      "--logdir: cannot open " + dir.file("missing/run.lock") + ": No such file or directory");
}

}  // namespace
}  // namespace xtrain
