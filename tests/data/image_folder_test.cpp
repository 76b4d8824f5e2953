// ImageFolder scanning against torchvision's rules, on folder trees made in the test.
#include "data/image_folder.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "lib/base/check.h"
#include "tests/data/temp_folder.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::png_bytes;
using testing::TempFolder;

// The error message of scanning `root`, or "" when it succeeds.
std::string scan_error(const std::string& root) {
  return testing::error_of([&] { scan_image_folder(root); });
}

TEST(ImageFolder, ClassesAreSortedFolderNamesAndSamplesSortedRecursively) {
  TempFolder t;
  t.write("zebra/b.png", png_bytes());
  t.write("zebra/a.JPG", png_bytes());    // extensions in any case
  t.write("zebra/notes.txt", {1, 2, 3});  // not an image extension: ignored
  t.write("ant/sub/deeper/x.jpeg", png_bytes());
  t.write("ant/c.webp", png_bytes());
  t.write("ant/sub/a.png", png_bytes());
  t.write("stray.png", png_bytes());  // a file at the top is not a class

  const ImageFolder f = scan_image_folder(t.path());
  EXPECT_EQ(f.classes, (std::vector<std::string>{"ant", "zebra"}));
  const std::string r = t.path();
  // sorted(os.walk()): "ant" before "ant/sub" before "ant/sub/deeper"; files sorted per folder.
  EXPECT_EQ(f.paths, (std::vector<std::string>{r + "/ant/c.webp", r + "/ant/sub/a.png",
                                               r + "/ant/sub/deeper/x.jpeg", r + "/zebra/a.JPG",
                                               r + "/zebra/b.png"}));
  EXPECT_EQ(f.labels, (std::vector<int32_t>{0, 0, 0, 1, 1}));
}

TEST(ImageFolder, ImageExtensionsAreTorchvisionsInAnyCase) {
  for (const char* name : {"a.jpg", "a.JPEG", "a.png", "a.ppm", "a.bmp", "a.pgm", "a.tif", "a.TIFF",
                           "a.webp", "a.Jpg"}) {
    EXPECT_TRUE(has_image_extension(name)) << name;
  }
  for (const char* name : {"a.gif", "a.txt", "jpg", "a.jpg.bak", "a.pngx", ""}) {
    EXPECT_FALSE(has_image_extension(name)) << name;
  }
}

TEST(ImageFolder, FollowsLinksOnceWithoutLooping) {
  TempFolder t;
  TempFolder outside;
  outside.write("far.png", png_bytes());
  t.write("cat/a.png", png_bytes());
  std::filesystem::create_directory_symlink(outside.path(), t.path() + "/cat/linked");
  std::filesystem::create_directory_symlink(t.path() + "/cat", t.path() + "/cat/loop");
  std::filesystem::create_directory_symlink(outside.path(), t.path() + "/dog");  // a linked class

  const ImageFolder f = scan_image_folder(t.path());
  EXPECT_EQ(f.classes, (std::vector<std::string>{"cat", "dog"}));
  EXPECT_EQ(f.paths,
            (std::vector<std::string>{t.path() + "/cat/a.png", t.path() + "/cat/linked/far.png",
                                      t.path() + "/dog/far.png"}));
}

TEST(ImageFolder, BadLayoutsNameThePathAndTheProblem) {
  TempFolder t;
  EXPECT_EQ(scan_error(t.path() + "/missing"), t.path() + "/missing: no such folder");
  t.write("file.png", png_bytes());
  EXPECT_EQ(scan_error(t.path() + "/file.png"), t.path() + "/file.png: not a folder");

  TempFolder empty;
  EXPECT_EQ(scan_error(empty.path()),
            empty.path() + ": no class folders (expected " + empty.path() + "/<class>/<image>)");

  TempFolder no_images;
  no_images.write("cat/a.png", png_bytes());
  no_images.write("dog/readme.txt", {1});
  const std::string error = scan_error(no_images.path());
  EXPECT_EQ(error.rfind(no_images.path() + "/dog: no images in the class folder", 0), 0) << error;
}

TEST(ImageFolder, FindImagesSearchesAnyFolderRecursively) {
  TempFolder t;
  t.write("b.PNG", png_bytes());
  t.write("a/z.jpg", png_bytes());
  t.write("a/notes.txt", {1});
  t.write("c.png", png_bytes());
  // os.walk order: a folder's own files (sorted) before those of its sub-folders.
  const std::string r = t.path();
  EXPECT_EQ(find_images(r), (std::vector<std::string>{r + "/b.PNG", r + "/c.png", r + "/a/z.jpg"}));
  EXPECT_TRUE(find_images(r + "/missing").empty());
}

TEST(ImageFolder, FindClassesListsSortedSubFoldersOnly) {
  TempFolder t;
  t.write("dog/readme.txt", {1});  // a class needs no images here
  t.write("cat/a.png", png_bytes());
  t.write("stray.png", png_bytes());
  EXPECT_EQ(find_classes(t.path()), (std::vector<std::string>{"cat", "dog"}));
  EXPECT_THROW(find_classes(t.path() + "/stray.png"), Error);
}

}  // namespace
}  // namespace xtrain
