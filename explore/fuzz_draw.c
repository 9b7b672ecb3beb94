/*
 * explore/fuzz_draw.c - the problems `iohw fuzz` draws (fuzz.h).
 *
 * Each member is drawn from a small mixture: an edge value with a fixed
 * chance (1, a tail just past a block, beyond a limit), otherwise a small
 * ordinary value.  A draw whose problem is invalid (output size below 1) or
 * too large for a quick run (FUZZ_WORK_MAX multiply-adds, FUZZ_ELEMS_MAX
 * elements per tensor) is drawn again.  About a fifth of the problems are
 * stated in a framework's convention (auto_pad, out_shape, convention),
 * resolved into the explicit members.  Only iohw_rng is used, so the same
 * seed gives the same problems on every machine.  Inside a filter's
 * bounds (fuzz.h) each member is drawn as usual and, when the bounds do
 * not hold it, drawn again from the lowest values they allow; without
 * bounds no extra number is drawn, so the stream is the plain one.
 */
#include "explore/fuzz.h"

#include <stdio.h>
#include <string.h>

#include "oracle/convention.h"
#include "oracle/problem.h"

#define FUZZ_WORK_MAX 4000000.0
#define FUZZ_ELEMS_MAX 400000
#define FUZZ_TRIES 1000

/* v when range g holds it, else a value drawn from the start of g (its
 * lowest values, where kernels break), or g's first value. */
static int64_t fit(iohw_rng *r, const iohw_fuzz_range *g, int64_t v)
{
    if (iohw_fuzz_range_holds(g, v))
        return v;
    const int64_t hi = g->hi - g->lo > 3 ? g->lo + 3 : g->hi;
    for (int i = 0; i < 8; i++) {
        int64_t x = iohw_rng_range(r, g->lo, hi);
        if (iohw_fuzz_range_holds(g, x))
            return x;
    }
    for (int64_t x = g->lo; x <= g->hi; x++)
        if (iohw_fuzz_range_holds(g, x))
            return x;
    return v;
}

/* A multiple of g in range c, near v; -1 when none is close. */
static int64_t fit_multiple(iohw_rng *r, const iohw_fuzz_range *c, int64_t g,
                            int64_t v)
{
    if (iohw_fuzz_range_holds(c, v))
        return v;
    const int64_t first = (c->lo + g - 1) / g;
    for (int i = 0; i < 12; i++) {
        int64_t x = g * (first + iohw_rng_range(r, 0, i < 6 ? 2 : 0) + i / 6);
        if (iohw_fuzz_range_holds(c, x))
            return x;
    }
    return -1;
}

/* 1 with probability p. */
static int chance(iohw_rng *r, double p)
{
    return iohw_rng_uniform(r) < p;
}

static int64_t pick(iohw_rng *r, const int64_t *v, int n)
{
    return v[iohw_rng_range(r, 0, n - 1)];
}

/* Channels per group: 1, small, or a tail of a block of 8, 16 or 32. */
static int64_t channels(iohw_rng *r)
{
    static const int64_t tails[] = {9, 15, 17, 33};
    if (chance(r, 0.3))
        return 1;
    if (chance(r, 0.2))
        return pick(r, tails, 4);
    return iohw_rng_range(r, 2, 4);
}

/* An input extent: 1, small, or just past 16 or 32. */
static int64_t extent(iohw_rng *r, int rank)
{
    static const int64_t tails[] = {17, 33};
    if (chance(r, 0.25))
        return 1;
    if (rank == 1 && chance(r, 0.2))
        return pick(r, tails, 2);
    return iohw_rng_range(r, 2, rank == 3 ? 4 : 8);
}

/* The range of per-axis member m on one axis: the bound's, with its
 * lower bound only on the witness axis (the filter compares the largest
 * value over the axes). */
static iohw_fuzz_range axis_range(const iohw_fuzz_bounds *b, int m, int witness)
{
    static const int64_t mins[7] = {1, 1, 1, 0, 0, 0, 1};
    iohw_fuzz_range g = b->axis[m];
    if (!witness && g.lo > mins[m])
        g.lo = mins[m];
    return g;
}

/* One spatial axis a of p, inside the bounds (witness: this axis carries
 * the lower bounds). */
static void draw_axis(iohw_rng *r, iohw_problem *p, int a,
                      const iohw_fuzz_bounds *b, int witness)
{
    iohw_fuzz_range g[7];
    for (int m = 0; m < 7; m++)
        g[m] = axis_range(b, m, witness);
    const int rank = (int)p->rank;
    p->in_size[a] = fit(r, &g[6], extent(r, rank));
    p->kernel[a] = fit(r, &g[0], chance(r, 0.2) ? 1 : chance(r, 0.15)
                                  ? iohw_rng_range(r, 5, 9) : iohw_rng_range(r, 2, 4));
    p->dilation[a] = fit(r, &g[2], chance(r, 0.65) ? 1 : iohw_rng_range(r, 2, 3));
    if (chance(r, 0.2))                          /* stride > kernel */
        p->stride[a] = p->kernel[a] + iohw_rng_range(r, 1, 2);
    else
        p->stride[a] = chance(r, 0.45) ? 1 : iohw_rng_range(r, 2, 3);
    p->stride[a] = fit(r, &g[1], p->stride[a]);
    const int64_t reach = p->dilation[a] * (p->kernel[a] - 1);
    for (int side = 0; side < 2; side++) {
        int64_t *pad = side == 0 ? &p->pad_begin[a] : &p->pad_end[a];
        if (chance(r, 0.45))
            *pad = 0;
        else if (chance(r, 0.25))                /* beyond the reach */
            *pad = reach + iohw_rng_range(r, 1, 2);
        else
            *pad = reach > 0 ? iohw_rng_range(r, 1, reach) : 0;
        *pad = fit(r, &g[3 + side], *pad);
    }
    const int64_t limit = p->stride[a] > p->dilation[a] ? p->stride[a]
                                                         : p->dilation[a];
    if (chance(r, 0.55))
        p->output_padding[a] = 0;
    else if (chance(r, 0.8))                     /* at the limit */
        p->output_padding[a] = limit - 1;
    else                                         /* beyond it */
        p->output_padding[a] = limit;
    p->output_padding[a] = fit(r, &g[5], p->output_padding[a]);
}

/* Layouts: the default, or channels-last data and OI weights; a layout
 * the bounds state. */
static void draw_layouts(iohw_rng *r, iohw_problem *p, const iohw_fuzz_bounds *b)
{
    const char *sp = iohw_spatial_letters((int)p->rank);
    p->data_layout[0] = p->weight_layout[0] = '\0';
    if (chance(r, 0.3))
        snprintf(p->data_layout, sizeof p->data_layout, "N%sC", sp);
    if (chance(r, 0.2))
        snprintf(p->weight_layout, sizeof p->weight_layout, "OI%s", sp);
    if (b->xl[0] != '\0')
        snprintf(p->data_layout, sizeof p->data_layout, "%s", b->xl);
    if (b->wl[0] != '\0')
        snprintf(p->weight_layout, sizeof p->weight_layout, "%s", b->wl);
}

/* An output shape near the explicit problem's on every axis (one less,
 * the same, one more), or L*S (what SAME asks for). */
static void draw_out_shape(iohw_rng *r, iohw_problem *q)
{
    const int same = chance(r, 0.3);
    for (int a = 0; a < (int)q->rank; a++) {
        const int64_t f = (q->in_size[a] - 1) * q->stride[a]
                          + (q->kernel[a] - 1) * q->dilation[a] + 1;
        const int64_t base = same ? q->in_size[a] * q->stride[a]
                                  : f - q->pad_begin[a] - q->pad_end[a]
                                        + q->output_padding[a];
        const int64_t v = base + iohw_rng_range(r, -1, 1);
        q->out_shape[a] = v >= 1 ? v : 1;
    }
}

/* A framework convention (specification section 12), tried on a third of
 * the draws: the framework, a padding word it has and, where it takes one
 * (always for torch and mxnet, for onnx without auto_pad), an output shape,
 * resolved into the explicit members: what a backend is told by the
 * convention is checked by the same oracle.  A request the framework
 * refuses (an output shape out of its range, ...) leaves the problem as it
 * was drawn, so about a fifth of the draws keep one. */
static void draw_convention(iohw_rng *r, iohw_problem *p)
{
    static const int32_t pads[3][4] = {
        {IOHW_AUTO_PAD_NONE, IOHW_AUTO_PAD_SAME_UPPER, IOHW_AUTO_PAD_SAME_LOWER,
         IOHW_AUTO_PAD_VALID},                                            /* onnx */
        {IOHW_AUTO_PAD_SAME_UPPER, IOHW_AUTO_PAD_VALID, IOHW_AUTO_PAD_SAME_UPPER,
         IOHW_AUTO_PAD_VALID},                                            /* tf */
        {IOHW_AUTO_PAD_SAME_LOWER, IOHW_AUTO_PAD_VALID, IOHW_AUTO_PAD_SAME_LOWER,
         IOHW_AUTO_PAD_VALID},                                            /* tvm */
    };
    if (!chance(r, 0.35))
        return;
    iohw_problem q = *p;
    const int c = (int)iohw_rng_range(r, IOHW_CONV_ONNX, IOHW_CONV_MXNET);
    q.convention = c;
    if (c == IOHW_CONV_TORCH)                     /* pads both sides alike */
        memcpy(q.pad_end, q.pad_begin, sizeof q.pad_end);
    if (c == IOHW_CONV_TVM)                       /* takes no dilation */
        for (int a = 0; a < (int)q.rank; a++)
            q.dilation[a] = 1;
    if (c <= IOHW_CONV_TVM)
        q.auto_pad = pads[c - IOHW_CONV_ONNX][iohw_rng_range(r, 0, 3)];
    if (c >= IOHW_CONV_TORCH || q.auto_pad == IOHW_AUTO_PAD_NONE ||
        (c != IOHW_CONV_TVM && chance(r, 0.5)))
        draw_out_shape(r, &q);
    if (iohw_convention_resolve(&q, NULL) == 0 && iohw_problem_validate(&q, NULL) == 0)
        *p = q;
}

/* The largest value of a per-axis member over p's axes. */
static int64_t axis_max(const iohw_problem *p, int m)
{
    const int64_t *v[7] = {p->kernel, p->stride, p->dilation, p->pad_begin,
                           p->pad_end, p->output_padding, p->in_size};
    int64_t best = v[m][0];
    for (uint32_t a = 1; a < p->rank; a++)
        best = v[m][a] > best ? v[m][a] : best;
    return best;
}

/* 1 when the finished problem lies inside the bounds. */
static int within(const iohw_fuzz_bounds *b, const iohw_desc *d)
{
    const iohw_problem *p = &d->p;
    const int64_t num[5] = {p->rank, p->batch, p->in_channels, p->out_channels,
                            p->groups};
    for (int i = 0; i < 5; i++)
        if (!iohw_fuzz_range_holds(&b->num[i], num[i]))
            return 0;
    for (int m = 0; m < 7; m++)
        if (!iohw_fuzz_range_holds(&b->axis[m], axis_max(p, m)))
            return 0;
    return (b->directions >> p->direction & 1u)
           && (b->bias < 0 || p->has_bias == b->bias)
           && (b->xl[0] == '\0' || strcmp(b->xl, p->data_layout) == 0)
           && (b->wl[0] == '\0' || strcmp(b->wl, p->weight_layout) == 0);
}

/* A value of v[0 .. n-1] (bit numbers) whose bit is in mask: the one
 * drawn when allowed, else drawn again, else the next allowed. */
static int64_t pick_allowed(iohw_rng *r, const int64_t *v, int n, unsigned mask)
{
    int64_t k = iohw_rng_range(r, 0, n - 1);
    for (int i = 0; i < n && !(mask >> v[k] & 1u); i++)
        k = iohw_rng_range(r, 0, n - 1);
    for (int i = 0; i < n && !(mask >> v[k] & 1u); i++)
        k = (k + 1) % n;
    return v[k];
}

/* Groups and channels inside the bounds; -1 when no multiple fits. */
static int draw_channels(iohw_rng *r, iohw_problem *p, const iohw_fuzz_bounds *b)
{
    if (chance(r, 0.15)) {                       /* depthwise */
        p->groups = fit(r, &b->num[4], iohw_rng_range(r, 2, 8));
        p->in_channels = p->groups;
        p->out_channels = p->groups * (chance(r, 0.5) ? 1 : 2);
    } else {
        p->groups = fit(r, &b->num[4], chance(r, 0.25) ? iohw_rng_range(r, 2, 4) : 1);
        p->in_channels = p->groups * channels(r);
        p->out_channels = p->groups * channels(r);
    }
    p->in_channels = fit_multiple(r, &b->num[2], p->groups, p->in_channels);
    p->out_channels = fit_multiple(r, &b->num[3], p->groups, p->out_channels);
    return p->in_channels > 0 && p->out_channels > 0 ? 0 : -1;
}

/* 1 when some per-axis lower bound is above the member's least value. */
static int axis_lower_bounds(const iohw_fuzz_bounds *b)
{
    static const int64_t mins[7] = {1, 1, 1, 0, 0, 0, 1};
    for (int m = 0; m < 7; m++)
        if (b->axis[m].lo > mins[m])
            return 1;
    return 0;
}

/* The direction among those b allows (specification section 13); BWD_D
 * has no bias. */
static void draw_direction(iohw_rng *r, iohw_problem *p, const iohw_fuzz_bounds *b)
{
    static const int64_t dirs[] = {IOHW_DIR_FWD, IOHW_DIR_BWD_D, IOHW_DIR_BWD_W};
    if (b->directions == 1u << IOHW_DIR_FWD)
        return;                  /* forward only: the draws of old seeds */
    p->direction = (int32_t)pick_allowed(r, dirs, 3, b->directions);
    if (p->direction == IOHW_DIR_BWD_D)
        p->has_bias = 0;
}

/* One draw; 0 when the problem is valid, small enough and inside b. */
static int draw_once(iohw_rng *r, const iohw_fuzz_bounds *b, iohw_desc *d)
{
    static const int64_t dtypes[] = {IOHW_F32, IOHW_F32, IOHW_F32, IOHW_F64,
                                     IOHW_F16, IOHW_BF16};
    static const int64_t fill_of[] = {0, 0, 1, 2, 3, 3, 4, 5};  /* fills[] */
    iohw_problem *p = &d->p;
    iohw_problem_init(p);
    p->rank = (uint32_t)fit(r, &b->num[0], chance(r, 0.3) ? 1 : chance(r, 0.7) ? 2 : 3);
    p->dtype = (int32_t)pick_allowed(r, dtypes, 6, b->dtypes);
    p->batch = fit(r, &b->num[1], chance(r, 0.6) ? 1 : iohw_rng_range(r, 2, 3));
    if (draw_channels(r, p, b) != 0)
        return -1;
    const int witness = axis_lower_bounds(b)
                        ? (int)iohw_rng_range(r, 0, (int64_t)p->rank - 1) : 0;
    for (int a = 0; a < (int)p->rank; a++)
        draw_axis(r, p, a, b, a == witness);
    p->has_bias = chance(r, 0.5);
    if (b->bias >= 0)
        p->has_bias = b->bias;
    draw_direction(r, p, b);
    draw_layouts(r, p, b);
    const int64_t f = pick_allowed(r, fill_of, 8, b->fills);
    snprintf(d->fill, sizeof d->fill, "%s", iohw_fuzz_fills()[f]);
    d->seed = (uint64_t)iohw_rng_range(r, 1, 999999);
    if (iohw_problem_finish(p, NULL) != 0)
        return -1;
    const iohw_problem explicit_p = *p;
    draw_convention(r, p);
    if (!within(b, d))
        *p = explicit_p;                         /* the convention moved it out */
    const double x = (double)iohw_problem_x_count(p);
    const double w = (double)iohw_problem_w_count(p);
    if (x * w / (double)p->in_channels > FUZZ_WORK_MAX ||
        iohw_problem_y_count(p) > FUZZ_ELEMS_MAX || x > FUZZ_ELEMS_MAX)
        return -1;
    return within(b, d) ? 0 : -1;
}

int iohw_fuzz_draw_within(iohw_rng *rng, const iohw_fuzz_bounds *b,
                          iohw_desc *d)
{
    iohw_fuzz_bounds none;
    if (b == NULL) {
        iohw_fuzz_bounds_parse(NULL, &none, NULL);
        b = &none;
    }
    memset(d, 0, sizeof *d);
    for (int i = 0; i < FUZZ_TRIES; i++)
        if (draw_once(rng, b, d) == 0)
            return 0;
    return -1;
}

void iohw_fuzz_draw(iohw_rng *rng, iohw_desc *d)
{
    if (iohw_fuzz_draw_within(rng, NULL, d) == 0)
        return;
    /* Practically unreachable: a problem that is always valid. */
    iohw_problem_init(&d->p);
    d->p.rank = 1;
    d->p.in_channels = d->p.out_channels = 1;
    d->p.in_size[0] = d->p.kernel[0] = 1;
    snprintf(d->fill, sizeof d->fill, "normal");
    d->seed = 1;
    iohw_problem_finish(&d->p, NULL);
}
