#include "lib/tensor/tensor.h"

#include "lib/base/check.h"

namespace xtrain {

void throw_wrong_element_type(ElementType held, ElementType asked) {
  throw_error(__FILE__, __LINE__,
              fmt::format("a view of {} elements read as {}", name(held), name(asked)));
}

}  // namespace xtrain
