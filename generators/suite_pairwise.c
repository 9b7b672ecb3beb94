/*
 * generators/suite_pairwise.c - the categories built from the factors of
 * suite_factors.c: pairwise (covering arrays, each with its own seed) and
 * random (valid factor combinations drawn at random), and the pairwise
 * coverage of a whole plan, computed from every planned case's problem
 * classified back into factor values.
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds the case of factor values v as the next case of a category. */
static int add_row(iohw_plan *plan, int category, const int *v,
                   const char *tags, iohw_error *err)
{
    iohw_desc d;
    const int64_t variant = plan->file_cases[category];
    memset(&d, 0, sizeof d);
    if (iohw__factors_build(v, variant, &d.p) != 0)
        return iohw_error_set(err, "suite: the builder rejected a row the "
                              "predicate accepted (category %d, case %lld)",
                              category, (long long)variant);
    snprintf(d.fill, sizeof d.fill, "%s", iohw_fill_names()[v[IOHW__FACTOR_FILL]]);
    return iohw__plan_add(plan, category, &d, tags, 0, err);
}

int iohw__plan_pairwise(iohw_plan *plan, const iohw__profile *pr,
                        iohw_error *err)
{
    iohw_pw_spec s;
    for (int k = 0; k < pr->pairwise_arrays; k++) {
        iohw_pw_array a;
        iohw__factors_spec(&s, UINT64_C(0x5eed0000) + (uint64_t)k);
        if (iohw_pairwise_generate(&s, &a, err) != 0)
            return iohw_error_prefix(err, "suite: pairwise array %d", k);
        for (int r = 0; r < a.nrows; r++)
            if (add_row(plan, IOHW__CAT_PAIRWISE, a.rows + (size_t)r * IOHW__NFACTORS,
                        "pairwise", err) != 0) {
                iohw_pw_array_free(&a);
                return -1;
            }
        plan->pairwise_rows += a.nrows;
        iohw_pw_array_free(&a);
    }
    return 0;
}

int iohw__plan_random(iohw_plan *plan, const iohw__profile *pr,
                      iohw_error *err)
{
    iohw_pw_spec s;
    int v[IOHW__NFACTORS];
    iohw__factors_spec(&s, 0);
    for (int k = 0; k < pr->random_cases; k++) {
        if (iohw_pairwise_random_row(&s, UINT64_C(0x7a4d0000) + (uint64_t)k, v, err) != 0)
            return iohw_error_prefix(err, "suite: random case %d", k);
        if (add_row(plan, IOHW__CAT_RANDOM, v, "random", err) != 0)
            return -1;
    }
    return 0;
}

int iohw__plan_coverage(iohw_plan *plan, iohw_error *err)
{
    iohw_pw_spec s;
    int *rows = NULL;

    iohw__factors_spec(&s, 0);
    if (plan->count > 0) {
        rows = malloc((size_t)plan->count * IOHW__NFACTORS * sizeof *rows);
        if (rows == NULL)
            return iohw_error_set(err, "suite: out of memory for the coverage");
    }
    for (int64_t i = 0; i < plan->count; i++)
        iohw__factors_classify(&plan->cases[i].desc.p, plan->cases[i].desc.fill,
                               rows + (size_t)i * IOHW__NFACTORS);
    int rc = iohw_pairwise_coverage(&s, rows, (int)plan->count,
                                    &plan->pairs_coexisting, &plan->pairs_covered,
                                    err);
    plan->nfactors = IOHW__NFACTORS;
    free(rows);
    return rc;
}

int iohw__plan_array(iohw_plan *plan, const iohw_pw_spec *s, iohw__plan_row_fn add,
                     iohw_error *err)
{
    iohw_pw_array a;
    if (iohw_pairwise_generate(s, &a, err) != 0)
        return -1;
    int rc = 0;
    for (int r = 0; rc == 0 && r < a.nrows; r++)
        rc = add(plan, a.rows + (size_t)r * (size_t)s->nfactors, err);
    iohw_pw_array_free(&a);
    return rc;
}
