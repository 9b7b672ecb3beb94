/*
 * tests/test_cases_bwd_fixture.h - backward cases built in memory
 * (specification section 13) from test_cases_fixture.h's problems, for
 * test_cases_backward.c and test_cases_bwd_cli.c.
 */
#ifndef IOHW_TEST_CASES_BWD_FIXTURE_H
#define IOHW_TEST_CASES_BWD_FIXTURE_H

#include "test_cases_fixture.h"

/* The fixture's spec as a backward case of direction dir: dy and the
 * direction's input, outputs of iohw_problem_out_count elements. */
static inline void build_bwd(const spec *s, int32_t dir, iohw_case *c)
{
    spec t = *s;
    char id[IOHW_CASE_ID_MAX];
    snprintf(id, sizeof id, "%s.%s", s->id, dir == IOHW_DIR_BWD_D ? "bwd_d"
                                                                  : "bwd_w");
    t.id = id;
    if (dir == IOHW_DIR_BWD_D)
        t.bias = 0;
    build(&t, c);
    iohw_problem *p = &c->p;
    p->direction = dir;
    const size_t es = iohw_dtype_size(p->dtype);
    const int64_t n = iohw_problem_out_count(p);
    free(c->bias);
    free(c->y);
    free(c->y_f64);
    free(c->err_bound);
    c->bias = NULL;
    if (dir == IOHW_DIR_BWD_D) {
        free(c->x);
        c->x = NULL;
    } else {
        free(c->w);
        c->w = NULL;
    }
    c->dy = pattern(es, iohw_problem_y_count(p), 7);
    c->y = pattern(es, n, 8);
    c->y_f64 = pattern(8, n, 9);
    c->err_bound = malloc((size_t)n * sizeof(double));
    cr_assert_not_null(c->err_bound);
    for (int64_t i = 0; i < n; i++)
        c->err_bound[i] = (double)(hash(10, (uint64_t)i) >> 11) * 0x1p-40;
    c->terms_max = iohw_oracle_terms_max(p);
}

#endif
