#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds with warnings as
# errors under AddressSanitizer and UndefinedBehaviorSanitizer, runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${IOHW_TEST_BUILD:-build-test}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DIOHW_WERROR=ON -DIOHW_SANITIZE=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$build" && ctest --output-on-failure -j "$(nproc)"
