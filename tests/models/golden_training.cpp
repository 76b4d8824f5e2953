#include "tests/models/golden_training.h"

#include "lib/nn/cross_entropy_loss.h"
#include "models/registry.h"
#include "tests/models/formula_weights.h"

namespace xtrain::testing {
namespace {

const CrossEntropyLoss kLoss("loss", /*label_smoothing=*/0.0f);

// make_golden.py's STEP_KEYS: its Dropout layers draw xtrain's masks for these keys.
constexpr uint32_t kStepKeys[2] = {0x5EED0001u, 0x5EED0002u};

}  // namespace

GoldenTraining::GoldenTraining(const nlohmann::json& golden, Precision precision)
    : pool_(2),
      replica_(build_model(golden["model"], golden["num_classes"]), /*kernel_threads=*/2,
               precision),
      sgd_(golden["momentum"], /*nesterov=*/false,
           {ParamTensor{0, replica_.store().num_params(), golden["weight_decay"]}}),
      lr_(golden["lr"]) {
  const int batch = golden["batch"], side = golden["image_size"], classes = golden["num_classes"];
  replica_.store().initialize(0);
  set_formula_parameters(replica_);
  train_ = &replica_.plan_for(Shape{batch, side, side, 3}, PlanMode::kTrain, &kLoss);
  std::vector<float> image(train_->input().numel());  // NHWC here, NCHW in the formula
  for (int n = 0; n < batch; ++n)
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) {
          const int64_t i = ((int64_t{n} * 3 + c) * side + y) * side + x;
          image[((int64_t{n} * side + y) * side + x) * 3 + c] =
              static_cast<float>(hashed_uniform(i, 1000));
        }
  train_->set_images(0, batch, image.data());
  for (int n = 0; n < batch; ++n) train_->labels()[n] = (3 * n + 1) % classes;
}

float GoldenTraining::forward_backward(int step) {
  const Exec ex = exec();
  replica_.store().zero_grads();
  train_->forward(ex, kStepKeys[step]);
  const float loss = train_->loss();
  train_->backward(ex);
  return loss;
}

void GoldenTraining::update() {
  ParamStore& store = replica_.store();
  sgd_.step(store.params(), store.grads(), lr_, /*step=*/1, exec());
}

}  // namespace xtrain::testing
