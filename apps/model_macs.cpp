// model_macs MODEL IMAGE_SIZE [NUM_CLASSES]: prints the forward multiply-adds of one image,
// exactly (train's log line rounds them), as
//   macs_per_image <N>
// for scripts/bench to turn images/second into GFLOP/s.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "lib/base/check.h"
#include "models/registry.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: model_macs MODEL IMAGE_SIZE [NUM_CLASSES]\n";
    return 2;
  }
  const int image_size = std::atoi(argv[2]);
  const int num_classes = argc > 3 ? std::atoi(argv[3]) : 1000;
  try {
    const auto model = xtrain::build_model(argv[1], num_classes);
    const xtrain::Shape image{1, image_size, image_size, model->input_channels()};
    std::printf("macs_per_image %lld\n", static_cast<long long>(model->macs(image)));
  } catch (const xtrain::Error& e) {
    std::cerr << "model_macs: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
