// ImageFolder: the samples of one split folder, with torchvision.datasets.ImageFolder's rules.
// The classes are the sorted names of ROOT's sub-folders (label = index); the samples of a class
// are the files below its folder, searched recursively in sorted order, whose names end in an
// image extension (case-insensitive). Symbolic links are followed, each real folder once, so a
// link loop cannot recurse forever. Bad layouts are errors naming the path: ROOT missing or not
// a folder, no class folders, a class without images.
// Not here: reading the files (ImageFolderDataset).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xtrain {

struct ImageFolder {
  std::string root;
  std::vector<std::string> classes;  // sorted; label i is classes[i]
  std::vector<std::string> paths;    // every sample, class by class
  std::vector<int32_t> labels;       // labels[i] is the class of paths[i]
};

// Scans ROOT; throws xtrain::Error on a bad layout.
ImageFolder scan_image_folder(const std::string& root);

// The sorted names of ROOT's sub-folders (torchvision's find_classes); throws xtrain::Error when
// ROOT is not a folder or has none.
std::vector<std::string> find_classes(const std::string& root);

// The images below `folder`, in torchvision's order: sorted(os.walk(folder)), then each folder's
// file names sorted. Empty when there are none (or `folder` is not a folder).
std::vector<std::string> find_images(const std::string& folder);

// True when `filename` ends in one of torchvision's image extensions (.jpg .jpeg .png .ppm .bmp
// .pgm .tif .tiff .webp), in any case.
bool has_image_extension(const std::string& filename);

}  // namespace xtrain
