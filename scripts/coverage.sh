#!/usr/bin/env bash
# Line and branch coverage of iohw's own modules (oracle, cases, generators,
# results, judge, sandbox, harness, explore, reports) under the test suite:
#   scripts/coverage.sh
# configures a coverage build (build-cov: -DIOHW_COVERAGE=ON, Debug, no
# sanitizers), builds, runs ctest, and runs gcovr over those modules: a
# summary on stdout, HTML in build-cov/coverage/index.html, Cobertura XML in
# build-cov/coverage/coverage.xml.  Fails when a test fails or when line
# coverage is under 90% (IOHW_COVERAGE_MIN overrides).
# Environment: IOHW_COVERAGE_BUILD (build-cov), IOHW_JOBS (number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${IOHW_COVERAGE_BUILD:-build-cov}
jobs=${IOHW_JOBS:-$(nproc)}
min=${IOHW_COVERAGE_MIN:-90}
out="$build/coverage"

command -v gcovr >/dev/null || { echo "coverage: gcovr is missing (scripts/setup.sh)" >&2; exit 2; }
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DIOHW_COVERAGE=ON \
      -DIOHW_SANITIZE=OFF -DIOHW_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs"

# Counters from an earlier run would add up: start from zero.
find "$build" -name '*.gcda' -delete
tests=0
(cd "$build" && ctest --output-on-failure -j "$jobs") || tests=$?

mkdir -p "$out"
filters=()
for dir in oracle cases generators results judge sandbox harness explore reports; do
  filters+=(--filter "$root/$dir/")
done
cov=0
# Search only this build's counters (other build directories may have some).
gcovr --root "$root" --object-directory "$build" "${filters[@]}" \
      --exclude-unreachable-branches -j "$jobs" \
      --html-details "$out/index.html" --cobertura "$out/coverage.xml" \
      --txt "$out/summary.txt" --print-summary \
      --fail-under-line "$min" "$build" || cov=$?
echo "coverage: per-file figures in $out/summary.txt, HTML in $out/index.html"
if [[ $tests -ne 0 ]]; then
  echo "coverage: some tests failed (ctest exit $tests)" >&2
  exit 1
fi
if [[ $cov -ne 0 ]]; then
  echo "coverage: line coverage under ${min}%, or gcovr failed (exit $cov)" >&2
  exit 1
fi
