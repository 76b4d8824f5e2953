#include "data/image_folder.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <utility>

#include "lib/base/check.h"

namespace xtrain {
namespace {

namespace fs = std::filesystem;

// torchvision.datasets.folder.IMG_EXTENSIONS
const char* const kImageExtensions[] = {".jpg", ".jpeg", ".png",  ".ppm", ".bmp",
                                        ".pgm", ".tif",  ".tiff", ".webp"};

// A real folder, whatever links lead to it.
using FolderId = std::pair<dev_t, ino_t>;

bool is_folder(const std::string& path, FolderId* id) {
  struct stat info;  // stat, not lstat: links are followed
  if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return false;
  *id = {info.st_dev, info.st_ino};
  return true;
}

// The entries of a folder as (name, is_folder), sorted by name; an unreadable folder is an error.
std::vector<std::pair<std::string, bool>> list_folder(const std::string& path) {
  std::error_code error;
  fs::directory_iterator it(path, error);
  XTRAIN_CHECK(!error, "{}: cannot list the folder: {}", path, error.message());
  std::vector<std::pair<std::string, bool>> entries;
  for (; it != fs::directory_iterator(); it.increment(error)) {
    XTRAIN_CHECK(!error, "{}: cannot list the folder: {}", path, error.message());
    FolderId unused;
    const std::string name = it->path().filename().string();
    entries.emplace_back(name, is_folder(path + "/" + name, &unused));
  }
  XTRAIN_CHECK(!error, "{}: cannot list the folder: {}", path, error.message());
  std::sort(entries.begin(), entries.end());
  return entries;
}

// Every folder below `folder` (itself included), each real folder once, in walk order.
void collect_folders(const std::string& folder, std::set<FolderId>* seen,
                     std::vector<std::string>* folders) {
  FolderId id;
  if (!is_folder(folder, &id) || !seen->insert(id).second) return;
  folders->push_back(folder);
  for (const auto& [name, is_sub_folder] : list_folder(folder)) {
    if (is_sub_folder) collect_folders(folder + "/" + name, seen, folders);
  }
}

bool ends_with_ignoring_case(const std::string& text, const std::string& suffix) {
  if (text.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), text.rbegin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
}

}  // namespace

bool has_image_extension(const std::string& filename) {
  return std::any_of(std::begin(kImageExtensions), std::end(kImageExtensions),
                     [&](const char* ext) { return ends_with_ignoring_case(filename, ext); });
}

std::vector<std::string> find_classes(const std::string& root) {
  FolderId unused;
  XTRAIN_CHECK(is_folder(root, &unused), "{}: {}", root,
               fs::exists(root) ? "not a folder" : "no such folder");
  std::vector<std::string> classes;
  for (const auto& [name, is_class_folder] : list_folder(root)) {
    if (is_class_folder) classes.push_back(name);
  }
  XTRAIN_CHECK(!classes.empty(), "{}: no class folders (expected {}/<class>/<image>)", root, root);
  return classes;
}

std::vector<std::string> find_images(const std::string& folder) {
  std::set<FolderId> seen;
  std::vector<std::string> folders;
  collect_folders(folder, &seen, &folders);
  std::sort(folders.begin(), folders.end());
  std::vector<std::string> images;
  for (const std::string& sub_folder : folders) {
    for (const auto& [name, is_sub_folder] : list_folder(sub_folder)) {
      if (!is_sub_folder && has_image_extension(name)) images.push_back(sub_folder + "/" + name);
    }
  }
  return images;
}

ImageFolder scan_image_folder(const std::string& root) {
  ImageFolder folder;
  folder.root = root;
  folder.classes = find_classes(root);
  for (size_t label = 0; label < folder.classes.size(); ++label) {
    const std::string class_folder = root + "/" + folder.classes[label];
    std::vector<std::string> images = find_images(class_folder);
    XTRAIN_CHECK(!images.empty(),
                 "{}: no images in the class folder (extensions .jpg .jpeg .png .ppm .bmp .pgm "
                 ".tif .tiff .webp)",
                 class_folder);
    for (std::string& path : images) {
      folder.paths.push_back(std::move(path));
      folder.labels.push_back(static_cast<int32_t>(label));
    }
  }
  return folder;
}

}  // namespace xtrain
