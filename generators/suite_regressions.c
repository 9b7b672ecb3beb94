/*
 * generators/suite_regressions.c - the regression corpus: for every bug of
 * the pitfalls list, cases tagged bug-<name> that an implementation with
 * that bug fails.
 *
 * Each entry is a descriptor without dtype and fill plus the condition that
 * makes the bug visible (in the comment).  Fills: exact and normal in turn,
 * so a wrong result shows as a bit difference or beyond the tolerance;
 * distinct values in every weight position (the fills guarantee that) make
 * flips and exchanges visible.  Dtypes: f32 (smoke), f32 and f64 (ci),
 * every dtype (full); entries with their own dt are planned once.
 *
 * bug-f16-accum: a correct f16 result is within (T+2)*u*err_bound of the
 * exact value for any summation order, so accumulating in f16 is caught
 * only where the 16-bit range is left: an element whose two products are
 * both far below f16's smallest normal (about 2^-19, where the tolerance
 * shrinks to half an ulp of 2^-24) and whose roundings to the subnormal
 * grid add up.  Those cases use the `range` fill (magnitudes from 2^-8 to
 * 2^6) and sums of two products over 8192 output elements, where about one
 * seed in ten has such an element; the seed is searched (deterministically,
 * from the seed the case would get, at most F16_TRIES seeds) until
 * accumulating in f16 puts at least F16_MIN_BAD elements past 5/4 of the
 * tolerance.
 */
#include "generators/suite_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

#define F16_TRIES 256
#define F16_MIN_BAD 1

typedef struct regression {
    const char *bug;
    const char *desc;
} regression;

static const regression CORPUS[] = {
    /* I and O exchanged: square I/O (C_in = C_out/G) and not. */
    {"bug-io-swap", "ci=4 co=4 in=5x6 k=3x2 s=2x1 bias=1"},
    {"bug-io-swap", "ci=3 co=5 in=6 k=3 s=2 wl=OIW"},
    {"bug-io-swap", "ci=4 co=4 g=2 in=3x4 k=2x3 wl=GOIHW"},
    {"bug-io-swap", "ci=2 co=6 g=2 in=2x3x3 k=2x2x2 s=2x1x1 wl=DHWOI"},
    /* Kernel not flipped: K >= 2 with distinct taps. */
    {"bug-no-flip", "ci=2 co=3 in=6 k=3"},
    {"bug-no-flip", "ci=2 co=2 in=4x5 k=3x2 s=2x1 pad=1x0"},
    {"bug-no-flip", "ci=1 co=2 in=3x3x3 k=2x2x2 s=2x1x1"},
    /* Group channels interleaved: G > 1 with Cg > 1 or Mg > 1. */
    {"bug-group-interleave", "ci=6 co=4 g=2 in=5 k=3 s=2"},
    {"bug-group-interleave", "ci=6 co=9 g=3 in=3x4 k=2x2 bias=1"},
    /* Bias indexed per group: bias with G > 1. */
    {"bug-bias-group", "ci=4 co=6 g=2 in=5 k=2 s=2 bias=1"},
    {"bug-bias-group", "ci=3 co=6 g=3 in=3x3 k=2x2 bias=1"},
    /* Effective kernel K + D - 1: visible when (K-2)(D-1) + A > pad_end. */
    {"bug-eff-kernel", "ci=2 co=3 in=5 k=3 d=2"},
    {"bug-eff-kernel", "ci=2 co=2 in=4 k=5 d=3 s=2 pad=2:1"},
    {"bug-eff-kernel", "ci=2 co=2 in=3x4 k=4x3 d=2x3 s=1x2"},
    /* Dilation ignored or mixed with the stride: D > 1, K >= 2. */
    {"bug-dilation", "ci=2 co=3 in=5 k=3 s=2 d=2"},
    {"bug-dilation", "ci=2 co=2 in=4x3 k=2x3 s=3x2 d=2x3 pad=1x2"},
    {"bug-dilation", "ci=1 co=2 in=2x3x3 k=2x2x2 d=3x1x2"},
    /* Dilation 0-based: any K >= 2 (D = 1 collapses the kernel). */
    {"bug-dilation-0based", "ci=2 co=2 in=5 k=3 d=2"},
    {"bug-dilation-0based", "ci=2 co=3 in=4x4 k=2x3 d=3x1"},
    /* output_padding ignored or at the beginning: A > 0, pad_end >= A. */
    {"bug-op-ignored", "ci=2 co=3 in=4 k=3 s=2 pad=1 op=1"},
    {"bug-op-ignored", "ci=2 co=2 in=3x4 k=3x4 s=2x3 pad=1:1x1:2 op=1x2 bias=1"},
    /* output_padding limit: stride <= A < dilation is valid; A >= max(S, D)
     * is beyond the limit (tagged op-beyond-limit). */
    {"bug-op-limit", "ci=2 co=2 in=4 k=3 s=1 d=2 op=1"},
    {"bug-op-limit", "ci=2 co=3 in=3x4 k=2x3 s=2x1 d=1x3 op=1x2"},
    {"bug-op-limit", "ci=2 co=2 in=4 k=2 s=2 op=2 bias=1"},
    /* Asymmetric padding unsupported or exchanged: both directions. */
    {"bug-asym-pad", "ci=2 co=3 in=5 k=4 s=2 pad=2:0"},
    {"bug-asym-pad", "ci=2 co=2 in=5 k=4 s=2 pad=0:2"},
    {"bug-asym-pad", "ci=2 co=2 in=4x5 k=3x4 s=2x2 pad=2:1x0:3 bias=1"},
    /* Padding as input padding: pad_begin > 0. */
    {"bug-pad-as-input", "ci=2 co=3 in=5 k=3 s=2 pad=1"},
    {"bug-pad-as-input", "ci=2 co=2 in=4x3 k=4x3 s=2x1 pad=2x1"},
    /* SAME splits (output L*S): the odd pixel on either side. */
    {"bug-same-split", "ci=2 co=2 in=4 k=3 s=2 pad=0:1"},
    {"bug-same-split", "ci=2 co=2 in=4 k=3 s=2 pad=1:0"},
    {"bug-same-split", "ci=2 co=3 in=3x4 k=4x3 s=2x2 pad=1:1x0:1"},
    {"bug-same-split", "ci=2 co=2 in=5 k=5 s=2 pad=1:2 bias=1"},
    /* Negative total padding (an output_shape larger than the natural
     * size): the extra positions belong at the end. */
    {"bug-neg-pad-floor", "ci=2 co=2 in=4 k=2 s=2 op=1"},
    {"bug-neg-pad-floor", "ci=2 co=3 in=3 k=3 s=2 op=3 bias=1"},
    {"bug-neg-pad-floor", "ci=2 co=2 in=3x3 k=2x3 s=2x1 pad=0x1 op=1x0"},
    /* Size-1 dimensions squeezed; input not a multiple of the stride. */
    {"bug-size1", "ci=2 co=3 in=1 k=3"},
    {"bug-size1", "ci=2 co=2 in=1x4 k=3x2 s=2x2"},
    {"bug-size1", "ci=1 co=2 in=1x1x3 k=2x3x2 bias=1"},
    {"bug-size1", "ci=2 co=2 in=5 k=2 s=3"},
    /* Kernel larger than the stride (overlaps), kernel 64 with stride 2. */
    {"bug-kernel-gt-stride", "ci=2 co=3 in=6 k=64 s=2"},
    {"bug-kernel-gt-stride", "ci=2 co=2 in=7 k=5 s=2"},
    {"bug-kernel-gt-stride", "ci=2 co=2 in=4x3 k=5x3 s=2x2 pad=1x1"},
    /* Crashes on grouped or unusual shapes. */
    {"bug-grouped-crash", "ci=17 co=17 g=17 in=5 k=3 s=2"},
    {"bug-grouped-crash", "ci=4 co=12 g=4 in=3x3 k=3x1 s=1x2 bias=1"},
    {"bug-grouped-crash", "ci=6 co=3 g=3 in=2x2x2 k=2x2x2 wl=GIODHW"},
    /* f16 accumulated in f16 (seed searched, see above). */
    {"bug-f16-accum", "ci=2 co=128 in=64 k=1 dt=f16 fill=range"},
    {"bug-f16-accum", "ci=2 co=32 in=16x16 k=1x1 dt=f16 fill=range"},
};
#define NCORPUS (sizeof CORPUS / sizeof CORPUS[0])

/* Half the spacing of f16 at v. */
static double f16_half_ulp(double v)
{
    int e = -14;
    if (v != 0.0 && isfinite(v)) {
        int ex;
        frexp(fabs(v), &ex);
        e = ex - 1 > -14 ? ex - 1 : -14;
    }
    return ldexp(1.0, e - 11);
}

/* A problem's extents on three axes (missing leading axes of size 1). */
typedef struct geometry {
    int64_t L[3], K[3], O[3], S[3], D[3], P[3];
    int64_t nL, nK;
} geometry;

static void geometry_of(const iohw_problem *p, geometry *g)
{
    const int R = (int)p->rank;
    for (int j = 0; j < 3; j++) {
        const int a = j - (3 - R);
        g->L[j] = a < 0 ? 1 : p->in_size[a];
        g->K[j] = a < 0 ? 1 : p->kernel[a];
        g->O[j] = a < 0 ? 1 : p->out_size[a];
        g->S[j] = a < 0 ? 1 : p->stride[a];
        g->D[j] = a < 0 ? 1 : p->dilation[a];
        g->P[j] = a < 0 ? 0 : p->pad_begin[a];
    }
    g->nL = g->L[0] * g->L[1] * g->L[2];
    g->nK = g->K[0] * g->K[1] * g->K[2];
}

/* Output element (n, m, o) of an f16 case (default layouts, G = 1, no
 * bias) summed in f16: every product and every partial sum rounded. */
static double f16_sum(const iohw_case *c, const geometry *g, int64_t n, int64_t m,
                      const int64_t o[3])
{
    const iohw_problem *p = &c->p;
    const int64_t C = p->in_channels, M = p->out_channels;
    double acc = 0.0;

    for (int64_t ch = 0; ch < C; ch++)
        for (int64_t t = 0; t < g->nK; t++) {
            const int64_t k[3] = {t / (g->K[1] * g->K[2]), t / g->K[2] % g->K[1], t % g->K[2]};
            int64_t i[3], ok = 1;
            for (int j = 0; j < 3; j++) {
                const int64_t num = o[j] + g->P[j] - k[j] * g->D[j];
                i[j] = num / g->S[j];
                ok &= num >= 0 && num % g->S[j] == 0 && i[j] < g->L[j];
            }
            if (!ok)
                continue;
            const int64_t xi = (n * C + ch) * g->nL + (i[0] * g->L[1] + i[1]) * g->L[2] + i[2];
            const int64_t wi = (ch * M + m) * g->nK + t;
            const double prod = iohw_dtype_load(p->dtype, c->x, (size_t)xi)
                                * iohw_dtype_load(p->dtype, c->w, (size_t)wi);
            acc = iohw_dtype_round(p->dtype, acc + iohw_dtype_round(p->dtype, prod));
        }
    return acc;
}

/* Elements of such a case that summing in f16 puts past 5/4 of the
 * tolerance. */
static int64_t f16_bad_elements(const iohw_case *c)
{
    const iohw_problem *p = &c->p;
    const double u = iohw_dtype_unit_roundoff(p->dtype);
    const double scale = (double)(c->terms_max + 2) * u;
    geometry g;
    int64_t bad = 0, at = 0;

    geometry_of(p, &g);
    for (int64_t n = 0; n < p->batch; n++)
        for (int64_t m = 0; m < p->out_channels; m++)
            for (int64_t o0 = 0; o0 < g.O[0]; o0++)
                for (int64_t o1 = 0; o1 < g.O[1]; o1++)
                    for (int64_t o2 = 0; o2 < g.O[2]; o2++, at++) {
                        const int64_t o[3] = {o0, o1, o2};
                        const double acc = f16_sum(c, &g, n, m, o);
                        const double e = c->y_f64[at];
                        const double s = iohw_dtype_load(p->dtype, c->y, (size_t)at);
                        const double tol = scale * c->err_bound[at] + f16_half_ulp(s);
                        bad += fabs(acc - e) > 1.25 * tol;
                    }
    return bad;
}

/* Finds the first seed, from d's, whose case breaks f16 accumulation. */
static int search_f16_seed(iohw_desc *d, iohw_error *err)
{
    const uint64_t first = d->seed;
    for (int k = 0; k < F16_TRIES; k++) {
        iohw_case c;
        d->seed = first + (uint64_t)k * UINT64_C(100000000);
        if (iohw_make_case(d, "probe", NULL, 1, &c, err) != 0)
            return -1;
        int64_t bad = f16_bad_elements(&c);
        iohw_case_free(&c);
        if (bad >= F16_MIN_BAD)
            return 0;
    }
    d->seed = first;
    return 0;
}

int iohw__plan_regressions(iohw_plan *plan, const iohw__profile *pr,
                           iohw_error *err)
{
    char tags[IOHW_PLAN_TAGS_MAX];

    for (size_t i = 0; i < NCORPUS; i++) {
        const int own_dtype = strstr(CORPUS[i].desc, "dt=") != NULL;
        const int ndt = own_dtype ? 1 : pr->regress_dtypes;
        snprintf(tags, sizeof tags, "regressions,%s", CORPUS[i].bug);
        for (int t = 0; t < ndt; t++) {
            iohw_desc d;
            const char *fill = own_dtype ? NULL : (i + (size_t)t) % 2 == 0 ? "exact" : "normal";
            if (iohw__desc_from(CORPUS[i].desc, own_dtype ? 0 : iohw__dtypes[t], fill, &d,
                                err) != 0)
                return -1;
            int keep = 0;
            if (strcmp(CORPUS[i].bug, "bug-f16-accum") == 0) {
                d.seed = iohw__plan_next_seed(plan, IOHW__CAT_REGRESSIONS);
                if (search_f16_seed(&d, err) != 0)
                    return -1;
                keep = 1;
            }
            if (iohw__plan_add(plan, IOHW__CAT_REGRESSIONS, &d, tags, keep, err) != 0)
                return -1;
        }
    }
    return iohw__plan_narrow(plan, pr, err);
}
