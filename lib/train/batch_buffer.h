// The buffer a core's source writes each batch into before the trainer copies it into a plan:
// the images in the plans' image type (bfloat16 takes half) and their labels, with room for the
// run's largest batch, training or test. The trainer sizes its buffers by batch_buffer_size(), and
// the memory plan counts them by it. Not here: the copy into a plan (the Trainer).
#pragma once

#include <cstddef>
#include <cstdint>

#include "lib/graph/graph.h"
#include "lib/tensor/elements.h"
#include "lib/tensor/precision.h"

namespace xtrain {

struct BatchBufferSize {
  ElementType image_type = ElementType::kFloat32;
  size_t image_floats = 0;  // the images' storage, in floats whatever their type
  size_t labels = 0;

  // Labels, an int32 an image, are left out of the count.
  size_t image_bytes() const { return image_floats * sizeof(float); }
};

// For batches of up to batch_size images of image_size x image_size pixels into plans of this
// graph that multiply in `precision`.
BatchBufferSize batch_buffer_size(const Graph& graph, Precision precision, int image_size,
                                  int batch_size);

// One buffer for two kinds of batch (training and test, whose images may differ in size): room
// for the larger images and the more labels. Both are for the same plans' image type.
BatchBufferSize room_for_both(const BatchBufferSize& a, const BatchBufferSize& b);

}  // namespace xtrain
