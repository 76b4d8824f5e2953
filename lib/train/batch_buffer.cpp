#include "lib/train/batch_buffer.h"

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

}  // namespace xtrain
