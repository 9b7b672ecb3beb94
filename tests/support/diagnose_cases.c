/*
 * tests/support/diagnose_cases.c - what the diagnosis tests share
 * (diagnose_cases.h).
 */
#include "support/diagnose_cases.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "judge/judge.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "support/adapter_check.h"

void iohw_test_case_of(const char *desc, iohw_case *c)
{
    iohw_error err = {{0}};
    cr_assert_eq(iohw_test_make_case(desc, c, &err), 0, "%s", err.msg);
}

void *iohw_test_oracle_y(const iohw_problem *p, const void *x, const void *w,
                         const void *bias)
{
    iohw_oracle_result r;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_oracle_run(p, x, w, bias, 1, &r, &err), 0, "%s", err.msg);
    void *y = r.y;
    r.y = NULL;
    free(r.y_f64);
    free(r.err_bound);
    return y;
}

void *iohw_test_with_pads(const iohw_case *c, const int64_t *pb, const int64_t *pe,
                          const int64_t *op)
{
    iohw_problem q = c->p;
    for (int a = 0; a < (int)q.rank; a++) {
        q.pad_begin[a] = pb[a];
        q.pad_end[a] = pe[a];
        q.output_padding[a] = op != NULL ? op[a] : q.output_padding[a];
    }
    cr_assert_eq(iohw_problem_finish(&q, NULL), 0);
    for (int a = 0; a < (int)q.rank; a++)
        cr_assert_eq(q.out_size[a], c->p.out_size[a]);
    return iohw_test_oracle_y(&q, c->x, c->w, c->bias);
}

void *iohw_test_copy(const iohw_case *c, const void *src, int64_t n)
{
    size_t bytes = (size_t)n * iohw_dtype_size(c->p.dtype);
    void *d = malloc(bytes > 0 ? bytes : 1);
    cr_assert_not_null(d);
    memcpy(d, src, bytes);
    return d;
}

void iohw_test_expect_named(const iohw_case *c, const void *y, const char *name)
{
    char buf[256];
    char want[256];
    memset(buf, 'x', sizeof buf);
    snprintf(want, sizeof want, "matches the oracle with %s", name);
    int found = iohw_diagnose(c, y, buf, sizeof buf);
    cr_expect_eq(found, 1, "nothing matched; expected \"%s\"", name);
    cr_expect_str_eq(buf, want);
}
