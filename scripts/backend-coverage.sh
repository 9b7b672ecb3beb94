#!/usr/bin/env bash
# Line and branch coverage of a BACKEND's own sources under the iohw suite
# (docs/BACKEND_COVERAGE.md).
#
#   scripts/backend-coverage.sh [NAME] [-- IOHW-RUN-OPTIONS...]
#       a bundled backend, backends/NAME/ (default naive): configures a
#       coverage build (build-bcov, -DIOHW_COVERAGE=ON), builds iohw and
#       libiohw_NAME.so, and measures backends/NAME/.
#   scripts/backend-coverage.sh --lib LIB.so --sources DIR [--objects DIR]
#                               [-- IOHW-RUN-OPTIONS...]
#       a backend built elsewhere with --coverage (cmake/IohwCoverage.cmake
#       iohw_add_backend_coverage): measures the sources under DIR, reading
#       the counters from the objects under --objects (default DIR).
#
# Then it writes the suite (`iohw gen --profile smoke`, or a few `iohw gen
# --problem` cases when this iohw has no profiles), runs `iohw run` against
# the backend with the JSON and Markdown reports, and writes gcovr HTML
# (OUT/index.html), Cobertura XML (OUT/coverage.xml) and a text summary
# (OUT/summary.txt), OUT being build-bcov/backend-coverage/NAME.  The run's
# own verdict is printed, not fatal: coverage of a failing backend is still
# coverage.
# Environment: IOHW_BCOV_BUILD (build-bcov), IOHW_BCOV_PROFILE (smoke),
# IOHW_JOBS (number of cores), IOHW (the iohw program to use for an external
# backend; default: build one in build-bcov-iohw).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${IOHW_BCOV_BUILD:-build-bcov}
profile=${IOHW_BCOV_PROFILE:-smoke}
jobs=${IOHW_JOBS:-$(nproc)}

name=naive lib= sources= objects=
run_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --lib) lib=$(realpath "$2"); shift 2 ;;
    --sources) sources=$(realpath "$2"); shift 2 ;;
    --objects) objects=$(realpath "$2"); shift 2 ;;
    --) shift; run_args=("$@"); break ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    -*) echo "backend-coverage: unknown option $1" >&2; exit 2 ;;
    *) name=$1; shift ;;
  esac
done
command -v gcovr >/dev/null || { echo "backend-coverage: gcovr is missing" >&2; exit 2; }

# 1. The backend and the iohw program.
if [[ -n $lib ]]; then
  [[ -n $sources ]] || { echo "backend-coverage: --lib needs --sources DIR" >&2; exit 2; }
  name=$(basename "$lib" .so)
  objects=${objects:-$sources}
  iohw=${IOHW:-}
  if [[ -z $iohw ]]; then
    cmake -S . -B "$build-iohw" -DCMAKE_BUILD_TYPE=Release -DIOHW_BUILD_TESTS=OFF \
          -DIOHW_BUILD_BENCH=OFF >/dev/null
    cmake --build "$build-iohw" -j "$jobs" --target iohw >/dev/null
    iohw=$root/$build-iohw/iohw
  fi
else
  [[ -f backends/$name/CMakeLists.txt ]] || {
    echo "backend-coverage: no bundled backend backends/$name" >&2; exit 2; }
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DIOHW_COVERAGE=ON \
        -DIOHW_SANITIZE=OFF -DIOHW_BUILD_TESTS=OFF -DIOHW_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build" -j "$jobs" --target iohw "iohw_$name" >/dev/null
  lib=$root/$build/backends/libiohw_$name.so
  sources=$root/backends/$name
  objects=$root/$build/backends/$name
  iohw=$root/$build/iohw
fi
[[ -f $lib ]] || { echo "backend-coverage: $lib was not built" >&2; exit 2; }
out=$root/$build/backend-coverage/$name
rm -rf "$out"
mkdir -p "$out"
find "$objects" -name '*.gcda' -delete

# 2. The suite.
suite=$root/$build/bcov-suite-$profile
if [[ ! -d $suite ]]; then
  if ! "$iohw" gen --profile "$profile" -o "$suite" >"$out/gen.txt" 2>&1; then
    echo "backend-coverage: no --profile $profile here; using --problem cases" >&2
    rm -rf "$suite"
    mkdir -p "$suite"
    "$iohw" gen -o "$suite/problems.h5" \
      --problem 'n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 dt=f32 xl=NHWC wl=OIHW' \
      --problem 'ci=10 co=30 g=2 in=8x8 k=5 wl=IOHW fill=exact' \
      --problem 'ci=3 co=5 in=9 k=4 s=3 pad=2:1 op=2 dt=f64 fill=cancel' \
      --problem 'ci=4 co=4 g=4 in=3x4x5 k=2x3x2 s=2 d=2x1x1 dt=bf16 xl=NDHWC wl=GOIDHW fill=exact' \
      --problem 'n=3 ci=6 co=4 g=2 in=4x5 k=2 s=2 dt=f16 xl=NHWC wl=GOHWI bias=1' \
      --problem 'ci=2 co=3 in=6x5 k=3x2 s=1x2 d=2x1 pad=1x0:1 dt=f32 xl=CHWN wl=HWOI' \
      >"$out/gen.txt"
  fi
fi

# 3. The run.
verdict=0
"$iohw" run --backend "$lib" "$suite" --jobs "$jobs" --quiet \
  --json "$out/report.json" --markdown "$out/report.md" "${run_args[@]}" \
  >"$out/run.txt" 2>&1 || verdict=$?
echo "backend-coverage: iohw run exit status $verdict ($out/run.txt)"
sed -n '1,3p' "$out/report.md"

# 4. The backend's own sources.
gcovr --root "$sources" --object-directory "$objects" --filter "$sources/" \
      --exclude-unreachable-branches \
      --html-details "$out/index.html" --cobertura "$out/coverage.xml" \
      --txt "$out/summary.txt" --print-summary
echo "backend-coverage: HTML $out/index.html, Cobertura $out/coverage.xml"
