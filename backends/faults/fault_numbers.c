/*
 * backends/faults/fault_numbers.c - what the number faults share: a
 * rounding to a dtype's grid in three modes (to nearest even, half away
 * from zero, toward zero) with or without saturation, flush-to-zero, and
 * the definition's sum term by term, for faults that act on single
 * products (skipping zeros, flushing products).
 *
 * Grid of a dtype with precision p and smallest normal 2^emin: a finite v
 * with 2^E <= |v| < 2^(E+1) lies between multiples of 2^(max(E, emin) -
 * p + 1); rounding picks one of the two (exact for every dtype, since the
 * scaled value fits a double's 53 bits).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "fault_common.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

typedef struct grid {
    int prec;     /* significand bits, the implicit one included */
    int emin;     /* exponent of the smallest normal */
    double max;   /* largest finite value */
} grid;

static grid grid_of(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F64:
        return (grid){53, -1022, DBL_MAX};
    case IOHW_F16:
        return (grid){11, -14, 65504.0};
    case IOHW_BF16:
        return (grid){8, -126, ldexp(255.0, 120)};
    case IOHW_F32:
    default:
        return (grid){24, -126, FLT_MAX};
    }
}

double iohw__fault_round(iohw_dtype dt, double v, int mode, int saturate)
{
    if (!isfinite(v) || v == 0.0)
        return v;
    const grid g = grid_of(dt);
    int e = ilogb(v);
    if (e < g.emin)
        e = g.emin;
    const int q = e - g.prec + 1;          /* exponent of the spacing */
    const double m = ldexp(v, -q);
    double r = mode == IOHW__ROUND_AWAY    ? round(m)
               : mode == IOHW__ROUND_TRUNC ? trunc(m)
                                           : nearbyint(m);
    r = ldexp(r, q);
    if (fabs(r) > g.max)
        r = saturate || mode == IOHW__ROUND_TRUNC ? copysign(g.max, v)
                                                  : copysign(INFINITY, v);
    return r;
}

double iohw__fault_flush(iohw_dtype dt, double v)
{
    const grid g = grid_of(dt);
    if (v != 0.0 && fabs(v) < ldexp(1.0, g.emin))
        return copysign(0.0, v);
    return v;
}

/* A problem's extents on three axes (a missing leading axis has size 1). */
typedef struct extents {
    int64_t L[3], K[3], O[3], S[3], D[3], P[3];
    int64_t nL, nK;
} extents;

static void extents_of(const iohw_problem *p, const iohw_problem *q,
                       extents *x)
{
    const int R = (int)p->rank;
    for (int j = 0; j < 3; j++) {
        const int a = j - (3 - R);
        x->L[j] = a < 0 ? 1 : p->in_size[a];
        x->K[j] = a < 0 ? 1 : q->kernel[a];
        x->O[j] = a < 0 ? 1 : p->out_size[a];
        x->S[j] = a < 0 ? 1 : p->stride[a];
        x->D[j] = a < 0 ? 1 : q->dilation[a];
        x->P[j] = a < 0 ? 0 : p->pad_begin[a];
    }
    x->nL = x->L[0] * x->L[1] * x->L[2];
    x->nK = x->K[0] * x->K[1] * x->K[2];
}

/* One output element: the terms of input channels c0 .. c0+Cg-1 of image
 * n through the weights of local output channel m. */
static double element(const fault_work *fw, const extents *e, fault_add add,
                      double acc, int64_t n, int64_t c0, int64_t m,
                      const int64_t o[3])
{
    const iohw_problem *p = fw->p;
    const int64_t C = p->in_channels, Cg = C / p->groups;
    const int64_t Mg = p->out_channels / p->groups;

    for (int64_t c = c0; c < c0 + Cg; c++) {
        for (int64_t t = 0; t < e->nK; t++) {
            const int64_t k[3] = {t / (e->K[1] * e->K[2]), t / e->K[2] % e->K[1],
                                  t % e->K[2]};
            int64_t i[3];
            int ok = 1;
            for (int j = 0; j < 3 && ok; j++) {
                const int64_t num = o[j] + e->P[j] - k[j] * e->D[j];
                i[j] = num / e->S[j];
                ok = num >= 0 && num % e->S[j] == 0 && i[j] < e->L[j];
            }
            if (!ok)
                continue;
            const double xv = fw->x[(n * C + c) * e->nL + (i[0] * e->L[1] + i[1]) * e->L[2]
                                    + i[2]];
            const double wv = fw->w[(c * Mg + m) * e->nK + t];
            acc = add(p, acc, xv, wv);
        }
    }
    return acc;
}

int iohw__fault_terms(fault_work *fw, fault_add add, double **yout,
                      iohw_error *err)
{
    const iohw_problem *p = fw->p;
    extents e;

    extents_of(p, &fw->q, &e);
    const int64_t N = p->batch, M = p->out_channels;
    const int64_t Mg = M / p->groups, Cg = p->in_channels / p->groups;
    double *y = malloc((size_t)(N * M * e.O[0] * e.O[1] * e.O[2]) * sizeof *y);
    *yout = NULL;
    if (y == NULL)
        return iohw_error_set(err, "fault terms: out of memory");

    int64_t at = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t co = 0; co < M; co++) {
            const double b = fw->bias != NULL ? add(p, 0.0, fw->bias[co], 1.0) : 0.0;
            for (int64_t o0 = 0; o0 < e.O[0]; o0++)
                for (int64_t o1 = 0; o1 < e.O[1]; o1++)
                    for (int64_t o2 = 0; o2 < e.O[2]; o2++) {
                        const int64_t o[3] = {o0, o1, o2};
                        y[at++] = element(fw, &e, add, b, n, co / Mg * Cg, co % Mg, o);
                    }
        }
    *yout = y;
    return 0;
}

int iohw__fault_compute(const iohw_problem *p, const void *x, const void *w,
                        const void *bias, void *y, fault_add add,
                        fault_rounding rounding, iohw_error *err)
{
    fault_work fw;
    double *yc = NULL;
    int rc = -1;

    if (iohw__fault_work_init(&fw, p, x, w, bias, err) != 0)
        return -1;
    if (iohw__fault_spec.perturb != NULL && iohw__fault_spec.perturb(&fw, err) != 0)
        goto done;
    if ((add != NULL ? iohw__fault_terms(&fw, add, &yc, err)
                     : iohw__fault_model(&fw, &yc, err)) != 0)
        goto done;
    if (rounding != NULL) {
        const int64_t count = iohw_problem_y_count(p);
        for (int64_t i = 0; i < count; i++)
            yc[i] = rounding(p->dtype, yc[i]);
    }
    rc = iohw__fault_store_canonical(p, yc, y, err);
done:
    free(yc);
    iohw__fault_work_free(&fw);
    return rc;
}
