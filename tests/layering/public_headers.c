/*
 * tests/layering/public_headers.c - compiled as a module above all others
 * (tests/check_layering.cmake): every public header of every module builds
 * from the public include folders alone.  Keep the list equal to the
 * PUBLIC_HEADERS of CMakeLists.txt and to docs/ARCHITECTURE.md.
 */
#include "cases/answer.h"
#include "cases/atomic.h"
#include "cases/case.h"
#include "generators/generators.h"
#include "generators/suite.h"
#include "generators/claim.h"
#include "harness/filter.h"
#include "harness/fuzz.h"
#include "harness/guard.h"
#include "harness/machine.h"
#include "harness/probe.h"
#include "harness/record.h"
#include "harness/result.h"
#include "harness/run.h"
#include "harness/shrink.h"
#include "iohw/backend.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant.h"
#include "reports/reports.h"

int iohw_layering_public(void);
int iohw_layering_public(void)
{
    return (int)sizeof(iohw_result);
}
