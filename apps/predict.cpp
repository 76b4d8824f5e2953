// predict: classifies image files and folders with a checkpoint, the way a user checks a model by
// hand. Every image gets train's test transform (--augment=imagenet: shorter side resized to
// --val_resize_size, by default round(image_size / 0.875), center crop, normalize), batches go
// through an eval plan, and each image prints one JSON line:
//   {"path":"cat.jpg","top_k":[3,5],"classes":["cat","dog"],"probabilities":[0.91,0.04]}
// probabilities[i] is the softmax probability of class top_k[i], highest first (ties: lower
// index first); "classes" only with --classes. An unreadable image is a warning naming it and a
// non-zero exit at the end; so is an image whose outputs have a NaN or an infinity (a diverged
// checkpoint), whose line is {"path":"cat.jpg","error":"non-finite outputs"} instead of a guess.
// A bad flag or checkpoint is one line on stderr and a non-zero exit.
// Not here: the file format (lib/io/checkpoint.h), the pixel work (data/transforms.h).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <thread>

#include "apps/predict_flags.h"
#include "apps/run_reporting_errors.h"
#include "data/image_folder.h"
#include "data/image_folder_dataset.h"
#include "data/transforms.h"
#include "lib/base/escape_bytes.h"
#include "lib/graph/replica.h"
#include "lib/io/checkpoint.h"
#include "lib/io/safetensors.h"
#include "lib/parallel/exec.h"
#include "lib/train/accuracy.h"
#include "models/registry.h"

namespace xtrain {
namespace {

using Json = nlohmann::ordered_json;  // keeps the keys in the order they are written

// The class names of --classes=DIR: DIR/train's sub-folders when it has a train split.
std::vector<std::string> class_names(const std::string& dir) {
  if (dir.empty()) return {};
  const std::string train = dir + "/train";
  return find_classes(std::filesystem::is_directory(train) ? train : dir);
}

// The classifier's output count stored in a checkpoint (the length of the model's classifier bias,
// fc.bias in a ResNet), or 0 when it has none.
int checkpoint_classes(const std::string& path, const std::string& classifier) {
  const Safetensors file = read_safetensors(path);
  const auto bias = file.tensors.find(classifier + ".bias");
  if (bias == file.tensors.end() || bias->second.shape.size() != 1) return 0;
  return static_cast<int>(bias->second.shape[0]);
}

// The images named on the command line: files as given, folders searched recursively. A folder
// without images is reported on stderr and counted in *problems.
std::vector<std::string> collect_images(const std::vector<std::string>& paths, int* problems) {
  std::vector<std::string> images;
  for (const std::string& path : paths) {
    if (!std::filesystem::is_directory(path)) {
      images.push_back(path);  // a missing file is reported when it cannot be read
      continue;
    }
    std::string folder = path;  // "dir/" lists "dir/a.png", not "dir//a.png"
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    const std::vector<std::string> found = find_images(folder);
    if (found.empty()) {
      std::cerr << "predict: warning: " << escape_bytes(path) << ": no images in the folder\n";
      ++*problems;
    }
    images.insert(images.end(), found.begin(), found.end());
  }
  return images;
}

// The JSON line of one image from its logits [classes]: the top k classes by probability.
Json prediction(const std::string& path, const float* logits, int classes, int k,
                const std::vector<std::string>& names) {
  const float max_logit = *std::max_element(logits, logits + classes);
  std::vector<double> probabilities(classes);
  double sum = 0.0;
  for (int j = 0; j < classes; ++j) {
    probabilities[j] = std::exp(double{logits[j]} - max_logit);  // shifted: exp never overflows
    sum += probabilities[j];
  }
  std::vector<int> order(classes);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return probabilities[a] > probabilities[b]; });
  order.resize(k);

  Json line;
  line["path"] = path;
  line["top_k"] = order;
  if (!names.empty()) {
    Json classes = Json::array();
    for (int j : order) {  // a model may have more outputs than the folder has classes
      classes.push_back(j < static_cast<int>(names.size()) ? Json(names[j]) : Json());
    }
    line["classes"] = classes;
  }
  std::vector<double> top_probabilities;
  for (int j : order) top_probabilities.push_back(probabilities[j] / sum);
  line["probabilities"] = top_probabilities;
  return line;
}

// Reads images [first, first + n) of `images` into batch slots 0..n-1 (8-bit pixels) in
// parallel and returns the slots that hold an image; each unreadable one is a warning, counted in
// *problems.
std::vector<int> read_batch(const Dataset& images, int64_t first, int n, const Exec& exec,
                            uint8_t* batch, int* problems) {
  const int64_t bytes = images.image_bytes();
  std::vector<std::string> unreadable(n);  // per slot: why, or empty
  parallel_for(exec, n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      try {
        Rng unused{0};  // the val transform draws nothing
        int32_t label;
        images.get(first + i, unused, batch + i * bytes, &label);
      } catch (const UnreadableImage& e) {
        unreadable[i] = e.what();
      }
    }
  });
  std::vector<int> readable;
  for (int i = 0; i < n; ++i) {
    if (unreadable[i].empty()) {
      readable.push_back(i);
    } else {
      std::cerr << "predict: warning: skipping unreadable image " << escape_bytes(unreadable[i])
                << "\n";
      ++*problems;
    }
  }
  return readable;
}

// Returns the process's exit code: 0, or 1 when some image or folder could not be used or had
// non-finite outputs.
int predict(const PredictFlags& flags) {
  const std::vector<std::string> names = class_names(flags.classes);
  // Reading the file twice costs far less than asking users for a number the file knows.
  const std::string classifier = build_model(flags.model, 1)->classifier();
  const int num_classes =
      flags.num_classes > 0 ? flags.num_classes : checkpoint_classes(flags.checkpoint, classifier);
  XTRAIN_CHECK(num_classes > 0,
               "{}: no {}.bias tells the number of classes: is --model={} its architecture? (or "
               "pass --num_classes)",
               flags.checkpoint, classifier, flags.model);
  // Names attached by index are only right when there is one per output.
  XTRAIN_CHECK(names.empty() || static_cast<int>(names.size()) == num_classes,
               "--classes={} names {} classes but the model has {} outputs", flags.classes,
               names.size(), num_classes);
  ThreadPool pool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const Exec exec{&pool};
  const std::shared_ptr<const Graph> model = build_model(flags.model, num_classes);
  check_image_size(flags.model, *model, flags.image_size);
  Replica replica(model, pool.num_threads());
  load_pretrained(flags.checkpoint, replica, /*skip_mismatched_fc=*/false);
  // As train scores them: a diverged model's answers mean nothing, finite or not.
  XTRAIN_CHECK(weights_finite(replica.store()),
               "{}: its weights or BatchNorm statistics are not finite (a diverged checkpoint)",
               flags.checkpoint);

  int problems = 0;   // unreadable images and empty folders
  int nonfinite = 0;  // images whose outputs had a NaN or an infinity
  const std::vector<std::string> paths = collect_images(flags.paths, &problems);
  // The images as one unlabelled class: its Dataset reads, decodes and transforms them exactly
  // as train's loader does.
  const int size = flags.image_size;
  const ImageFolderDataset images(
      ImageFolder{"", {}, paths, std::vector<int32_t>(paths.size())},
      make_transform(flags.augment, /*train=*/false, size, {}, flags.resampling), size,
      flags.image_limits);
  const int64_t bytes = images.image_bytes();
  const int k = std::min(flags.top_k, num_classes);
  std::vector<uint8_t> batch(flags.batch_size * bytes);
  for (size_t first = 0; first < paths.size(); first += flags.batch_size) {
    const int n = static_cast<int>(std::min<size_t>(flags.batch_size, paths.size() - first));
    const std::vector<int> readable = read_batch(images, first, n, exec, batch.data(), &problems);
    if (readable.empty()) continue;

    const int m = static_cast<int>(readable.size());
    Plan& plan = replica.plan_for(Shape{m, size, size, model->input_channels()}, PlanMode::kEval);
    const Elements input = plan.input().elements();  // an element per byte of pixels
    for (int r = 0; r < m; ++r) {
      normalize_pixels(batch.data() + readable[r] * bytes, bytes, input.at(r * bytes));
    }
    plan.forward(exec);
    const float* logits = plan.logits().f32();
    for (int r = 0; r < m; ++r) {
      const std::string& path = paths[first + readable[r]];
      const float* row = logits + int64_t{r} * num_classes;
      const bool finite = all_finite(row, num_classes);  // a ranking of NaN means nothing
      if (!finite) ++nonfinite;
      const Json line = finite ? prediction(path, row, num_classes, k, names)
                               : Json{{"path", path}, {"error", "non-finite outputs"}};
      // Paths need not be UTF-8: replace what JSON cannot hold rather than fail.
      std::cout << line.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
    }
    std::cout.flush();  // a long run shows its answers batch by batch
  }
  if (nonfinite > 0) {
    std::cerr << "predict: warning: " << nonfinite << " of " << paths.size()
              << " images had non-finite outputs (a diverged checkpoint?)\n";
  }
  return problems == 0 && nonfinite == 0 ? 0 : 1;
}

}  // namespace
}  // namespace xtrain

int main(int argc, char** argv) {
  xtrain::PredictFlags flags;
  int exit_code = 0;
  if (!xtrain::parse_predict_flags(argc, argv, &flags, &exit_code)) return exit_code;
  return xtrain::run_reporting_errors("predict", [&] { return xtrain::predict(flags); });
}
