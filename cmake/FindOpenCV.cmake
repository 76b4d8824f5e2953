# FindOpenCV: OpenCV's headers and the libraries of the requested modules (COMPONENTS), as
# Debian's per-module packages (libopencv-core-dev, ...) install them. Their CMake config file
# comes only with the whole libopencv-dev, which we do not install. Sets OpenCV_INCLUDE_DIRS and
# OpenCV_LIBS, the names OpenCV's own config uses.
find_path(OpenCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4)
set(OpenCV_LIBS)
set(_opencv_required OpenCV_INCLUDE_DIR)
foreach(module ${OpenCV_FIND_COMPONENTS})
  find_library(OpenCV_${module}_LIBRARY opencv_${module})
  list(APPEND OpenCV_LIBS ${OpenCV_${module}_LIBRARY})
  list(APPEND _opencv_required OpenCV_${module}_LIBRARY)
endforeach()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OpenCV REQUIRED_VARS ${_opencv_required})
set(OpenCV_INCLUDE_DIRS ${OpenCV_INCLUDE_DIR})
mark_as_advanced(OpenCV_INCLUDE_DIR)
