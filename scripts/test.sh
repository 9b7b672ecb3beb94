#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds with warnings as
# errors under AddressSanitizer and UndefinedBehaviorSanitizer and runs every
# test with ctest, then measures the project's own coverage
# (scripts/coverage.sh, failing under 90% of lines).
#   IOHW_SKIP_COVERAGE=1 scripts/test.sh   the sanitizer run only
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${IOHW_TEST_BUILD:-build-test}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DIOHW_WERROR=ON -DIOHW_SANITIZE=ON \
      -DIOHW_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rc=0
(cd "$build" && ctest --output-on-failure -j "$(nproc)") || rc=$?
# The suite's mutation score (tests/test_mutation.c prints it).
grep -h "mutation score" "$build/Testing/Temporary/LastTest.log" || true
if [[ $rc -ne 0 ]]; then
  exit "$rc"
fi
if [[ -z "${IOHW_SKIP_COVERAGE:-}" ]]; then
  bash scripts/coverage.sh
fi
