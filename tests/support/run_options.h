/*
 * tests/support/run_options.h - the `iohw run` options the tests start from.
 */
#ifndef IOHW_TEST_RUN_OPTIONS_H
#define IOHW_TEST_RUN_OPTIONS_H

#include "harness/run.h"

/* One input, no shard, 2 jobs, diagnosis on, quiet, and a 300 s timeout:
 * a correct backend must PASS under ASan on a loaded machine too (a test
 * that wants a TIMEOUT sets its own short limit on a backend that hangs). */
iohw_run_options iohw_test_run_options(const char *backend,
                                       const char *const *inputs);

#endif
