# Shared set-up of scripts/train and scripts/test (sourced, not run): install the Debian packages
# that are missing, then configure build/ if needed and build it. The build is incremental, so an
# up-to-date tree costs a second. XTRAIN_PORTABLE=1 builds for any x86-64 CPU (no -march=native).
# XTRAIN_SANITIZE=address|thread (scripts/test --sanitize=...) builds an instrumented
# RelWithDebInfo tree in build-asan/ or build-tsan/ instead of the Release one in build/.

XTRAIN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
XTRAIN_SANITIZE="${XTRAIN_SANITIZE:-}"
case "$XTRAIN_SANITIZE" in
  "") XTRAIN_BUILD="${XTRAIN_BUILD:-$XTRAIN_ROOT/build}" ;;
  address) XTRAIN_BUILD="${XTRAIN_BUILD:-$XTRAIN_ROOT/build-asan}" ;;
  thread) XTRAIN_BUILD="${XTRAIN_BUILD:-$XTRAIN_ROOT/build-tsan}" ;;
  *) echo "xtrain: error: XTRAIN_SANITIZE must be address or thread, got '$XTRAIN_SANITIZE'" >&2
     return 2 ;;
esac

# Build tools and the libraries of docs/ARCHITECTURE.md, nothing more: of OpenCV only the modules data/ uses;
# zlib for the Fashion-MNIST converter, and the data set itself, which the real-data tests train on;
# jq for scripts/sweep_epochs.sh; Open MPI for jobs of several processes (mpirun, and the library);
# libjpeg (libjpeg-turbo: bookworm's libjpeg-dev is libjpeg62-turbo-dev) for CMYK JPEGs, which
# data/decode_cmyk_jpeg.cpp decodes to PIL's exact pixels where OpenCV's conversion is off.
# (scripts/plot installs gnuplot-nox itself, on first use.)
XTRAIN_PACKAGES=(
  cmake ninja-build g++ make
  libeigen3-dev libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev libgtest-dev
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev libjpeg-dev zlib1g-dev
  dataset-fashion-mnist jq libopenmpi-dev openmpi-bin
)

# Installs the given Debian packages (all of XTRAIN_PACKAGES when none) that are missing.
xtrain_install_missing_packages() {
  local wanted=("$@")
  [ ${#wanted[@]} -eq 0 ] && wanted=("${XTRAIN_PACKAGES[@]}")
  local missing=()
  for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "xtrain: installing ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "xtrain: error: need root (or sudo) to install: ${missing[*]}" >&2; return 1; }
    sudo="sudo"
  fi
  local log
  log="$(mktemp)"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
          --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "xtrain: error: apt-get could not install: ${missing[*]} (log: $log)" >&2
    return 1
  fi
  rm -f "$log"
}

# Builds the given targets (all when none) in $XTRAIN_BUILD; the compiler's output goes to a
# log that is shown only when the build fails.
xtrain_build() {
  xtrain_install_missing_packages || return 1
  local portable=OFF
  [ "${XTRAIN_PORTABLE:-0}" = "1" ] && portable=ON
  local build_type=Release
  [ -n "$XTRAIN_SANITIZE" ] && build_type=RelWithDebInfo
  local log="$XTRAIN_BUILD.log"
  mkdir -p "$XTRAIN_BUILD"
  if [ ! -f "$XTRAIN_BUILD/CMakeCache.txt" ] || \
     ! grep -q "XTRAIN_PORTABLE:BOOL=$portable" "$XTRAIN_BUILD/CMakeCache.txt" || \
     ! grep -qx "XTRAIN_SANITIZE:STRING=$XTRAIN_SANITIZE" "$XTRAIN_BUILD/CMakeCache.txt"; then
    if ! cmake -S "$XTRAIN_ROOT" -B "$XTRAIN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" \
         -DXTRAIN_PORTABLE="$portable" -DXTRAIN_SANITIZE="$XTRAIN_SANITIZE" >"$log" 2>&1; then
      tail -n 30 "$log" >&2
      echo "xtrain: error: cmake configure failed (log: $log)" >&2
      return 1
    fi
  fi
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  if ! cmake --build "$XTRAIN_BUILD" "${targets[@]}" -j "$(nproc)" >"$log" 2>&1; then
    grep -E "error|Error" "$log" | head -n 30 >&2
    echo "xtrain: error: build failed (log: $log)" >&2
    return 1
  fi
}
