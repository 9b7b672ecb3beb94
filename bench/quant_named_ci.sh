#!/bin/sh
# bench/quant_named_ci.sh - per quantized seeded fault (the table of
# tests/test_quant_smoke_faults.c, every fault of IOHW_QUANT_FAULTS), the
# failing designed quantized cases of the ci profile, the share named by
# the fault's own diagnosis and the number named wrongly, then overall
# (specification section 11.5).  A measurement, not a test: the same
# counts on smoke are asserted by test_quant_smoke_faults.  Takes minutes
# (a Release build is faster); one progress line per fault.
# Usage: bench/quant_named_ci.sh BUILD_DIR [PROFILE]   (PROFILE: ci)
set -eu
build=${1:?usage: bench/quant_named_ci.sh BUILD_DIR [PROFILE]}
profile=${2:-ci}
test -x "$build/tests/test_quant_smoke_faults" || {
    echo "bench/quant_named_ci.sh: $build/tests/test_quant_smoke_faults not built" >&2
    exit 2
}
IOHW_QUANT_NAMED_PROFILE=$profile "$build/tests/test_quant_smoke_faults" --jobs 1 \
    --timeout 7200 2>&1 | grep --line-buffered -v '^\[====\]' || true
