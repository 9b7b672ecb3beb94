/*
 * tests/layering/public_headers.c - compiled as a module above all others
 * (tests/check_layering.cmake): every public header of every module builds
 * from the public include folders alone.  Keep the list equal to the
 * PUBLIC_HEADERS of CMakeLists.txt and to docs/ARCHITECTURE.md.
 */
#include "cases/answer.h"
#include "cases/atomic.h"
#include "cases/case.h"
#include "explore/fuzz.h"
#include "explore/shrink.h"
#include "generators/claim.h"
#include "generators/generators.h"
#include "generators/suite.h"
#include "harness/filter.h"
#include "harness/run.h"
#include "iohw/backend.h"
#include "judge/adapt.h"
#include "judge/compare.h"
#include "judge/diagnose.h"
#include "judge/verdict.h"
#include "oracle/clock.h"
#include "oracle/convention.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant.h"
#include "oracle/quant_problem.h"
#include "reports/reports.h"
#include "results/journal.h"
#include "results/machine.h"
#include "results/record.h"
#include "results/result.h"
#include "results/run_results.h"
#include "results/speed.h"
#include "sandbox/channel.h"
#include "sandbox/guard.h"
#include "sandbox/loader.h"
#include "sandbox/pipe.h"
#include "sandbox/probe.h"
#include "sandbox/spawn.h"
#include "sandbox/test_hook.h"
#include "sandbox/worker.h"
#include "sandbox/worker_rude.h"

int iohw_layering_public(void);
int iohw_layering_public(void)
{
    return (int)sizeof(iohw_result);
}
