/*
 * oracle/conv_backward.c - the definitions of the backward directions of
 * the transposed convolution (specification section 13, docs/SPEC.md), on
 * canonical double tensors.
 *
 * Definition
 * ==========
 *
 *   dx[n, g*Cg + c, i] = sum_{m < Mg} sum_{k} sum_{o : o = i*S + k*D - P in [0, O)}
 *             dy[n, g*Mg + m, o] * w[g*Cg + c, m, k]
 *
 *   dw[g*Cg + c, m, k] = sum_{n} sum_{i : o = i*S + k*D - P in [0, O)}
 *             x[n, g*Cg + c, i] * dy[n, g*Mg + m, o]
 *
 *   db[g*Mg + m] = sum_{n} sum_{o} dy[n, g*Mg + m, o]
 *
 * and each element's bound eb = sum over the same terms of |term|, with
 * i, k, o, S, D, P vectors over the R spatial axes (D, H, W order; the
 * condition holds on every axis), P = pad_begin, Cg = C_in/G, Mg = C_out/G.
 * The index map o(i, k) is the forward one (iohw__out_position, index.h):
 * these are the adjoints of section 1's sum, so
 * <conv_transpose(x, w), dy> = <x, dx> = <w, dw>.
 *
 * Arguments
 * =========
 *
 *   p       the problem; must pass iohw_problem_validate.  Its layouts,
 *           dtype and direction are not used here: every tensor is
 *           canonical double.  db is formed when p->has_bias.
 *   dy      dy[N][C_out][O...], dense.
 *   w       w[C_in][Mg][K...], dense (the I axis spans all C_in).
 *   x       x[N][C_in][L...], dense.
 *   dd      0: sum in double (the products of f32, f16 and bf16 values are
 *           exact); 1: sum in double-double, products split exactly (f64).
 *   dx, eb  dx[N][C_in][L...] and its bound; overwritten.
 *   dw, ebw dw[C_in][Mg][K...] and its bound; overwritten.
 *   db, ebb db[C_out] and its bound when p->has_bias (else ignored, may be
 *           NULL); overwritten.
 *   err     receives the reason of a failure; may be NULL.
 *
 * Summation order
 * ===============
 *
 * Every element starts from 0 and adds its terms in the order of the loops
 * below (specification section 13): dx: m ascending, then the tap k in
 * row-major order (for one (m, k) at most one o reaches i); dw: n
 * ascending, then the input position i in row-major order (for one (n, i)
 * at most one o); db: n ascending, then o in row-major order (the term is
 * dy itself, added as dy * 1, exact).  Each addition is iohw__add_term or
 * iohw__add_term_dd (conv_transpose_internal.h), as in the forward
 * definition, and a double-double element is rounded once to double at
 * its end.  The loops over elements run in any order (each element is
 * summed by itself): dx's run over i outermost and dw's over k, so that
 * the positions o(i, k) of the element's terms are computed once and
 * shared by every channel.  No tuned kernel exists for these directions:
 * the oracle runs this file.
 */
#include "oracle/conv_transpose_internal.h"

#include <stdint.h>
#include <stdlib.h>

#include "oracle/index.h"
#include "oracle/problem.h"

/* One element's sum and bound: hi words and (double-double) lo words. */
typedef struct acc {
    double h, l, eh, el;
} acc;

static IOHW__ALWAYS_INLINE void acc_add(acc *s, int dd, double a, double b)
{
    if (dd)
        iohw__add_term_dd(a, b, &s->h, &s->l, &s->eh, &s->el);
    else
        iohw__add_term(a, b, &s->h, &s->eh);
}

/* The element's value and bound: hi + lo rounded once (double-double). */
static void acc_store(const acc *s, int dd, double *v, double *e)
{
    *v = dd ? iohw__dd_value(s->h, s->l) : s->h;
    *e = dd ? iohw__dd_value(s->eh, s->el) : s->eh;
}

/* The checks common to both: p valid, dd 0 or 1; each message starts with
 * who and names the argument. */
static int check_common(const char *who, const iohw_problem *p, int dd,
                        iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "%s: problem p is NULL", who);
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "%s: problem p", who);
    if (dd != 0 && dd != 1)
        return iohw_error_set(err, "%s: dd is %d, must be 0 or 1", who, dd);
    return 0;
}

int iohw_conv_transpose_bwd_data_def(const iohw_problem *p, const double *dy,
                                     const double *w, int dd, double *dx,
                                     double *eb, iohw_error *err)
{
    /* Test the input arguments. */
    static const char who[] = "conv_transpose_bwd_data_def";
    if (check_common(who, p, dd, err) != 0)
        return -1;
    if (dy == NULL)
        return iohw_error_set(err, "%s: dy is NULL", who);
    if (w == NULL)
        return iohw_error_set(err, "%s: w is NULL", who);
    if (dx == NULL)
        return iohw_error_set(err, "%s: dx is NULL", who);
    if (eb == NULL)
        return iohw_error_set(err, "%s: eb is NULL", who);

    /* Name the extents: N, C_in, C_out, G, Cg = C_in/G, Mg = C_out/G, and
     * the counts LV of input positions i, KV of taps k, OV of outputs o. */
    const iohw__extents e = iohw__extents_of(p);
    const int64_t N = e.N, C_in = e.C_in, C_out = e.C_out, G = e.G;
    const int64_t Cg = e.Cg, Mg = e.Mg, LV = e.LV, KV = e.KV, OV = e.OV;

    /* o(i, k) of one input position i for every tap k (-1: outside). */
    int64_t *ok = malloc((size_t)KV * sizeof *ok);
    if (ok == NULL)
        return iohw_error_set(err, "%s: out of memory (%lld tap positions)", who,
                              (long long)KV);

    for (int64_t i = 0; i < LV; i++) {
        for (int64_t k = 0; k < KV; k++)
            ok[k] = iohw__out_position(p, k, i);
        for (int64_t n = 0; n < N; n++) {
            for (int64_t g = 0; g < G; g++) {
                for (int64_t c = 0; c < Cg; c++) {
                    /* dx[n, ci, i] := sum_m sum_k dy[n, g*Mg + m, o(i, k)] * w[ci, m, k]. */
                    const int64_t ci = g * Cg + c;
                    acc s = {0.0, 0.0, 0.0, 0.0};
                    for (int64_t m = 0; m < Mg; m++) {
                        const double *dyp = dy + (n * C_out + g * Mg + m) * OV;
                        const double *wp = w + (ci * Mg + m) * KV;
                        for (int64_t k = 0; k < KV; k++)
                            if (ok[k] >= 0)
                                acc_add(&s, dd, dyp[ok[k]], wp[k]);
                    }
                    const int64_t at = (n * C_in + ci) * LV + i;
                    acc_store(&s, dd, &dx[at], &eb[at]);
                }
            }
        }
    }
    free(ok);
    return 0;
}

/* db[co] := sum_n sum_o dy[n, co, o] (each term dy * 1). */
static void bias_grad(const iohw__extents *e, const double *dy, int dd,
                      double *db, double *ebb)
{
    for (int64_t co = 0; co < e->C_out; co++) {
        acc s = {0.0, 0.0, 0.0, 0.0};
        for (int64_t n = 0; n < e->N; n++) {
            const double *dyp = dy + (n * e->C_out + co) * e->OV;
            for (int64_t o = 0; o < e->OV; o++)
                acc_add(&s, dd, dyp[o], 1.0);
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
    static const char who[] = "conv_transpose_bwd_weights_def";
    if (check_common(who, p, dd, err) != 0)
        return -1;
    if (x == NULL)
        return iohw_error_set(err, "%s: x is NULL", who);
    if (dy == NULL)
        return iohw_error_set(err, "%s: dy is NULL", who);
    if (dw == NULL)
        return iohw_error_set(err, "%s: dw is NULL", who);
    if (ebw == NULL)
        return iohw_error_set(err, "%s: ebw is NULL", who);
    if (p->has_bias && db == NULL)
        return iohw_error_set(err, "%s: db is NULL but the problem has a bias", who);
    if (p->has_bias && ebb == NULL)
        return iohw_error_set(err, "%s: ebb is NULL but the problem has a bias", who);

    /* Name the extents (as in iohw_conv_transpose_bwd_data_def). */
    const iohw__extents e = iohw__extents_of(p);
    const int64_t N = e.N, C_in = e.C_in, C_out = e.C_out, G = e.G;
    const int64_t Cg = e.Cg, Mg = e.Mg, LV = e.LV, KV = e.KV, OV = e.OV;

    /* o(i, k) of one tap k for every input position i (-1: outside). */
    int64_t *oi = malloc((size_t)LV * sizeof *oi);
    if (oi == NULL)
        return iohw_error_set(err, "%s: out of memory (%lld input positions)", who,
                              (long long)LV);

    for (int64_t k = 0; k < KV; k++) {
        for (int64_t i = 0; i < LV; i++)
            oi[i] = iohw__out_position(p, k, i);
        for (int64_t g = 0; g < G; g++) {
            for (int64_t c = 0; c < Cg; c++) {
                const int64_t ci = g * Cg + c;
                for (int64_t m = 0; m < Mg; m++) {
                    /* dw[ci, m, k] := sum_n sum_i x[n, ci, i] * dy[n, g*Mg + m, o(i, k)]. */
                    const int64_t co = g * Mg + m;
                    acc s = {0.0, 0.0, 0.0, 0.0};
                    for (int64_t n = 0; n < N; n++) {
                        const double *xp = x + (n * C_in + ci) * LV;
                        const double *dyp = dy + (n * C_out + co) * OV;
                        for (int64_t i = 0; i < LV; i++)
                            if (oi[i] >= 0)
                                acc_add(&s, dd, xp[i], dyp[oi[i]]);
                    }
                    const int64_t at = (ci * Mg + m) * KV + k;
                    acc_store(&s, dd, &dw[at], &ebw[at]);
                }
            }
        }
    }
    free(oi);
    if (p->has_bias)
        bias_grad(&e, dy, dd, db, ebb);
    return 0;
}
