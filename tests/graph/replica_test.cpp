// Replica: what it counts of itself for the memory plan.
#include "lib/graph/replica.h"

#include <gtest/gtest.h>

#include "tests/graph/tiny_resnet.h"

namespace xtrain {
namespace {

TEST(Replica, CountsTheStateItAllocates) {
  const auto graph = testing::tiny_resnet(/*num_classes=*/3);
  const Replica replica(graph);
  EXPECT_EQ(Replica::state_bytes_for(*graph), replica.state_bytes());
  // The store alone: the optimizer's state is the optimizer's.
  EXPECT_EQ(replica.state_bytes(), ParamStore::sizes_for(*graph).bytes());
}

}  // namespace
}  // namespace xtrain
