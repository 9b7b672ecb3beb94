/*
 * tests/support/diagnose_cases.h - what the diagnosis tests share: a case
 * from a descriptor, the oracle's y for changed inputs, copies of tensors,
 * and the check that the diagnosis names exactly one thing.
 */
#ifndef IOHW_TEST_DIAGNOSE_CASES_H
#define IOHW_TEST_DIAGNOSE_CASES_H

#include <stdint.h>

#include "cases/case.h"

/* Builds the case of descriptor desc (adapter_check.h's
 * iohw_test_make_case; fails the test when it cannot). */
void iohw_test_case_of(const char *desc, iohw_case *c);

/* The oracle's y (case dtype, p's data layout) for p and these inputs;
 * malloc'd. */
void *iohw_test_oracle_y(const iohw_problem *p, const void *x, const void *w,
                         const void *bias);

/* The oracle's y for the case's inputs with other pads and output_padding
 * (op NULL: the case's), which must keep the out size; malloc'd. */
void *iohw_test_with_pads(const iohw_case *c, const int64_t *pb, const int64_t *pe,
                          const int64_t *op);

/* A malloc'd copy of n elements of the case's dtype. */
void *iohw_test_copy(const iohw_case *c, const void *src, int64_t n);

/* Expects iohw_diagnose to say exactly "matches the oracle with NAME". */
void iohw_test_expect_named(const iohw_case *c, const void *y, const char *name);

#endif
