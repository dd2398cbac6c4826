#!/usr/bin/env bash
# Install slab's dependencies from Debian 12's packages, then configure and build slab in ./build.
# Idempotent and non-interactive: packages already present are not fetched again, and a configured build
# is only brought up to date. Run as root (or with sudo available).
#
#   bash scripts/setup.sh                 # Release build in ./build
#   SLAB_BUILD_DIR=b SLAB_CMAKE_ARGS="-DSLAB_ENABLE_CUDA=OFF" bash scripts/setup.sh
#   SLAB_SETUP_PACKAGES_ONLY=1 bash scripts/setup.sh   # the packages only
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git
  openmpi-bin libopenmpi-dev            # MPI
  libhdf5-openmpi-dev hdf5-tools        # parallel HDF5 (h5dump for checking files)
  libtrilinos-kokkos-dev                # Kokkos 3.4.1 (Serial)
  libopenblas-dev liblapacke-dev        # BLAS / LAPACK
  libgtest-dev libgmock-dev             # tests
  libcli11-dev libfmt-dev nlohmann-json3-dev
  python3 python3-venv                  # perf/ harness (peers are installed into a venv by perf/)
  chromium fonts-dejavu-core            # slab-report's page is tested (and screenshotted) in headless Chromium
  clang libclang-rt-14-dev              # .ci/run: libFuzzer targets (tests/fuzz) with ASan/UBSan
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# SLAB_SETUP_PACKAGES_ONLY=1: stop here (.ci/run installs the packages first to start its sanitizer build early).
[ "${SLAB_SETUP_PACKAGES_ONLY:-0}" = 1 ] && exit 0

build_dir="${SLAB_BUILD_DIR:-build}"
jobs="$(nproc)"
if [ ! -f "$build_dir/build.ninja" ]; then
  # The preset "default" of CMakePresets.json: Ninja, Release, CUDA wherever the toolkit is found.
  # shellcheck disable=SC2086
  cmake --preset default -S . -B "$build_dir" ${SLAB_CMAKE_ARGS:-}
fi
cmake --build "$build_dir" -j "$jobs"
