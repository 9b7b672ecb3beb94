#!/usr/bin/env bash
# Installs what iohw needs on a Debian machine, with apt-get, and only what is
# missing; safe to run any number of times.
#   scripts/setup.sh            build and test dependencies, and the
#                               third-party libraries iohw's adapters wrap
#   scripts/setup.sh --backends the same (kept for older instructions)
#   scripts/setup.sh --minimal  only what iohw alone builds with: the
#                               compiler, CMake and HDF5 (configure with
#                               -DIOHW_BUILD_TESTS=OFF -DIOHW_BUILD_BENCH=OFF
#                               -DIOHW_JS=OFF; the adapters are skipped)
# (libxnnpack-dev's header includes pthreadpool.h, which Debian ships in
# libpthreadpool-dev without making the one depend on the other.)
set -euo pipefail

packages=(gcc g++ make cmake pkg-config libhdf5-dev hdf5-tools libcriterion-dev
          gcovr python3 python3-h5py python3-numpy python3-onnx chromium
          libdnnl-dev libxnnpack-dev libpthreadpool-dev libtorch-dev
          libarmnn-dev libarmnn-cpuref-backend22 python3-torch clang
          libclang-rt-14-dev libopencv-dnn-dev python3-pytest
          libonnx-testdata)

if [[ ${1:-} == --minimal ]]; then
  packages=(gcc make cmake pkg-config libhdf5-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then sudo=(sudo); else
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
