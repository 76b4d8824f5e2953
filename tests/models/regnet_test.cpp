// RegNetX's stages against torchvision's BlockParams.from_init_params: the depth, width and
// group width of each stage of the seven regnet_x_* models, as printed by
//   m = torchvision.models.regnet_x_400mf()
//   [(len(s), s[0].f.c[0].out_channels, s[0].f.b[0].out_channels // s[0].f.b[0].groups)
//    for s in m.trunk_output]
#include "models/regnet.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

using Stages = std::vector<std::tuple<int, int, int>>;  // depth, width, group width

Stages stages_of(const RegNetDesign& design) {
  Stages stages;
  for (const RegNetStage& s : regnet_stages(design)) {
    stages.emplace_back(s.depth, s.width, s.group_width);
  }
  return stages;
}

TEST(RegNet, StagesAreTorchvisionsBlockParams) {
  // 400mf's quantized widths are 24, 64, 152, 392: 24 becomes 32, the multiple of 16 nearest
  // above, and so on (_adjust_widths_groups_compatibilty).
  EXPECT_EQ(stages_of({22, 24, 24.48, 2.54, 16}),
            (Stages{{1, 32, 16}, {2, 64, 16}, {7, 160, 16}, {12, 400, 16}}));
  EXPECT_EQ(stages_of({16, 56, 35.73, 2.28, 16}),
            (Stages{{1, 64, 16}, {3, 128, 16}, {7, 288, 16}, {5, 672, 16}}));
  // 1.6gf's second width is 80 * 2.25 / 8 = 22.5 exactly: torch.round takes the even 22.
  EXPECT_EQ(stages_of({18, 80, 34.01, 2.25, 24}),
            (Stages{{2, 72, 24}, {4, 168, 24}, {10, 408, 24}, {2, 912, 24}}));
  EXPECT_EQ(stages_of({25, 88, 26.31, 2.25, 48}),
            (Stages{{2, 96, 48}, {6, 192, 48}, {15, 432, 48}, {2, 1008, 48}}));
  // 8gf's first stage is narrower than the group width 120: one group of 80.
  EXPECT_EQ(stages_of({23, 80, 49.56, 2.88, 120}),
            (Stages{{2, 80, 80}, {5, 240, 120}, {15, 720, 120}, {1, 1920, 120}}));
  EXPECT_EQ(stages_of({22, 216, 55.59, 2.1, 128}),
            (Stages{{2, 256, 128}, {6, 512, 128}, {13, 896, 128}, {1, 2048, 128}}));
  EXPECT_EQ(stages_of({23, 320, 69.86, 2.0, 168}),
            (Stages{{2, 336, 168}, {7, 672, 168}, {13, 1344, 168}, {1, 2520, 168}}));
}

TEST(RegNet, InvalidDesignIsAnError) {
  EXPECT_THROW(regnet_stages({22, 20, 24.48, 2.54, 16}), Error);  // w_0 not a multiple of 8
  EXPECT_THROW(regnet_stages({22, 24, 24.48, 1.0, 16}), Error);
}

}  // namespace
}  // namespace xtrain
