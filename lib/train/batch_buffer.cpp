#include "lib/train/batch_buffer.h"

#include <algorithm>

#include "lib/base/check.h"
#include "lib/graph/plan_phases.h"

namespace xtrain {

BatchBufferSize batch_buffer_size(const Graph& graph, Precision precision, int image_size,
                                  int batch_size) {
  BatchBufferSize size;
  size.image_type = image_type(graph, precision);
  size.image_floats = floats_for(
      int64_t{batch_size} * image_size * image_size * graph.input_channels(), size.image_type);
  size.labels = batch_size;
  return size;
}

BatchBufferSize room_for_both(const BatchBufferSize& a, const BatchBufferSize& b) {
  XTRAIN_CHECK(a.image_type == b.image_type, "room_for_both: batches of two image types");
  BatchBufferSize both = a;
  both.image_floats = std::max(a.image_floats, b.image_floats);
  both.labels = std::max(a.labels, b.labels);
  return both;
}

}  // namespace xtrain
