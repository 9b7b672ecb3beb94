/*
 * oracle/conv_backward.c - the definitions of the two backward directions
 * (specification section 13, docs/SPEC.md), on canonical double tensors.
 *
 * Definition
 * ==========
 *
 *   dx[n, g*Cg + c, i] = sum_{m < Mg} sum_{k : o = i*S + k*D - P in [0, O)}
 *             dy[n, g*Mg + m, o] * w[g*Cg + c, m, k]
 *
 *   dw[g*Cg + c, m, k] = sum_{n} sum_{i : o = i*S + k*D - P in [0, O)}
 *             x[n, g*Cg + c, i] * dy[n, g*Mg + m, o]
 *
 *   db[g*Mg + m] = sum_{n} sum_{o} dy[n, g*Mg + m, o]
 *
 * with i, k, o, S, D, P vectors over the R spatial axes (the condition
 * holds on every axis), P = pad_begin, Cg = C_in/G, Mg = C_out/G: the
 * adjoints of section 1's sum, over the same index relation
 * (iohw__out_position of oracle/index.h).  Each bound is the sum of |term|
 * over the same terms.
 *
 * Arguments
 * =========
 *
 *   p        the problem; must pass iohw_problem_validate.  Its direction,
 *            layouts and dtype are not used here: every tensor is
 *            canonical double.
 *   dy       dy[N][C_out][O...], dense.
 *   w        w[C_in][Mg][K...], dense.
 *   x        x[N][C_in][L...], dense.
 *   dd       0: sum in double (products of f32, f16 and bf16 values are
 *            exact); 1: sum in double-double, products split exactly (f64).
 *   dx, eb   [N][C_in][L...]; overwritten.
 *   dw, ebw  [C_in][Mg][K...]; overwritten.
 *   db, ebb  [C_out]; overwritten when p->has_bias, else ignored (may be
 *            NULL).
 *   err      receives the reason of a failure; may be NULL.
 *
 * Summation order
 * ===============
 *
 * Every element starts from 0 and adds its terms in the order of the loops
 * below: dx over m ascending, then the tap k in row-major order; dw over n
 * ascending, then the input position i in row-major order; db over n, then
 * o in row-major order.  One element is summed by one loop nest, whole,
 * before the next: the order does not depend on anything but the problem.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "oracle/conv_transpose_internal.h"
#include "oracle/index.h"
#include "oracle/problem.h"

/* One element's running sums: value and bound, high and low words. */
typedef struct acc {
    double y, yl, e, el;
} acc;

static void acc_add(acc *s, double a, double b, int dd)
{
    if (dd)
        iohw__add_term_dd(a, b, &s->y, &s->yl, &s->e, &s->el);
    else
        iohw__add_term(a, b, &s->y, &s->e);
}

static void acc_store(const acc *s, int dd, double *y, double *eb)
{
    *y = dd ? iohw__dd_value(s->y, s->yl) : s->y;
    *eb = dd ? iohw__dd_value(s->e, s->el) : s->e;
}

static int check(const char *who, const iohw_problem *p, const void *a,
                 const char *an, const void *b, const char *bn, int dd,
                 iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "%s: problem p is NULL", who);
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "%s: problem p", who);
    if (a == NULL)
        return iohw_error_set(err, "%s: %s is NULL", who, an);
    if (b == NULL)
        return iohw_error_set(err, "%s: %s is NULL", who, bn);
    if (dd != 0 && dd != 1)
        return iohw_error_set(err, "%s: dd is %d, must be 0 or 1", who, dd);
    return 0;
}

int iohw_conv_transpose_bwd_data_def(const iohw_problem *p, const double *dy,
                                     const double *w, int dd, double *dx,
                                     double *eb, iohw_error *err)
{
    /* Test the input arguments. */
    if (check("conv_transpose_bwd_data_def", p, dy, "dy", w, "w", dd, err) != 0)
        return -1;
    if (dx == NULL || eb == NULL)
        return iohw_error_set(err, "conv_transpose_bwd_data_def: %s is NULL",
                              dx == NULL ? "dx" : "eb");

    const iohw__extents e = iohw__extents_of(p);
    for (int64_t n = 0; n < e.N; n++) {
        for (int64_t g = 0; g < e.G; g++) {
            for (int64_t c = 0; c < e.Cg; c++) {
                const int64_t ci = g * e.Cg + c;
                for (int64_t i = 0; i < e.LV; i++) {
                    /* dx[n, ci, i] := sum over m, then k, of dy * w. */
                    acc s = {0.0, 0.0, 0.0, 0.0};
                    for (int64_t m = 0; m < e.Mg; m++) {
                        const int64_t co = g * e.Mg + m;
                        const double *dyp = dy + (n * e.C_out + co) * e.OV;
                        const double *wp = w + (ci * e.Mg + m) * e.KV;
                        for (int64_t k = 0; k < e.KV; k++) {
                            const int64_t o = iohw__out_position(p, k, i);
                            if (o >= 0)
                                acc_add(&s, dyp[o], wp[k], dd);
                        }
                    }
                    const int64_t at = (n * e.C_in + ci) * e.LV + i;
                    acc_store(&s, dd, &dx[at], &eb[at]);
                }
            }
        }
    }
    return 0;
}

/* db[co] := sum over n, then o, of dy[n, co, o]; the bound likewise. */
static void bias_gradient(const iohw__extents *e, const double *dy, int dd,
                          double *db, double *ebb)
{
    for (int64_t co = 0; co < e->C_out; co++) {
        acc s = {0.0, 0.0, 0.0, 0.0};
        for (int64_t n = 0; n < e->N; n++) {
            const double *dyp = dy + (n * e->C_out + co) * e->OV;
            for (int64_t o = 0; o < e->OV; o++)
                acc_add(&s, dyp[o], 1.0, dd);
        }
        acc_store(&s, dd, &db[co], &ebb[co]);
    }
}

int iohw_conv_transpose_bwd_weights_def(const iohw_problem *p,
                                        const double *x, const double *dy,
                                        int dd, double *dw, double *ebw,
                                        double *db, double *ebb,
                                        iohw_error *err)
{
    /* Test the input arguments. */
    if (check("conv_transpose_bwd_weights_def", p, x, "x", dy, "dy", dd, err) != 0)
        return -1;
    if (dw == NULL || ebw == NULL)
        return iohw_error_set(err, "conv_transpose_bwd_weights_def: %s is NULL",
                              dw == NULL ? "dw" : "ebw");
    if (p->has_bias && (db == NULL || ebb == NULL))
        return iohw_error_set(err, "conv_transpose_bwd_weights_def: %s is NULL but "
                              "the problem has a bias", db == NULL ? "db" : "ebb");

    const iohw__extents e = iohw__extents_of(p);
    for (int64_t g = 0; g < e.G; g++) {
        for (int64_t c = 0; c < e.Cg; c++) {
            const int64_t ci = g * e.Cg + c;
            for (int64_t m = 0; m < e.Mg; m++) {
                const int64_t co = g * e.Mg + m;
                for (int64_t k = 0; k < e.KV; k++) {
                    /* dw[ci, m, k] := sum over n, then i, of x * dy. */
                    acc s = {0.0, 0.0, 0.0, 0.0};
                    for (int64_t n = 0; n < e.N; n++) {
                        const double *xp = x + (n * e.C_in + ci) * e.LV;
                        const double *dyp = dy + (n * e.C_out + co) * e.OV;
                        for (int64_t i = 0; i < e.LV; i++) {
                            const int64_t o = iohw__out_position(p, k, i);
                            if (o >= 0)
                                acc_add(&s, xp[i], dyp[o], dd);
                        }
                    }
                    const int64_t at = (ci * e.Mg + m) * e.KV + k;
                    acc_store(&s, dd, &dw[at], &ebw[at]);
                }
            }
        }
    }
    if (p->has_bias)
        bias_gradient(&e, dy, dd, db, ebb);
    return 0;
}
