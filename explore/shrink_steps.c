/*
 * explore/shrink_steps.c - the reductions of `iohw shrink`
 * (shrink_internal.h): from a problem, smaller problems, most reduced
 * first.
 *
 * A number v with minimum m gives the candidates m, (m + v) / 2 and v - 1
 * (those below v, without repeats), so a greedy search that keeps the first
 * candidate still failing halves its way down and ends one step at a time.
 * Groups shrink keeping the channels per group; the channels per group
 * shrink keeping the groups.  Dropping a spatial axis renames the letters
 * of the layouts (D H W for rank 3, H W for rank 2, W for rank 1).  A
 * problem stated in a framework's convention can drop it (its explicit
 * members stay), which frees its sizes to shrink.  Every
 * candidate is finished (out_size) and validated; an invalid one (an
 * output size below 1, ...) is skipped.
 */
#include "explore/shrink_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "oracle/convention.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

enum {
    K_RANK, K_BATCH, K_GROUPS, K_CIN, K_COUT, K_BIAS, K_XL, K_WL, K_CONV,
    K_AXES   /* then 7 per-axis members times 3 axes */
};
#define NAXIS_MEMBERS 7
#define NAXES 3

static const char *const member_names[NAXIS_MEMBERS] = {
    "in", "k", "s", "d", "pb", "pe", "op"
};

/* The per-axis member i of p (in, kernel, stride, dilation, pad_begin,
 * pad_end, output_padding) and its smallest value. */
static int64_t *axis_member(iohw_problem *p, int i, int64_t *min)
{
    int64_t *const m[NAXIS_MEMBERS] = {
        p->in_size, p->kernel, p->stride, p->dilation, p->pad_begin,
        p->pad_end, p->output_padding
    };
    *min = i <= 3 ? 1 : 0;
    return m[i];
}

/* Candidate j of a number v with minimum m (see above); 0 when none. */
static int smaller(int64_t v, int64_t m, int j, int64_t *out)
{
    int64_t c[3];
    int n = 0;
    const int64_t want[3] = {m, m + (v - m) / 2, v - 1};
    for (int i = 0; i < 3; i++) {
        if (want[i] < m || want[i] >= v)
            continue;
        int dup = 0;
        for (int k = 0; k < n; k++)
            dup |= c[k] == want[i];
        if (!dup)
            c[n++] = want[i];
    }
    if (j >= n)
        return 0;
    *out = c[j];
    return 1;
}

/* Renames the spatial letters of a layout of rank r with axis a dropped. */
static void drop_letter(char *layout, int r, int a)
{
    const char *from = iohw_spatial_letters(r);
    const char *to = iohw_spatial_letters(r - 1);
    char out[16];
    size_t k = 0;
    for (const char *c = layout; *c != '\0' && k + 1 < sizeof out; c++) {
        const char *s = strchr(from, *c);
        if (s == NULL) {
            out[k++] = *c;
            continue;
        }
        int i = (int)(s - from);
        if (i != a)
            out[k++] = to[i < a ? i : i - 1];
    }
    out[k] = '\0';
    memcpy(layout, out, k + 1);
}

/* The problem with spatial axis a removed. */
static void drop_axis(iohw_problem *q, int a)
{
    const int r = (int)q->rank;
    int64_t *const arrays[] = {
        q->in_size, q->kernel, q->stride, q->dilation, q->pad_begin,
        q->pad_end, q->output_padding, q->out_size, q->out_shape
    };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        for (int b = a; b + 1 < r; b++)
            arrays[i][b] = arrays[i][b + 1];
        arrays[i][r - 1] = 0;
    }
    drop_letter(q->data_layout, r, a);
    drop_letter(q->weight_layout, r, a);
    q->rank = (uint32_t)(r - 1);
}

/* Kinds that act on the problem as a whole; -1 when j is past the end. */
static int whole(const iohw_problem *p, int kind, int j, iohw_problem *q,
                 char *what, size_t n)
{
    const int64_t g = p->groups;
    const int64_t cg = p->in_channels / g, mg = p->out_channels / g;
    int64_t v;
    switch (kind) {
    case K_RANK:
        if (p->rank <= 1 || j >= (int)p->rank)
            return -1;
        drop_axis(q, j);
        snprintf(what, n, "rank %u -> %u (axis %c dropped)", (unsigned)p->rank,
                 (unsigned)q->rank, iohw_spatial_letters((int)p->rank)[j]);
        return 1;
    case K_BATCH:
        if (!smaller(p->batch, 1, j, &v))
            return -1;
        q->batch = v;
        snprintf(what, n, "n %" PRId64 " -> %" PRId64, p->batch, v);
        return 1;
    case K_GROUPS:
        if (!smaller(g, 1, j, &v))
            return -1;
        q->groups = v, q->in_channels = cg * v, q->out_channels = mg * v;
        snprintf(what, n, "g %" PRId64 " -> %" PRId64 " (ci %" PRId64 ", co %"
                 PRId64 ")", g, v, q->in_channels, q->out_channels);
        return 1;
    case K_CIN:
    case K_COUT: {
        const int in = kind == K_CIN;
        if (!smaller(in ? cg : mg, 1, j, &v))
            return -1;
        if (in)
            q->in_channels = v * g;
        else
            q->out_channels = v * g;
        snprintf(what, n, "%s per group %" PRId64 " -> %" PRId64,
                 in ? "ci" : "co", in ? cg : mg, v);
        return 1;
    }
    case K_BIAS:
        if (!p->has_bias || j > 0)
            return -1;
        q->has_bias = 0;
        snprintf(what, n, "bias 1 -> 0");
        return 1;
    case K_CONV:         /* the explicit problem, no convention */
        if (p->convention == IOHW_CONV_NONE || j > 0)
            return -1;
        q->convention = IOHW_CONV_NONE;
        q->auto_pad = IOHW_AUTO_PAD_NONE;
        memset(q->out_shape, 0, sizeof q->out_shape);
        snprintf(what, n, "conv=%s -> explicit pads", iohw_convention_name(p->convention));
        return 1;
    default: {           /* K_XL, K_WL: the default layout */
        char *l = kind == K_XL ? q->data_layout : q->weight_layout;
        if (j > 0)
            return -1;
        l[0] = '\0';
        snprintf(what, n, "%s %s -> default", kind == K_XL ? "xl" : "wl",
                 kind == K_XL ? p->data_layout : p->weight_layout);
        return 1;
    }
    }
}

int iohw__shrink_kind_count(void)
{
    return K_AXES + NAXIS_MEMBERS * NAXES;
}

int iohw__shrink_candidate(const iohw_problem *p, int kind, int j,
                           iohw_problem *q, char *what, size_t n)
{
    int rc;
    *q = *p;
    if (kind < 0 || kind >= iohw__shrink_kind_count() || j < 0)
        return -1;
    if (kind < K_AXES) {
        rc = whole(p, kind, j, q, what, n);
    } else {
        const int member = (kind - K_AXES) / NAXES, a = (kind - K_AXES) % NAXES;
        int64_t min, v;
        if (a >= (int)p->rank)
            return -1;
        int64_t *slot = axis_member(q, member, &min);
        if (!smaller(slot[a], min, j, &v))
            return -1;
        snprintf(what, n, "%s[%c] %" PRId64 " -> %" PRId64, member_names[member],
                 iohw_spatial_letters((int)p->rank)[a], slot[a], v);
        slot[a] = v;
        rc = 1;
    }
    if (rc != 1)
        return rc;
    /* A stated convention (specification section 12) must still resolve
     * to the explicit members, or the step is not taken. */
    if (iohw_problem_finish(q, NULL) != 0 || iohw_convention_check(q, NULL) != 0)
        return 0;
    /* A default layout that is already the layout changes nothing. */
    if (strcmp(q->data_layout, p->data_layout) == 0 &&
        strcmp(q->weight_layout, p->weight_layout) == 0 &&
        (kind == K_XL || kind == K_WL))
        return 0;
    return 1;
}
