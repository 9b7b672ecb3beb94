/*
 * tests/support/run_options.h - the `iohw run` options the tests start from.
 */
#ifndef IOHW_TEST_RUN_OPTIONS_H
#define IOHW_TEST_RUN_OPTIONS_H

#include "harness/run.h"

/* One input, no shard, 2 jobs, a 20 s timeout, diagnosis on, quiet. */
iohw_run_options iohw_test_run_options(const char *backend,
                                       const char *const *inputs);

#endif
