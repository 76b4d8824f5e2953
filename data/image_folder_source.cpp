#include "data/image_folder_source.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <memory>

#include "data/image_cache_size.h"
#include "data/image_folder_dataset.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

// "missing 'cat', extra 'dog'": how `actual` differs from `expected` (both sorted).
std::string class_difference(const std::vector<std::string>& expected,
                             const std::vector<std::string>& actual) {
  std::vector<std::string> missing, extra;
  std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(),
                      std::back_inserter(missing));
  std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(),
                      std::back_inserter(extra));
  std::string text;
  if (!missing.empty()) text += fmt::format("missing '{}'", fmt::join(missing, "', '"));
  if (!extra.empty())
    text += fmt::format("{}extra '{}'", text.empty() ? "" : ", ", fmt::join(extra, "', '"));
  return text;
}

// A leading "~/" is the home folder, as the shell would have expanded it (--datadir=~/imagenet).
std::string expand_home(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (path.rfind("~/", 0) != 0 || home == nullptr) return path;
  return home + path.substr(1);
}

SamplerOptions sampler_options(int64_t dataset_size, bool train, const ImageFolderOptions& options,
                               uint64_t seed, int rank, int num_replicas) {
  SamplerOptions sampler;
  sampler.dataset_size = dataset_size;
  sampler.rank = rank;
  sampler.num_replicas = num_replicas;
  sampler.train = train;
  sampler.drop_last = options.drop_last;
  sampler.repetitions = options.ra_reps;
  sampler.seed = seed;
  return sampler;
}

LoaderOptions loader_options(const ImageFolderOptions& options, int batch_size) {
  LoaderOptions loader = options.loader;
  loader.batch_size = batch_size;
  return loader;
}

BatchSourceFactory loader_factory(std::shared_ptr<const Dataset> dataset, bool train,
                                  const ImageFolderOptions& options, int batch_size,
                                  uint64_t seed) {
  auto unreadable = std::make_shared<UnreadableImages>();
  const LoaderOptions loader = loader_options(options, batch_size);
  return [=](int rank, int num_replicas) {
    const SamplerOptions sampler =
        sampler_options(dataset->size(), train, options, seed, rank, num_replicas);
    return std::make_unique<Loader>(dataset, unreadable, sampler, loader);
  };
}

SourceMemoryFor loader_memory(const Dataset& dataset, bool train,
                              const ImageFolderOptions& options) {
  const int64_t image_bytes = dataset.image_bytes();
  return [=](int batch_size) {
    return Loader::memory_for(loader_options(options, batch_size), image_bytes, train);
  };
}

// Each core's last batch holds what its sampler's samples leave over, unless Loader drops it.
PartialBatchSize partial_batch(int64_t dataset_size, bool train, const ImageFolderOptions& options,
                               uint64_t seed) {
  return [=](int num_replicas, int batch_size) {
    if (train && options.drop_last) return 0;
    int64_t largest = 0;
    for (int rank = 0; rank < num_replicas; ++rank) {
      const DistributedSampler sampler(
          sampler_options(dataset_size, train, options, seed, rank, num_replicas));
      largest = std::max(largest, sampler.num_samples() % batch_size);
    }
    return static_cast<int>(largest);
  };
}

// The cache of a split's images under --cache_dataset, else null.
std::shared_ptr<ImageCache> image_cache(const ImageFolder& folder,
                                        const ImageFolderOptions& options) {
  if (!options.cache_dataset) return nullptr;
  return std::make_shared<ImageCache>(static_cast<int64_t>(folder.paths.size()),
                                      image_cache_bytes(folder.paths, options.image_limits));
}

}  // namespace

ImageFolderSources open_image_folders(const ImageFolderOptions& options, int image_size,
                                      int train_batch_size, int test_batch_size, uint64_t seed) {
  const std::string dir = expand_home(options.datadir);
  XTRAIN_CHECK(std::filesystem::is_directory(dir), "--datadir {}: {}", dir,
               std::filesystem::exists(dir) ? "not a folder" : "no such folder");
  ImageFolder train = scan_image_folder(dir + "/train");
  ImageFolder val = scan_image_folder(dir + "/val");
  XTRAIN_CHECK(val.classes == train.classes, "{}: the classes differ from {}'s: {}", val.root,
               train.root, class_difference(train.classes, val.classes));

  ImageFolderSources sources;
  sources.num_classes = static_cast<int>(train.classes.size());
  const int test_size = options.test_image_size > 0 ? options.test_image_size : image_size;
  std::shared_ptr<ImageCache> train_cache = image_cache(train, options);
  std::shared_ptr<ImageCache> val_cache = image_cache(val, options);
  sources.train_cache_bytes = train_cache ? train_cache->bytes() : 0;
  sources.test_cache_bytes = val_cache ? val_cache->bytes() : 0;
  auto train_set = std::make_shared<ImageFolderDataset>(
      std::move(train),
      make_transform(options.augment, /*train=*/true, image_size, options.train_extras,
                     options.resampling),
      image_size, options.image_limits, std::move(train_cache));
  auto val_set = std::make_shared<ImageFolderDataset>(
      std::move(val),
      make_transform(options.augment, /*train=*/false, test_size, {}, options.resampling),
      test_size, options.image_limits, std::move(val_cache));
  sources.train = loader_factory(train_set, /*train=*/true, options, train_batch_size, seed);
  sources.test = loader_factory(val_set, /*train=*/false, options, test_batch_size, seed);
  sources.partial_train_batch = partial_batch(train_set->size(), /*train=*/true, options, seed);
  sources.partial_test_batch = partial_batch(val_set->size(), /*train=*/false, options, seed);
  sources.train_memory = loader_memory(*train_set, /*train=*/true, options);
  sources.test_memory = loader_memory(*val_set, /*train=*/false, options);
  return sources;
}

}  // namespace xtrain
