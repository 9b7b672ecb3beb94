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
 * seed gives the same problems on every machine.
 */
#include "explore/fuzz.h"

#include <stdio.h>
#include <string.h>

#include "oracle/convention.h"
#include "oracle/problem.h"

#define FUZZ_WORK_MAX 4000000.0
#define FUZZ_ELEMS_MAX 400000
#define FUZZ_TRIES 1000

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

/* One spatial axis a of p. */
static void draw_axis(iohw_rng *r, iohw_problem *p, int a)
{
    const int rank = (int)p->rank;
    p->in_size[a] = extent(r, rank);
    p->kernel[a] = chance(r, 0.2) ? 1 : chance(r, 0.15) ? iohw_rng_range(r, 5, 9)
                                                         : iohw_rng_range(r, 2, 4);
    p->dilation[a] = chance(r, 0.65) ? 1 : iohw_rng_range(r, 2, 3);
    if (chance(r, 0.2))                          /* stride > kernel */
        p->stride[a] = p->kernel[a] + iohw_rng_range(r, 1, 2);
    else
        p->stride[a] = chance(r, 0.45) ? 1 : iohw_rng_range(r, 2, 3);
    const int64_t reach = p->dilation[a] * (p->kernel[a] - 1);
    for (int side = 0; side < 2; side++) {
        int64_t *pad = side == 0 ? &p->pad_begin[a] : &p->pad_end[a];
        if (chance(r, 0.45))
            *pad = 0;
        else if (chance(r, 0.25))                /* beyond the reach */
            *pad = reach + iohw_rng_range(r, 1, 2);
        else
            *pad = reach > 0 ? iohw_rng_range(r, 1, reach) : 0;
    }
    const int64_t limit = p->stride[a] > p->dilation[a] ? p->stride[a]
                                                         : p->dilation[a];
    if (chance(r, 0.55))
        p->output_padding[a] = 0;
    else if (chance(r, 0.8))                     /* at the limit */
        p->output_padding[a] = limit - 1;
    else                                         /* beyond it */
        p->output_padding[a] = limit;
}

/* Layouts: the default, or channels-last data and OI weights. */
static void draw_layouts(iohw_rng *r, iohw_problem *p)
{
    const char *sp = iohw_spatial_letters((int)p->rank);
    p->data_layout[0] = p->weight_layout[0] = '\0';
    if (chance(r, 0.3))
        snprintf(p->data_layout, sizeof p->data_layout, "N%sC", sp);
    if (chance(r, 0.2))
        snprintf(p->weight_layout, sizeof p->weight_layout, "OI%s", sp);
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

/* One draw; 0 when the problem is valid and small enough. */
static int draw_once(iohw_rng *r, iohw_desc *d)
{
    static const char *const fills[] = {"normal", "normal", "exact", "uniform",
                                        "special", "special", "range", "cancel"};
    static const int64_t dtypes[] = {IOHW_F32, IOHW_F32, IOHW_F32, IOHW_F64,
                                     IOHW_F16, IOHW_BF16};
    iohw_problem *p = &d->p;
    iohw_problem_init(p);
    p->rank = (uint32_t)(chance(r, 0.3) ? 1 : chance(r, 0.7) ? 2 : 3);
    p->dtype = (int32_t)pick(r, dtypes, 6);
    p->batch = chance(r, 0.6) ? 1 : iohw_rng_range(r, 2, 3);
    if (chance(r, 0.15)) {                       /* depthwise */
        p->groups = iohw_rng_range(r, 2, 8);
        p->in_channels = p->groups;
        p->out_channels = p->groups * (chance(r, 0.5) ? 1 : 2);
    } else {
        p->groups = chance(r, 0.25) ? iohw_rng_range(r, 2, 4) : 1;
        p->in_channels = p->groups * channels(r);
        p->out_channels = p->groups * channels(r);
    }
    for (int a = 0; a < (int)p->rank; a++)
        draw_axis(r, p, a);
    p->has_bias = chance(r, 0.5);
    draw_layouts(r, p);
    snprintf(d->fill, sizeof d->fill, "%s", fills[iohw_rng_range(r, 0, 7)]);
    d->seed = (uint64_t)iohw_rng_range(r, 1, 999999);
    if (iohw_problem_finish(p, NULL) != 0)
        return -1;
    draw_convention(r, p);
    const double x = (double)iohw_problem_x_count(p);
    const double w = (double)iohw_problem_w_count(p);
    if (x * w / (double)p->in_channels > FUZZ_WORK_MAX ||
        iohw_problem_y_count(p) > FUZZ_ELEMS_MAX || x > FUZZ_ELEMS_MAX)
        return -1;
    return 0;
}

void iohw_fuzz_draw(iohw_rng *rng, iohw_desc *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < FUZZ_TRIES; i++)
        if (draw_once(rng, d) == 0)
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
