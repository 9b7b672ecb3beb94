/*
 * tests/support/adapter_check.h - running one case on a loaded backend the
 * way the harness does, in-process, for the adapter tests (test_adapters.c,
 * test_exec.c): copies of the inputs, y pre-filled with the harness's
 * sentinel, judged by judge/compare.c against the oracle.
 */
#ifndef IOHW_TEST_ADAPTER_CHECK_H
#define IOHW_TEST_ADAPTER_CHECK_H

#include <stddef.h>

#include "cases/case.h"
#include "sandbox/loader.h"
#include "results/result.h"

/* Builds a complete case (id "t", oracle on one thread) from a descriptor. */
int iohw_test_make_case(const char *desc, iohw_case *c, iohw_error *err);

/* Runs a case the backend claims (a quantized one through run_quant()).
 * r->status is PASS or FAIL from iohw_compare, or ERROR when the call
 * failed (r->message then holds the status and the backend's last_error).
 * *inputs_changed is 1 when the backend wrote into its copies of x, w,
 * bias or requant.  Returns 0, or -1 when memory runs
 * out (err set). */
int iohw_test_run_case(const iohw_loaded_backend *lb, const iohw_case *c,
                       iohw_result *r, int *inputs_changed, iohw_error *err);

/* One line saying what a result is: status, message, counts and the first
 * three mismatches with their coordinates. */
const char *iohw_test_describe(const iohw_result *r, char *buf, size_t n);

#endif
