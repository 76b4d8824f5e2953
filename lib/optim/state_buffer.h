// StateBuffer: one of an optimizer's state buffers, a float32 per parameter in the order of a
// replica's flat parameter buffer (ParamStore::params()), such as SGD's momentum. A checkpoint
// stores parameter p's share of it as "optimizer.<name>.<p>", after the name torch.optim gives
// that state.
// Not here: the optimizers that own them (sgd.h), the file (lib/io/checkpoint.h).
#pragma once

#include <cstddef>
#include <string>

namespace xtrain {

struct StateBuffer {
  std::string name;  // torch.optim's name of the state, e.g. "momentum_buffer"
  float* values;     // a value per parameter
  size_t size;       // the parameters' count
};

}  // namespace xtrain
