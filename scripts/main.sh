#!/usr/bin/env bash
# The main job: installs what is missing, builds iohw (optimised), writes a
# few cases with `iohw gen --problem` and prints them with `iohw show`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${IOHW_BUILD:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target iohw
out=${IOHW_OUT:-out}
mkdir -p "$out"
"$build/iohw" gen -o "$out/examples.h5" \
  --problem 'n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 dt=f32 xl=NHWC wl=OIHW fill=normal seed=7' \
  --problem 'ci=10 co=30 g=2 in=8x8 k=5 wl=IOHW fill=exact' \
  --problem 'ci=3 co=5 in=9 k=4 s=3 pad=2:1 op=2 dt=f64 fill=cancel' \
  --problem 'ci=4 co=4 g=4 in=3x4x5 k=2x3x2 s=2 d=2x1x1 dt=bf16 xl=NDHWC wl=GOIDHW fill=exact'
"$build/iohw" show "$out/examples.h5"
