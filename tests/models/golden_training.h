// make_golden.py's training run in xtrain, shared by the golden tests: a replica of the golden
// file's model with the formula weights, a training plan holding the formula image and labels,
// and make_golden.py's two SGD steps (its dropout keys and hyper-parameters) on two threads.
// Not here: what the tests compare, and how closely.
#pragma once

#include <nlohmann/json.hpp>

#include "lib/graph/replica.h"
#include "lib/optim/sgd.h"
#include "lib/tensor/precision.h"
#include "tests/test_util.h"

namespace xtrain::testing {

class GoldenTraining {
 public:
  // `golden`: a file of make_golden.py, which names the model and gives the batch, image size,
  // classes and SGD hyper-parameters. Buffers and counters start as in a fresh model.
  explicit GoldenTraining(const nlohmann::json& golden, Precision precision = Precision::kFloat32);

  Replica& replica() { return replica_; }
  Plan& train() { return *train_; }  // its input, labels, logits and loss
  Exec exec() { return pool_.exec(); }

  // Step `step` (0 or 1) up to its gradients: zeroes them, runs the forward with the step's
  // dropout key and the backward. Returns the loss; logits and gradients stay for the caller.
  float forward_backward(int step);
  // SGD on the gradients forward_backward left, with the golden's learning rate.
  void update();

 private:
  PoolExec pool_;
  Replica replica_;
  Plan* train_;
  SGD sgd_;
  float lr_;
};

}  // namespace xtrain::testing
