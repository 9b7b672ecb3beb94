/*
 * generators/make_quant.c - the tensors of a quantized case (specification
 * section 11.4): inputs by the case's fill (generators/fill_quant.c), and
 * the exact outputs by the oracle (iohw_quant_run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_qdesign.h"
#include "generators/fill_quant.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

int iohw__quant_inputs(iohw_case *c, const iohw_desc *stated, iohw_error *err)
{
    iohw_problem *p = &c->p;
    const int64_t nb = iohw_problem_bias_count(p);
    const size_t nr = iohw_quant_requant_bytes(p);
    c->x = malloc((size_t)iohw_problem_x_count(p));
    c->w = malloc((size_t)iohw_problem_w_count(p));
    c->bias = nb > 0 ? malloc((size_t)nb * sizeof(int32_t)) : NULL;
    c->requant = nr > 0 ? malloc(nr) : NULL;
    if (c->x == NULL || c->w == NULL || (nb > 0 && c->bias == NULL)
        || (nr > 0 && c->requant == NULL))
        return iohw_error_set(err, "out of memory for the inputs");
    if (strcmp(c->fill, "qrandom") == 0)
        return iohw__fill_qrandom(p, stated, c->seed, c->x, c->w, c->bias, c->requant,
                                  err);
    if (iohw__qfill_kind(c->fill) >= 0) { /* designed: fill_qdesign.h */
        if (iohw__fill_qdesign(p, c->fill, c->seed, c->x, c->w, c->bias, c->requant, err) != 0)
            return -1;
        /* The designed parameters, then what the descriptor states over
         * them (specification section 11.4). */
        iohw__quant_keep_stated(p, stated, c->requant);
        return 0;
    }
    return iohw_error_set(err, "fill '%s' is not a fill of quantized problems",
                          c->fill);
}

int iohw__quant_outputs(iohw_case *c, const iohw_problem *p, iohw_error *err)
{
    int64_t terms = 0;
    const int64_t ny = iohw_problem_y_count(p);
    void *y = malloc((size_t)ny * iohw_dtype_size(iohw_problem_y_dtype(p)) + 1);
    if (y == NULL)
        return iohw_error_set(err, "out of memory for y");
    if (iohw_quant_run(p, c->x, c->w, c->bias, c->requant, y, err) != 0
        || iohw_oracle_terms(p, &terms, err) != 0) {
        free(y);
        return -1;
    }
    free(c->y);
    free(c->y_f64);
    free(c->err_bound);
    c->y = y;
    c->y_f64 = NULL;
    c->err_bound = NULL;
    c->terms_max = terms;
    return 0;
}

int iohw__quant_fit_desc(iohw_desc *d, iohw_error *err)
{
    iohw_case c;
    memset(&c, 0, sizeof c);
    c.p = d->p;
    snprintf(c.fill, sizeof c.fill, "%s", d->fill);
    c.seed = d->seed;
    int rc = iohw__quant_inputs(&c, d, err);
    if (rc == 0)
        d->p = c.p;
    iohw_case_free(&c);
    return rc;
}
