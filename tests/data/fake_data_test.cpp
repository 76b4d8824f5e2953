// FakeData: --fake_data's batches. All-zero images labelled 0 by default; with noise samples,
// each data set index gets the same sample whatever the cores and the epoch, and the cores of a
// step read the indices one core with their batches together reads.
#include "data/fake_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "lib/tensor/bfloat16.h"

namespace xtrain {
namespace {

constexpr int kSide = 8;
constexpr int64_t kImage = kSide * kSide * 3;

struct Batch {
  std::vector<float> images;
  std::vector<int32_t> labels;
};

Batch next_batch(FakeData& data, int batch_size) {
  Batch b{std::vector<float>(batch_size * kImage, -1.0f), std::vector<int32_t>(batch_size, -1)};
  EXPECT_EQ(data.next(b.images.data(), b.labels.data()), batch_size);
  return b;
}

std::shared_ptr<const NoiseSamples> noise() {
  return std::make_shared<const NoiseSamples>(kSide, 1000, 42);
}

TEST(FakeData, ZerosAreLabelledZero) {
  FakeData data(2, 3, kSide);
  data.start_epoch(1);
  for (int step = 0; step < 2; ++step) {
    const Batch b = next_batch(data, 3);
    EXPECT_TRUE(std::all_of(b.images.begin(), b.images.end(), [](float v) { return v == 0.0f; }));
    EXPECT_EQ(b.labels, std::vector<int32_t>(3, 0));
  }
  float image[kImage];
  int32_t label;
  EXPECT_EQ(data.next(image, &label), 0);  // the epoch is over
}

// Slot j of batch b of core r of R holds index r + R * (b * batch + j): two cores at batch 2 read
// in each step the indices one core reads at batch 4, each index as the same sample.
TEST(FakeData, AnIndexIsTheSameSampleWhateverTheCores) {
  const auto samples = noise();
  FakeData one(3, 4, kSide, samples, 0, 1);
  FakeData core0(3, 2, kSide, samples, 0, 2), core1(3, 2, kSide, samples, 1, 2);
  for (FakeData* data : {&one, &core0, &core1}) data->start_epoch(1);
  for (int step = 0; step < 3; ++step) {
    const Batch whole = next_batch(one, 4);
    const Batch halves[2] = {next_batch(core0, 2), next_batch(core1, 2)};
    for (int j = 0; j < 4; ++j) {
      const int64_t index = step * 4 + j;
      EXPECT_TRUE(std::equal(samples->image(index), samples->image(index) + kImage,
                             whole.images.begin() + j * kImage));
      EXPECT_EQ(whole.labels[j], samples->label(index));
      const Batch& half = halves[j % 2];  // index = core + 2 * (step * 2 + slot)
      const int slot = j / 2;
      EXPECT_TRUE(std::equal(half.images.begin() + slot * kImage,
                             half.images.begin() + (slot + 1) * kImage,
                             whole.images.begin() + j * kImage))
          << "step " << step << " index " << index;
      EXPECT_EQ(half.labels[slot], whole.labels[j]);
    }
  }
}

// The XLA script's fake data is the same every step; here every epoch reads the same indices.
TEST(FakeData, EveryEpochReadsTheSameSamples) {
  FakeData data(2, 3, kSide, noise(), 1, 3);
  std::vector<Batch> first;
  data.start_epoch(1);
  for (int step = 0; step < 2; ++step) first.push_back(next_batch(data, 3));
  data.start_epoch(2);
  for (int step = 0; step < 2; ++step) {
    const Batch again = next_batch(data, 3);
    EXPECT_EQ(again.images, first[step].images);
    EXPECT_EQ(again.labels, first[step].labels);
  }
  EXPECT_NE(first[0].images, first[1].images);
}

// A bfloat16 plan's input gets the samples rounded, as write_floats rounds any batch.
TEST(FakeData, WritesABFloat16BatchRounded) {
  const auto samples = noise();
  FakeData data(1, 2, kSide, samples, 0, 1);
  data.start_epoch(1);
  std::vector<BFloat16> images(2 * kImage);
  int32_t labels[2];
  ASSERT_EQ(data.next(images.data(), labels), 2);
  for (int64_t i = 0; i < 2 * kImage; ++i) {
    ASSERT_EQ(to_float(images[i]), round_to_bfloat16(samples->image(0)[i])) << i;
  }
}

}  // namespace
}  // namespace xtrain
