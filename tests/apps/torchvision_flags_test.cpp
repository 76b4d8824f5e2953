// torchvision's spellings of train's flags: hyphens for underscores in every flag's name (never in
// a value), torchvision's names for train's flags, its flags train lacks refused in one line that
// names them all, a flag given under two names with two values refused naming both. And the
// commands torchvision publishes with its weights, given as torchrun hands them to train.py with
// --data-path DIR: the model is checked first, then the flags train lacks, then the values.
#include "apps/torchvision_flags.h"

#include <gtest/gtest.h>

#include <sstream>

#include "apps/job_settings.h"
#include "apps/train_flags.h"
#include "tests/apps/flag_parsing.h"

namespace xtrain {
namespace {

using testing::expect_one_line_error;
using testing::ParseOutcome;

ParseOutcome parse(const std::vector<std::string>& args, TrainFlags* flags) {
  return testing::run_parser(&parse_train_flags, "train", args, flags);
}

// Everything a parse resolves, as one text: two spellings of a command must give the same.
std::string resolved(const TrainFlags& f) {
  const LoaderOptions& loader = f.data.loader;
  return settings_text(job_settings(f)) + "|workers=" + std::to_string(loader.num_workers) +
         "|prefetch=" + std::to_string(loader.prefetch_factor) + "," +
         std::to_string(loader.loader_prefetch_size) + "|evaluate=" + std::to_string(f.evaluate) +
         "|profile=" + f.trainer.profile + "|cores=" + std::to_string(f.num_cores_given) + "," +
         std::to_string(f.trainer.num_cores);
}

// `args` parse, to the settings `train_args` (train's own spellings) give.
void expect_same_as(const std::vector<std::string>& args,
                    const std::vector<std::string>& train_args) {
  TrainFlags given, expected;
  const ParseOutcome o = parse(args, &given);
  ASSERT_TRUE(o.ok) << ::testing::PrintToString(args) << ": " << o.err;
  const ParseOutcome e = parse(train_args, &expected);
  ASSERT_TRUE(e.ok) << ::testing::PrintToString(train_args) << ": " << e.err;
  EXPECT_EQ(resolved(given), resolved(expected)) << ::testing::PrintToString(args);
}

// args must be refused in one line that holds `text`.
void expect_refused(const std::string& text, const std::vector<std::string>& args) {
  TrainFlags flags;
  const ParseOutcome o = parse(args, &flags);
  const std::string context = ::testing::PrintToString(args);
  expect_one_line_error(o, "train", context);
  EXPECT_NE(o.err.find(text), std::string::npos) << context << ": " << o.err;
}

// The words of a command as a shell splits it, from after "train.py" (torchrun's arguments are
// its own), line-continuing backslashes dropped.
std::vector<std::string> after_train_py(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> words;
  bool after = false;
  for (std::string word; in >> word;) {
    if (word.back() == '\\') word.pop_back();
    if (after && !word.empty()) words.push_back(word);
    after = after || word == "train.py";
  }
  return words;
}

std::vector<std::string> with_data_path(std::vector<std::string> args) {
  args.insert(args.end(), {"--data-path", "/data/imagenet"});
  return args;
}

TEST(TorchvisionFlags, EveryFlagTakesHyphensForUnderscoresInItsNameOnly) {
  TrainFlags help_flags;
  const ParseOutcome help = parse({"--help"}, &help_flags);
  ASSERT_EQ(help.exit_code, 0);
  int compared = 0;
  for (const std::string& option : testing::options_in_help(help.out)) {
    if (option.find('_') == std::string::npos) continue;
    std::string hyphens = option;
    std::replace(hyphens.begin() + 2, hyphens.end(), '_', '-');
    for (const std::string value : {"", "=1", "=0.5", "=ta_wide", "=x", "=a-b_c"}) {
      // No underscore in these: the flag under test is given under one name.
      const std::vector<std::string> base = {"--datadir=/d", "--model=resnet20", "--logdir=/tmp/x"};
      std::vector<std::string> with_underscores = base, with_hyphens = base;
      with_underscores.push_back(option + value);
      with_hyphens.push_back(hyphens + value);
      TrainFlags a, b;
      const ParseOutcome u = parse(with_underscores, &a), h = parse(with_hyphens, &b);
      const std::string context = hyphens + value + " vs " + option + value + ": " + u.err;
      EXPECT_EQ(h.ok, u.ok) << context;
      EXPECT_EQ(h.exit_code, u.exit_code) << context;
      if (u.ok) {
        EXPECT_EQ(resolved(b), resolved(a)) << context;
      } else if (!u.err.empty()) {
        // The same line, saying how the flag was given where it names it.
        std::string said = u.err.substr(0, u.err.size() - 1);
        if (said.rfind("train: error: " + option, 0) == 0) said += " (given as " + hyphens + ")";
        EXPECT_EQ(h.err, said + "\n") << context;
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, 150);
  // Values keep their hyphens; only names before '=' or a separate value are rewritten.
  TrainFlags flags;
  ASSERT_TRUE(
      parse({"--data-path=/my-data/image-net", "--output-dir", "run-1--a", "--profile", "a-b.json"},
            &flags)
          .ok);
  EXPECT_EQ(flags.data.datadir, "/my-data/image-net");
  EXPECT_EQ(flags.trainer.logdir, "run-1--a");
  EXPECT_EQ(flags.trainer.profile, "a-b.json");
}

TEST(TorchvisionFlags, TorchvisionsNamesAreTrainsFlags) {
  expect_same_as({"--data-path", "/d", "--epochs", "7", "-b", "16", "-j", "3", "--output-dir",
                  "/out", "--print-freq", "5", "--wd", "0.3", "--amp"},
                 {"--datadir=/d", "--num_epochs=7", "--batch_size=16", "--num_workers=3",
                  "--logdir=/out", "--log_steps=5", "--weight_decay=0.3", "--bf16"});
  expect_same_as({"--data-path=/d", "--batch-size=16", "--workers=3", "--weight-decay=0.3"},
                 {"--datadir=/d", "--batch_size=16", "--num_workers=3", "--weight_decay=0.3"});
  expect_same_as({"--fake_data", "-b16", "-j=3"},
                 {"--fake_data", "--batch_size=16", "--num_workers=3"});
  expect_same_as({"--fake_data", "--test-only", "--resume=/r.safetensors"},
                 {"--fake_data", "--evaluate", "--resume=/r.safetensors"});
  // Things train does anyway: it runs on the CPU and every run is deterministic.
  expect_same_as({"--fake_data", "--device", "cpu", "--use-deterministic-algorithms"},
                 {"--fake_data"});
}

TEST(TorchvisionFlags, MistakesNameTheFlagAsGiven) {
  expect_refused("--batch_size: expected an integer from 1 to 65536, got '0' (given as -b)",
                 {"--fake_data", "-b", "0"});
  expect_refused("--num_epochs: expected an integer from 0 to 1000000, got 'x' (given as --epochs)",
                 {"--fake_data", "--epochs=x"});
  expect_refused(
      "--evaluate needs weights: pass --pretrained=FILE or --resume (given as "
      "--test-only)",
      {"--fake_data", "--test-only"});
  expect_refused("The following argument was not expected: --no-such-flag",
                 {"--fake_data", "--no-such-flag"});
}

TEST(TorchvisionFlags, FeaturesTrainLacksAreNamedAllInOneLine) {
  expect_refused("--use-v2: not supported yet", {"--fake_data", "--use-v2"});
  expect_refused("--backend, --weights, --use-v2: not supported yet",
                 {"--fake_data", "--backend", "PIL", "--weights", "ResNet50_Weights.IMAGENET1K_V2",
                  "--use-v2"});
  // Before any value of train's own flags is checked.
  expect_refused("--weights: not supported yet",
                 {"--fake_data", "--lr=fast", "--weights", "ResNet50_Weights.IMAGENET1K_V2"});
  // Those train has take torchvision's spelling.
  TrainFlags flags;
  ASSERT_TRUE(
      parse({"--fake_data", "--mixup-alpha", "0.2", "--cutmix-alpha=1.0", "--clip-grad-norm", "1",
             "--sync-bn", "--ra-sampler", "--ra-reps", "4", "--model-ema", "--model-ema-steps",
             "16", "--model_ema_decay=0.9999", "--cache-dataset"},
            &flags)
          .ok);
  EXPECT_TRUE(flags.data.cache_dataset);
  EXPECT_EQ(flags.trainer.batch_mix.mixup_alpha, 0.2f);
  EXPECT_EQ(flags.trainer.batch_mix.cutmix_alpha, 1.0f);
  EXPECT_EQ(flags.trainer.clip_grad_norm, 1.0f);
  EXPECT_TRUE(flags.trainer.sync_bn);
  EXPECT_EQ(flags.data.ra_reps, 4);
  EXPECT_TRUE(flags.trainer.model_ema.enabled);
  EXPECT_EQ(flags.trainer.model_ema.steps, 16);
}

TEST(TorchvisionFlags, WhatTrainDoesItsOwnWayIsRefusedWithTheWay) {
  expect_refused("--start-epoch: train resumes at the epoch its checkpoint holds",
                 {"--fake_data", "--start-epoch", "0"});
  expect_refused("--device=cuda: train runs on the CPU only", {"--fake_data", "--device", "cuda"});
  expect_refused("--world-size: a job's processes come from its launcher",
                 {"--fake_data", "--world-size=8"});
  expect_refused("--dist-url: a job's processes come from its launcher",
                 {"--fake_data", "--dist-url", "env://"});
  expect_refused("--use-deterministic-algorithms: expected 1, 0, true or false, got 'yes'",
                 {"--fake_data", "--use-deterministic-algorithms=yes"});
}

TEST(TorchvisionFlags, PyTorchPicklesAreRefusedByName) {
  expect_refused(
      "--resume: checkpoint.pth is a PyTorch pickle (torch.save), which train cannot "
      "read: train resumes from its own checkpoints",
      {"--fake_data", "--resume", "checkpoint.pth"});
  expect_refused("--pretrained: resnet50-11ad3fa6.pth is a PyTorch pickle",
                 {"--fake_data", "--pretrained=resnet50-11ad3fa6.pth"});
  expect_refused("--resume: model_7.pt is a PyTorch pickle",
                 {"--fake_data", "--resume=model_7.pt"});
}

TEST(TorchvisionFlags, OneFlagUnderTwoNamesTakesOneValue) {
  expect_refused(
      "--epochs=10 and --num_epochs=5 are one flag (train's --num_epochs) given two "
      "values: give one",
      {"--fake_data", "--epochs", "10", "--num_epochs=5"});
  expect_refused("--amp=true and --bf16=false are one flag (train's --bf16)",
                 {"--fake_data", "--amp", "--bf16=false"});
  expect_refused("--wd=0.1 and --weight-decay=0.2",
                 {"--fake_data", "--wd=0.1", "--weight-decay", "0.2"});
  expect_refused("--lr-scheduler=steplr and --lr_scheduler=cosineannealinglr",
                 {"--fake_data", "--lr-scheduler=steplr", "--lr_scheduler=cosineannealinglr"});
  // The same value twice is one value, and one name given twice takes its last, as argparse.
  expect_same_as({"--fake_data", "--epochs", "10", "--num_epochs=10", "--amp", "--bf16=1"},
                 {"--fake_data", "--num_epochs=10", "--bf16"});
  expect_same_as({"--fake_data", "--epochs", "10", "--num_epochs=5", "--epochs=5"},
                 {"--fake_data", "--num_epochs=5"});
}

// The commands of torchvision's references/classification/README.md for the weights named, with
// `--data-path DIR` added. ResNet-50's IMAGENET1K_V2 recipe is not in that README: its weights
// link to torchvision's "new recipe", whose flags are the README's ShuffleNet V2 command's.
// EfficientNet-B0's weights are ported from timm and the README gives only their validation
// command, which is the one here.
const char* const kResNet50V2 = R"(
torchrun --nproc_per_node=8 train.py --model resnet50 --batch-size 128 --lr 0.5 \
--lr-scheduler cosineannealinglr --lr-warmup-epochs 5 --lr-warmup-method linear \
--auto-augment ta_wide --epochs 600 --random-erase 0.1 --weight-decay 0.00002 \
--norm-weight-decay 0.0 --label-smoothing 0.1 --mixup-alpha 0.2 --cutmix-alpha 1.0 \
--train-crop-size 176 --model-ema --val-resize-size 232 --ra-sampler --ra-reps 4)";
const char* const kMobileNetV3Large = R"(
torchrun --nproc_per_node=8 train.py\
     --model mobilenet_v3_large --epochs 600 --opt rmsprop --batch-size 128 --lr 0.064\
     --wd 0.00001 --lr-step-size 2 --lr-gamma 0.973 --auto-augment imagenet --random-erase 0.2)";
const char* const kEfficientNetB0 = R"(
torchrun --nproc_per_node=8 train.py --model efficientnet_b0 --test-only --weights EfficientNet_B0_Weights.IMAGENET1K_V1)";
const char* const kRegNetY400MF = R"(
torchrun --nproc_per_node=8 train.py\
     --model regnet_y_400mf --epochs 100 --batch-size 128 --wd 0.00005 --lr=0.8\
     --lr-scheduler=cosineannealinglr --lr-warmup-method=linear\
     --lr-warmup-epochs=5 --lr-warmup-decay=0.1)";
const char* const kConvNeXtTiny = R"(
torchrun --nproc_per_node=8 train.py\
--model convnext_tiny --batch-size 128 --opt adamw --lr 1e-3 --lr-scheduler cosineannealinglr \
--lr-warmup-epochs 5 --lr-warmup-method linear --auto-augment ta_wide --epochs 600 --random-erase 0.1 \
--label-smoothing 0.1 --mixup-alpha 0.2 --cutmix-alpha 1.0 --weight-decay 0.05 --norm-weight-decay 0.0 \
--train-crop-size 176 --model-ema --val-resize-size 232 --ra-sampler --ra-reps 4)";
const char* const kViTB16 = R"(
torchrun --nproc_per_node=8 train.py\
    --model vit_b_16 --epochs 300 --batch-size 512 --opt adamw --lr 0.003 --wd 0.3\
    --lr-scheduler cosineannealinglr --lr-warmup-method linear --lr-warmup-epochs 30\
    --lr-warmup-decay 0.033 --amp --label-smoothing 0.11 --mixup-alpha 0.2 --auto-augment ra\
    --clip-grad-norm 1 --ra-sampler --cutmix-alpha 1.0 --model-ema)";

TEST(TorchvisionRecipes, ModelsTrainLacksAreRefusedAsModelsFirst) {
  for (const char* recipe : {kViTB16}) {
    const std::vector<std::string> args = with_data_path(after_train_py(recipe));
    ASSERT_EQ(args[0], "--model");
    expect_refused("--model: expected one of", args);
    expect_refused("got '" + args[1] + "'", args);
  }
}

// EfficientNet-B0's published command evaluates torchvision's weights; the model is train's,
// the --weights flag is not, and the error says so.
TEST(TorchvisionRecipes, EfficientNetB0RefusesOnlyItsWeightsFlag) {
  expect_refused("--weights: not supported yet", with_data_path(after_train_py(kEfficientNetB0)));
}

// MobileNetV3-Large's recipe steps its LR with --lr-step-size and --lr-gamma under torchvision's
// default --lr-scheduler, steplr; train's default schedule is torch_xla's, so train asks for the
// scheduler by name, and with it the recipe reads as train's spellings.
TEST(TorchvisionRecipes, MobileNetV3LargeNeedsItsSchedulerNamed) {
  std::vector<std::string> args = with_data_path(after_train_py(kMobileNetV3Large));
  expect_refused("--lr_step_size needs --lr_scheduler (torchvision's) (given as --lr-step-size)",
                 args);
  args.insert(args.end(), {"--lr-scheduler", "steplr"});
  expect_same_as(
      args, {"--model=mobilenet_v3_large", "--num_epochs=600", "--opt=rmsprop", "--batch_size=128",
             "--lr=0.064", "--weight_decay=0.00001", "--lr_scheduler=steplr", "--lr_step_size=2",
             "--lr_gamma=0.973", "--auto_augment=imagenet", "--random_erase=0.2",
             "--datadir=/data/imagenet"});
}

// ResNet-50's recipe runs as published: every flag it uses reads as train's.
TEST(TorchvisionRecipes, ResNet50V2ReadsAsPublished) {
  const std::vector<std::string> args = with_data_path(after_train_py(kResNet50V2));
  TrainFlags flags;
  ASSERT_TRUE(parse(args, &flags).ok) << ::testing::PrintToString(args);
  const TrainerOptions& t = flags.trainer;
  EXPECT_EQ(flags.model, "resnet50");
  EXPECT_EQ(flags.data.datadir, "/data/imagenet");
  EXPECT_EQ(t.batch_size, 128);
  EXPECT_FLOAT_EQ(t.lr_schedule.lr, 0.5f);
  EXPECT_EQ(t.lr_schedule.type, "none");
  EXPECT_EQ(t.lr_schedule.torchvision.lr_scheduler, "cosineannealinglr");
  EXPECT_EQ(t.lr_schedule.torchvision.lr_warmup_epochs, 5);
  EXPECT_EQ(t.lr_schedule.torchvision.lr_warmup_method, "linear");
  EXPECT_EQ(flags.data.train_extras.auto_augment, "ta_wide");
  EXPECT_EQ(t.num_epochs, 600);
  EXPECT_EQ(flags.data.train_extras.random_erase, 0.1);
  EXPECT_FLOAT_EQ(t.optimizer.weight_decay, 2e-5f);
  ASSERT_TRUE(t.optimizer.norm_weight_decay.has_value());
  EXPECT_EQ(*t.optimizer.norm_weight_decay, 0.0f);
  EXPECT_FLOAT_EQ(t.label_smoothing, 0.1f);
  EXPECT_EQ(t.optimizer.name, "sgd");  // torchvision's default, and train's
  EXPECT_FLOAT_EQ(t.optimizer.momentum, 0.9f);
  EXPECT_EQ(t.batch_mix.mixup_alpha, 0.2f);
  EXPECT_EQ(t.batch_mix.cutmix_alpha, 1.0f);
  EXPECT_TRUE(t.model_ema.enabled);
  EXPECT_EQ(flags.data.ra_reps, 4);
}

// RegNetY-400MF's recipe runs as published: its model and every flag read as train's.
TEST(TorchvisionRecipes, RegNetY400MFReadsAsPublished) {
  expect_same_as(
      with_data_path(after_train_py(kRegNetY400MF)),
      {"--model=regnet_y_400mf", "--num_epochs=100", "--batch_size=128", "--weight_decay=0.00005",
       "--lr=0.8", "--lr_scheduler=cosineannealinglr", "--lr_warmup_method=linear",
       "--lr_warmup_epochs=5", "--lr_warmup_decay=0.1", "--datadir=/data/imagenet"});
}

// ConvNeXt-Tiny's recipe runs as published: its model and every flag read as train's.
TEST(TorchvisionRecipes, ConvNeXtTinyReadsAsPublished) {
  expect_same_as(with_data_path(after_train_py(kConvNeXtTiny)), {"--model=convnext_tiny",
                                                                 "--batch_size=128",
                                                                 "--opt=adamw",
                                                                 "--lr=1e-3",
                                                                 "--lr_scheduler=cosineannealinglr",
                                                                 "--lr_warmup_epochs=5",
                                                                 "--lr_warmup_method=linear",
                                                                 "--auto_augment=ta_wide",
                                                                 "--num_epochs=600",
                                                                 "--random_erase=0.1",
                                                                 "--label_smoothing=0.1",
                                                                 "--mixup_alpha=0.2",
                                                                 "--cutmix_alpha=1.0",
                                                                 "--weight_decay=0.05",
                                                                 "--norm_weight_decay=0.0",
                                                                 "--train_crop_size=176",
                                                                 "--model_ema",
                                                                 "--val_resize_size=232",
                                                                 "--ra_sampler",
                                                                 "--ra_reps=4",
                                                                 "--datadir=/data/imagenet"});
}

// The flags of the other recipe (ViT-B/16's), with a model train has: the same settings as train's
// spellings.
TEST(TorchvisionRecipes, OtherRecipesFlagsReadAsTrainsWithAModelTrainHas) {
  const auto with_resnet50 = [](const char* recipe) {
    std::vector<std::string> args = with_data_path(after_train_py(recipe));
    args[1] = "resnet50";
    return args;
  };
  expect_same_as(
      with_resnet50(kViTB16),
      {"--model=resnet50", "--num_epochs=300", "--batch_size=512", "--opt=adamw", "--lr=0.003",
       "--weight_decay=0.3", "--lr_scheduler=cosineannealinglr", "--lr_warmup_method=linear",
       "--lr_warmup_epochs=30", "--lr_warmup_decay=0.033", "--bf16", "--label_smoothing=0.11",
       "--mixup_alpha=0.2", "--auto_augment=ra", "--clip_grad_norm=1", "--ra_sampler",
       "--cutmix_alpha=1.0", "--model_ema", "--datadir=/data/imagenet"});
}

}  // namespace
}  // namespace xtrain
