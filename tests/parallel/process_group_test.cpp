// A process that no MPI launcher started is a group of one that never touches MPI (the job of
// several processes is tested under mpirun: tests/mpi/).
#include "lib/parallel/process_group.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <optional>
#include <vector>

namespace xtrain {
namespace {

TEST(ProcessGroup, WithoutALauncherIsOneProcessAndLeavesMpiAlone) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    unsetenv(name);
  }
  ProcessGroup group = ProcessGroup::from_environment();
  EXPECT_EQ(group.rank(), 0);
  EXPECT_EQ(group.size(), 1);
  EXPECT_EQ(group.local_rank(), 0);
  EXPECT_EQ(group.local_size(), 1);
  int initialized = 1;
  MPI_Initialized(&initialized);
  EXPECT_EQ(initialized, 0);
  std::vector<float> data = {1.5f, -2.0f};
  group.sum(data.data(), data.size());  // the sum over one process is its own values
  EXPECT_EQ(data, (std::vector<float>{1.5f, -2.0f}));
  double count = 7.0;
  group.sum(&count, 1);
  EXPECT_EQ(count, 7.0);
  EXPECT_FALSE(group.first_failure("").has_value());
  const std::optional<ProcessGroup::Failure> failure = group.first_failure("no such file");
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->rank, 0);
  EXPECT_EQ(failure->failed, 1);
  EXPECT_EQ(failure->message, "no such file");
  group.abort(1);  // returns: there is no job to end
}

}  // namespace
}  // namespace xtrain
