/*
 * generators/suite_factors.c - the factors of the pairwise category, the
 * builder that turns factor values into a problem, the classifier that
 * reads them back from a problem, and the validity predicate.
 *
 * Factors (value 0 first; the builder's cheapest values come first so that
 * completion searches find small problems).  Per-axis factors describe the
 * last spatial axis, W; `aniso` says whether the other axes copy it.
 *   rank      1d 2d 3d
 *   aniso     isotropic (every axis as W) | anisotropic (the other axes
 *             get small settings of their own that differ from W's)
 *   input     size1 (L = 1) | lt-kernel (1 < L < K) | ge-kernel (L >= K,
 *             L >= 2)
 *   kernel    K = 1 2 3 4 5 7
 *   stride    S = 1 2 3 4
 *   dilation  D = 1 2 3
 *   gaps      no | yes: S > (K-1)*D + 1, output positions only the bias
 *             reaches
 *   pad       none | symmetric (1 <= P <= E) | asymmetric (both <= E,
 *             different) | crop (some side > E), with E = (K-1)*D
 *   op        0 | 1 | 2+ (A = max(S, D) - 1 >= 2); never beyond the limit
 *   groups    1 | grouped (G > 1, Cg > 1) | depthwise (G = C_in, Mg = 1) |
 *             depthwise-mult (G = C_in, Mg > 1)
 *   cg, mg    channels per group in and out: 1 3 5 8 16 17
 *   batch     1 | many (N = 2 or 3)
 *   bias      no | yes
 *   dtype     f32 f64 f16 bf16
 *   xl        channels-first (NC...) | channels-last (N...C) | other
 *   wl        IO (IO...) | OI (OI...) | spatial-first | grouped (has G) |
 *             other
 *   fill      exact normal uniform cancel range special
 * Pairs that cannot coexist follow from these definitions: grouped with
 * cg 1; depthwise(-mult) with cg > 1; depthwise with mg > 1 and
 * depthwise-mult with mg 1; 1d anisotropic; lt-kernel with K <= 2;
 * symmetric or asymmetric pad with K = 1; gaps with S = 1 or K >= 4.
 *
 * Size: a problem is valid only when y, x and w each hold at most
 * ELEMENTS_MAX elements, which never rules out a pair (the cheapest
 * completion of every pair is small) but keeps every case small.
 *
 * A variant number (the case's counter) varies what the factors leave open
 * (N, G, input length, pad sides, side axes, layout permutations); when a
 * variant would break a rule or the size limit, variant 0 is used, so the
 * predicate (which builds variant 0) is exact.
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

#define ELEMENTS_MAX 8192

enum {
    F_RANK, F_ANISO, F_INPUT, F_KERNEL, F_STRIDE, F_DILATION, F_GAPS, F_PAD,
    F_OP, F_GROUPS, F_CG, F_MG, F_BATCH, F_BIAS, F_DTYPE, F_XL, F_WL, F_FILL,
    F_COUNT
};

_Static_assert(F_COUNT == IOHW__NFACTORS && F_FILL == IOHW__FACTOR_FILL,
               "suite_internal.h counts the factors");
_Static_assert(F_RANK == IOHW__FACTOR_RANK && F_XL == IOHW__FACTOR_XL
               && F_WL == IOHW__FACTOR_WL, "suite_internal.h numbers the layout factors");

static const int NVALUES[F_COUNT] = {3, 2, 3, 6, 4, 3, 2, 4, 3, 4, 6, 6, 2, 2, 4, 3, 5, 6};
static const int KERNELS[6] = {1, 2, 3, 4, 5, 7};
static const int CHANNELS[6] = {1, 3, 5, 8, 16, 17};
static const int DW_GROUPS[4] = {2, 3, 5, 8};

enum { IN_SIZE1, IN_LT, IN_GE };
enum { PAD_NONE, PAD_SYM, PAD_ASYM, PAD_CROP };
enum { G_ONE, G_GROUPED, G_DW, G_DW_MULT };
enum { XL_FIRST = IOHW__XL_FIRST, XL_LAST = IOHW__XL_LAST, XL_OTHER = IOHW__XL_OTHER };
enum {
    WL_IO = IOHW__WL_IO, WL_OI = IOHW__WL_OI, WL_SPATIAL = IOHW__WL_SPATIAL,
    WL_GROUPED = IOHW__WL_GROUPED, WL_OTHER = IOHW__WL_OTHER
};

typedef struct axis {
    int64_t L, K, S, D, pb, pe, A;
} axis;

/* Settings of the axes other than W in anisotropic problems (cheapest
 * first); each has O = (L-1)S + (K-1)D + 1 + A - pb - pe between 3 and 8
 * and A < max(S, D). */
static const axis SIDE[5] = {
    {2, 2, 1, 1, 0, 0, 0},
    {2, 3, 2, 1, 1, 0, 1},
    {4, 1, 2, 1, 0, 0, 1},
    {2, 2, 1, 2, 0, 1, 1},
    {3, 3, 1, 1, 1, 1, 0},
};

/*
 * The W axis.
 */

/* W's settings from the factors; -1 when they contradict each other. */
static int w_axis(const int *v, int64_t variant, axis *ax)
{
    const int64_t K = KERNELS[v[F_KERNEL]], S = v[F_STRIDE] + 1;
    const int64_t D = v[F_DILATION] + 1;
    const int64_t E = (K - 1) * D;
    const int64_t limit = S > D ? S : D;

    /* Gaps. */
    if ((S > E + 1) != (v[F_GAPS] == 1))
        return -1;

    /* Input length. */
    int64_t L;
    switch (v[F_INPUT]) {
    case IN_SIZE1:
        L = 1;
        break;
    case IN_LT:
        if (K < 3)
            return -1;
        L = K - 1 - variant % (K - 2);
        break;
    default:
        L = (K > 2 ? K : 2) + variant % 2;
        break;
    }

    /* Output padding. */
    int64_t A = 0;
    if (v[F_OP] == 1) {
        if (limit < 2)
            return -1;
        A = 1;
    } else if (v[F_OP] == 2) {
        if (limit < 3)
            return -1;
        A = limit - 1;
    }

    /* Padding, within what keeps one output position. */
    const int64_t full = (L - 1) * S + E + 1 + A;
    int64_t big = 0, small = 0;
    int swap = (int)(variant % 2);
    switch (v[F_PAD]) {
    case PAD_NONE:
        swap = 0;
        break;
    case PAD_SYM:
        big = (E + 1) / 2;
        if (big > (full - 1) / 2)
            big = (full - 1) / 2;
        if (big < 1)
            return -1;
        small = big;
        break;
    case PAD_ASYM:
        big = E < full - 1 ? E : full - 1;
        small = big / 2 < full - 1 - big ? big / 2 : full - 1 - big;
        if (big < 1 || small >= big)
            return -1;
        break;
    default: /* crop beyond the kernel */
        big = E + 1;
        if (big > full - 1)
            return -1;
        small = variant % 3 == 2 ? E + 1 : E / 2;
        if (small > full - 1 - big)
            small = full - 1 - big;
        break;
    }
    ax->L = L;
    ax->K = K;
    ax->S = S;
    ax->D = D;
    ax->pb = swap ? small : big;
    ax->pe = swap ? big : small;
    ax->A = A;
    return 0;
}

static int64_t axis_out(const axis *a)
{
    return (a->L - 1) * a->S + (a->K - 1) * a->D + 1 + a->A - a->pb - a->pe;
}

static int same_axis(const axis *a, const axis *b)
{
    return a->L == b->L && a->K == b->K && a->S == b->S && a->D == b->D
           && a->pb == b->pb && a->pe == b->pe && a->A == b->A;
}

/*
 * Layout strings.
 */

/* The layouts of a variant; with `deployed`, a weight layout of the class
 * "other" is O<spatial>I instead (TFLite's OHWI, which no variant number
 * below 5 gives). */
static void make_layouts(const int *v, int rank, int64_t variant, int deployed,
                         iohw_problem *p)
{
    const char *sp = iohw_spatial_letters(rank);
    char letters[16];

    snprintf(letters, sizeof letters, "NC%s", sp);
    if (v[F_XL] == XL_FIRST)
        snprintf(p->data_layout, sizeof p->data_layout, "NC%s", sp);
    else if (v[F_XL] == XL_LAST)
        snprintf(p->data_layout, sizeof p->data_layout, "N%sC", sp);
    else
        iohw__perm_nth(letters, iohw__data_class, XL_OTHER, variant, p->data_layout);

    snprintf(letters, sizeof letters, "IO%s", sp);
    switch (v[F_WL]) {
    case WL_IO:
        snprintf(p->weight_layout, sizeof p->weight_layout, "IO%s", sp);
        break;
    case WL_OI:
        snprintf(p->weight_layout, sizeof p->weight_layout, "OI%s", sp);
        break;
    case WL_SPATIAL:
        snprintf(p->weight_layout, sizeof p->weight_layout, "%s%s", sp,
                 variant % 2 ? "IO" : "OI");
        break;
    case WL_GROUPED:
        if (variant % 4 == 0) {
            snprintf(p->weight_layout, sizeof p->weight_layout, "GOI%s", sp);
        } else {
            snprintf(letters, sizeof letters, "GIO%s", sp);
            iohw__perm_nth(letters, iohw__weight_class, WL_GROUPED, variant * 7, p->weight_layout);
        }
        break;
    default:
        if (deployed)
            snprintf(p->weight_layout, sizeof p->weight_layout, "O%sI", sp);
        else
            iohw__perm_nth(letters, iohw__weight_class, WL_OTHER, variant, p->weight_layout);
        break;
    }
}

/*
 * Building and classifying.
 */

/* Builds one variant; -1 when the values contradict each other or the
 * problem is too large. */
static int build_variant(const int *v, int64_t variant, int deployed,
                         iohw_problem *p)
{
    const int rank = v[F_RANK] + 1;
    axis w, ax[3];

    /* Channels. */
    const int64_t Cg = CHANNELS[v[F_CG]], Mg = CHANNELS[v[F_MG]];
    int64_t G = 1;
    switch (v[F_GROUPS]) {
    case G_GROUPED:
        if (Cg < 2)
            return -1;
        G = 2 + variant % 2;
        break;
    case G_DW:
    case G_DW_MULT:
        if (Cg != 1 || (Mg == 1) != (v[F_GROUPS] == G_DW))
            return -1;
        G = DW_GROUPS[variant % 4];
        break;
    default:
        break;
    }

    /* Axes. */
    if (rank == 1 && v[F_ANISO] == 1)
        return -1;
    if (w_axis(v, variant, &w) != 0)
        return -1;
    for (int a = 0; a < rank - 1; a++) {
        if (v[F_ANISO] == 0) {
            ax[a] = w;
            continue;
        }
        int k = (int)((variant + a) % 5);
        if (same_axis(&SIDE[k], &w))
            k = (k + 1) % 5;
        ax[a] = SIDE[k];
    }
    ax[rank - 1] = w;

    iohw_problem_init(p);
    p->rank = (uint32_t)rank;
    p->batch = v[F_BATCH] == 1 ? 2 + variant % 2 : 1;
    p->groups = G;
    p->in_channels = G * Cg;
    p->out_channels = G * Mg;
    for (int a = 0; a < rank; a++) {
        p->in_size[a] = ax[a].L;
        p->kernel[a] = ax[a].K;
        p->stride[a] = ax[a].S;
        p->dilation[a] = ax[a].D;
        p->pad_begin[a] = ax[a].pb;
        p->pad_end[a] = ax[a].pe;
        p->output_padding[a] = ax[a].A;
    }
    p->has_bias = v[F_BIAS];
    p->dtype = iohw__dtypes[v[F_DTYPE]];
    make_layouts(v, rank, variant, deployed, p);
    if (iohw_problem_finish(p, NULL) != 0)
        return -1;
    if (iohw_problem_y_count(p) > ELEMENTS_MAX || iohw_problem_x_count(p) > ELEMENTS_MAX
        || iohw_problem_w_count(p) > ELEMENTS_MAX)
        return -1;
    return 0;
}

static int index_of(const int *list, int n, int64_t value)
{
    for (int i = 0; i < n; i++)
        if (list[i] == value)
            return i;
    return -1;
}

/* Factor values of a problem (-1 where a value is outside the factor's
 * list).  `fill` may be NULL. */
void iohw__factors_classify(const iohw_problem *p, const char *fill, int *v)
{
    const int R = (int)p->rank, a = R - 1;
    const int64_t K = p->kernel[a], S = p->stride[a], D = p->dilation[a];
    const int64_t L = p->in_size[a], E = (K - 1) * D, A = p->output_padding[a];
    const int64_t pb = p->pad_begin[a], pe = p->pad_end[a];
    const int64_t Cg = p->in_channels / p->groups, Mg = p->out_channels / p->groups;
    const int64_t limit = S > D ? S : D;

    for (int f = 0; f < F_COUNT; f++)
        v[f] = -1;
    /* A backward problem is no forward problem: it holds no forward factor
     * value (suite_backward.c classifies it). */
    if (p->direction != IOHW_DIR_FWD)
        return;
    v[F_RANK] = R - 1;
    v[F_ANISO] = 0;
    for (int b = 0; b < R - 1; b++) {
        axis x = {p->in_size[b], p->kernel[b], p->stride[b], p->dilation[b],
                  p->pad_begin[b], p->pad_end[b], p->output_padding[b]};
        axis y = {L, K, S, D, pb, pe, A};
        if (!same_axis(&x, &y))
            v[F_ANISO] = 1;
    }
    v[F_INPUT] = L == 1 ? IN_SIZE1 : L < K ? IN_LT : IN_GE;
    v[F_KERNEL] = index_of(KERNELS, 6, K);
    v[F_STRIDE] = S >= 1 && S <= 4 ? (int)S - 1 : -1;
    v[F_DILATION] = D >= 1 && D <= 3 ? (int)D - 1 : -1;
    v[F_GAPS] = S > E + 1;
    v[F_PAD] = pb == 0 && pe == 0 ? PAD_NONE
               : (pb > E || pe > E) ? PAD_CROP
               : pb == pe ? PAD_SYM : PAD_ASYM;
    v[F_OP] = A == 0 ? 0 : A >= limit ? -1 : A == 1 ? 1 : 2;
    v[F_GROUPS] = p->groups == 1 ? G_ONE
                  : Cg > 1 ? G_GROUPED
                  : Mg == 1 ? G_DW : G_DW_MULT;
    v[F_CG] = index_of(CHANNELS, 6, Cg);
    v[F_MG] = index_of(CHANNELS, 6, Mg);
    v[F_BATCH] = p->batch > 1;
    v[F_BIAS] = p->has_bias != 0;
    for (int d = 0; d < 4; d++)
        if (p->dtype == iohw__dtypes[d])
            v[F_DTYPE] = d;
    v[F_XL] = iohw__data_class(p->data_layout);
    v[F_WL] = iohw__weight_class(p->weight_layout);
    if (fill != NULL) {
        const char *const *names = iohw_fill_names();
        for (int i = 0; names[i] != NULL && i < NVALUES[F_FILL]; i++)
            if (strcmp(fill, names[i]) == 0)
                v[F_FILL] = i;
    }
}

/* Builds one variant and checks that it keeps every value. */
static int build_kept(const int *v, int64_t variant, int deployed, iohw_problem *p)
{
    int got[F_COUNT];
    if (build_variant(v, variant, deployed, p) != 0)
        return -1;
    iohw__factors_classify(p, NULL, got);
    got[F_FILL] = v[F_FILL];
    return memcmp(got, v, sizeof got) == 0 ? 0 : -1;
}

/* Builds the problem of complete factor values: the variant when it keeps
 * every value, else variant 0; -1 when neither does. */
int iohw__factors_build(const int *v, int64_t variant, iohw_problem *p)
{
    if (build_kept(v, variant, 0, p) == 0)
        return 0;
    return variant != 0 ? build_kept(v, 0, 0, p) : -1;
}

int iohw__factors_build_deployed(const int *v, iohw_problem *p)
{
    if (v[F_WL] != WL_OTHER)
        return -1;
    return build_kept(v, 0, 1, p);
}

/*
 * The predicate.
 */

/* Smallest y, x and w element counts any completion of v can have. */
static int64_t size_lower_bound(const int *v)
{
    int64_t N = v[F_BATCH] == 1 ? 2 : 1;
    int64_t G = v[F_GROUPS] > 0 ? 2 : 1;
    int64_t Cg = v[F_CG] >= 0 ? CHANNELS[v[F_CG]] : 1;
    int64_t Mg = v[F_MG] >= 0 ? CHANNELS[v[F_MG]] : 1;
    int64_t O = 1, L = 1, K = 1;
    int geometry = 1;
    axis w;

    for (int f = F_INPUT; f <= F_OP; f++)
        geometry &= v[f] >= 0;
    if (geometry) {
        if (w_axis(v, 0, &w) != 0)
            return INT64_MAX;
        O = axis_out(&w);
        L = w.L;
        K = w.K;
    }
    int64_t y = O, x = L, k = K;
    if (v[F_RANK] >= 0 && v[F_ANISO] == 0) {
        for (int a = 0; a < v[F_RANK]; a++) {
            y *= O;
            x *= L;
            k *= K;
        }
    } else if (v[F_RANK] >= 0 && v[F_ANISO] == 1) {
        for (int a = 0; a < v[F_RANK]; a++) {
            y *= axis_out(&SIDE[0]);
            x *= SIDE[0].L;
            k *= SIDE[0].K;
        }
    }
    y *= N * G * Mg;
    x *= N * G * Cg;
    k *= G * Cg * Mg;
    int64_t m = y > x ? y : x;
    return m > k ? m : k;
}

static int pair_rules(const int *v)
{
    const int g = v[F_GROUPS], cg = v[F_CG], mg = v[F_MG];
    const int K = v[F_KERNEL] >= 0 ? KERNELS[v[F_KERNEL]] : -1;
    const int S = v[F_STRIDE] >= 0 ? v[F_STRIDE] + 1 : -1;
    const int D = v[F_DILATION] >= 0 ? v[F_DILATION] + 1 : -1;

    if (g == G_GROUPED && cg == 0)
        return 0;
    if ((g == G_DW || g == G_DW_MULT) && cg > 0)
        return 0;
    if ((g == G_DW && mg > 0) || (g == G_DW_MULT && mg == 0))
        return 0;
    if (v[F_RANK] == 0 && v[F_ANISO] == 1)
        return 0;
    if (v[F_INPUT] == IN_LT && K >= 0 && K <= 2)
        return 0;
    if ((v[F_PAD] == PAD_SYM || v[F_PAD] == PAD_ASYM) && K == 1)
        return 0;
    if (v[F_GAPS] == 1 && (S == 1 || K >= 4))
        return 0;
    if (K > 0 && S > 0 && D > 0 && v[F_GAPS] >= 0 && (S > (K - 1) * D + 1) != v[F_GAPS])
        return 0;
    if (S > 0 && D > 0 && v[F_OP] > 0) {
        const int limit = S > D ? S : D;
        if ((v[F_OP] == 1 && limit < 2) || (v[F_OP] == 2 && limit < 3))
            return 0;
    }
    return 1;
}

static int predicate(const int *v, void *ctx)
{
    iohw_problem p;
    (void)ctx;
    for (int f = 0; f < F_COUNT; f++)
        if (v[f] < 0)
            return pair_rules(v) && size_lower_bound(v) <= ELEMENTS_MAX;
    return iohw__factors_build(v, 0, &p) == 0;
}

void iohw__factors_spec(iohw_pw_spec *s, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->nfactors = F_COUNT;
    s->nvalues = NVALUES;
    s->valid = predicate;
    s->seed = seed;
    s->candidates = 6;
}
