/*
 * oracle/conv_transpose.c - the definition of the transposed convolution
 * (specification section 1, docs/SPEC.md), on canonical double tensors.
 *
 * Definition
 * ==========
 *
 *   y[n, g*Mg + m, o] = bias[g*Mg + m]
 *       + sum_{c < Cg} sum_{k} sum_{i : i*S + k*D - P = o}
 *             x[n, g*Cg + c, i] * w[g*Cg + c, m, k]
 *
 *   eb[n, g*Mg + m, o] = |bias[g*Mg + m]|
 *       + sum over the same terms of |x[n, g*Cg + c, i] * w[g*Cg + c, m, k]|
 *
 * with i, k, o, S, D, P vectors over the R spatial axes (D, H, W order; the
 * condition holds on every axis), P = pad_begin, Cg = C_in/G, Mg = C_out/G.
 *
 * Arguments
 * =========
 *
 *   p     the problem; must pass iohw_problem_validate.  Its layouts and
 *         dtype are not used here: every tensor is canonical double.
 *   x     x[N][C_in][L...], dense.
 *   w     w[C_in][Mg][K...], dense (the I axis spans all C_in).
 *   bias  bias[C_out] when p->has_bias, else ignored (may be NULL).
 *   dd    0: sum in double (the products of f32, f16 and bf16 values are
 *         exact); 1: sum in double-double, products split exactly (f64).
 *   y, eb y[N][C_out][O...] and the bound of the same shape; overwritten.
 *   err   receives the reason of a failure; may be NULL.
 *
 * Summation order
 * ===============
 *
 * Every element starts from bias (or 0) and adds its terms in the order of
 * the loops below: c ascending, then the tap k in row-major order, then the
 * input position i in row-major order.  For one (c, k) an element receives at
 * most one term, so the order is (c, k) lexicographic.  The tuned kernel
 * (conv_transpose_fast.c; conv_transpose_os.c in plain double) adds the
 * same terms in the same order with the same operations;
 * tests/test_oracle_fast.c checks that both agree bit for bit.  This
 * function is the one to read; that one is the one to run.
 */
#include "oracle/conv_transpose_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/index.h"
#include "oracle/problem.h"

int iohw__conv_transpose_check(const char *who, const iohw_problem *p,
                               const double *x, const double *w,
                               const double *bias, int dd, const double *y,
                               const double *eb, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "%s: problem p is NULL", who);
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "%s: problem p", who);
    if (x == NULL)
        return iohw_error_set(err, "%s: x is NULL", who);
    if (w == NULL)
        return iohw_error_set(err, "%s: w is NULL", who);
    if (p->has_bias && bias == NULL)
        return iohw_error_set(err, "%s: bias is NULL but the problem has a bias", who);
    if (dd != 0 && dd != 1)
        return iohw_error_set(err, "%s: dd is %d, must be 0 or 1", who, dd);
    if (y == NULL)
        return iohw_error_set(err, "%s: y is NULL", who);
    if (eb == NULL)
        return iohw_error_set(err, "%s: eb is NULL", who);
    return 0;
}

int iohw_conv_transpose_def(const iohw_problem *p, const double *x,
                            const double *w, const double *bias, int dd,
                            double *y, double *eb, iohw_error *err)
{
    /* Test the input arguments. */
    if (iohw__conv_transpose_check("conv_transpose_def", p, x, w, bias, dd,
                                   y, eb, err) != 0)
        return -1;

    /* Name the extents: N, C_in, C_out, G, Cg = C_in/G, Mg = C_out/G, and
     * the counts LV of input positions i, KV of taps k, OV of outputs o. */
    const iohw__extents e = iohw__extents_of(p);
    const int64_t N = e.N, C_in = e.C_in, C_out = e.C_out, G = e.G;
    const int64_t Cg = e.Cg, Mg = e.Mg, LV = e.LV, KV = e.KV, OV = e.OV;

    /* The low words of one output plane (double-double only). */
    double *yl = NULL, *el = NULL;
    if (dd) {
        yl = malloc((size_t)OV * sizeof *yl);
        el = malloc((size_t)OV * sizeof *el);
        if (yl == NULL || el == NULL) {
            free(yl);
            free(el);
            return iohw_error_set(err, "conv_transpose_def: out of memory "
                                  "(an output plane of %lld elements)", (long long)OV);
        }
    }

    for (int64_t n = 0; n < N; n++) {
        for (int64_t g = 0; g < G; g++) {
            for (int64_t m = 0; m < Mg; m++) {
                const int64_t co = g * Mg + m;
                double *yp = y + (n * C_out + co) * OV;
                double *ep = eb + (n * C_out + co) * OV;

                /* Form y := bias (or 0), eb := |bias|. */
                const double b = p->has_bias ? bias[co] : 0.0;
                for (int64_t o = 0; o < OV; o++) {
                    yp[o] = b;
                    ep[o] = fabs(b);
                    if (dd)
                        yl[o] = el[o] = 0.0;
                }

                /* Form y := y + x*w, eb := eb + |x*w|, term by term. */
                for (int64_t c = 0; c < Cg; c++) {
                    const int64_t ci = g * Cg + c;
                    const double *xp = x + (n * C_in + ci) * LV;
                    const double *wp = w + (ci * Mg + m) * KV;
                    for (int64_t k = 0; k < KV; k++) {
                        for (int64_t i = 0; i < LV; i++) {
                            const int64_t o = iohw__out_position(p, k, i);
                            if (o < 0)
                                continue;
                            if (dd)
                                iohw__add_term_dd(xp[i], wp[k], &yp[o], &yl[o],
                                                  &ep[o], &el[o]);
                            else
                                iohw__add_term(xp[i], wp[k], &yp[o], &ep[o]);
                        }
                    }
                }

                /* Double-double: y := hi + lo. */
                for (int64_t o = 0; dd && o < OV; o++) {
                    yp[o] = iohw__dd_value(yp[o], yl[o]);
                    ep[o] = iohw__dd_value(ep[o], el[o]);
                }
            }
        }
    }
    free(yl);
    free(el);
    return 0;
}
