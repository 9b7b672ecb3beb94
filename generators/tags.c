/*
 * generators/tags.c - iohw_problem_tags: the tags a case carries, derived
 * from its problem and fill, so suites can be filtered and reports grouped.
 *
 * Tags, in this order (a tag is present only when its condition holds):
 *   1d, 2d, 3d         spatial rank (always one of them)
 *   f32 f64 f16 bf16   the dtype (always)
 *   fill-<name>        the fill, e.g. fill-exact, fill-special (always,
 *                      when fill is not NULL or empty)
 *   dir-bwd_d dir-bwd_w  a backward problem's direction (specification
 *                      section 13); a forward problem has no dir- tag
 *   batch              N > 1
 *   grouped            G > 1
 *   depthwise          G > 1 and G == C_in (one input channel per group)
 *   strided            some stride > 1
 *   dilated            some dilation > 1
 *   padded             some pad_begin or pad_end > 0
 *   asym-pad           some axis with pad_begin != pad_end
 *   out-pad            some output_padding > 0
 *   op-beyond-limit    some output_padding >= max(stride, dilation)
 *   bias               has_bias
 *   anisotropic        rank > 1 and in_size, kernel, stride, dilation, pads
 *                      or output_padding differ between axes
 *   channels-last      C is not the second letter of the data layout
 *   weight-grouped     the weight layout has a G axis
 *   weight-not-io      the weight layout, without G, does not start "IO"
 *   conv-<name>        a stated framework convention (specification section
 *                      12), e.g. conv-onnx, conv-tf
 *   auto_pad-<name>    its auto_pad, e.g. auto_pad-same_upper
 *   out-shape          it requests an output shape
 */
#include "generators/generators.h"

#include <stdio.h>
#include <string.h>

#include "oracle/convention.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

typedef struct tag_buf {
    char *buf;
    size_t n;
    size_t len;
    int overflow;
} tag_buf;

static void add(tag_buf *t, const char *tag, const char *suffix)
{
    size_t need = (t->len > 0 ? 1 : 0) + strlen(tag) + strlen(suffix);
    if (t->overflow || t->len + need + 1 > t->n) {
        t->overflow = 1;
        return;
    }
    if (t->len > 0)
        t->buf[t->len++] = ',';
    memcpy(t->buf + t->len, tag, strlen(tag));
    t->len += strlen(tag);
    memcpy(t->buf + t->len, suffix, strlen(suffix));
    t->len += strlen(suffix);
    t->buf[t->len] = '\0';
}

/* 1 when any of the first rank entries is > min. */
static int any_above(const int64_t *v, uint32_t rank, int64_t min)
{
    for (uint32_t a = 0; a < rank; a++)
        if (v[a] > min)
            return 1;
    return 0;
}

/* 1 when the first rank entries are not all equal. */
static int differ(const int64_t *v, uint32_t rank)
{
    for (uint32_t a = 1; a < rank; a++)
        if (v[a] != v[0])
            return 1;
    return 0;
}

/* A quantized problem's (specification section 11.4): quant, the rounding,
 * w- and y- with their types, per-channel, m-fixed. */
static void quant_tags(tag_buf *t, const iohw_problem *p)
{
    add(t, "quant", "");
    if (p->rounding != 0)
        add(t, iohw_quant_rounding_name(p->rounding), "");
    add(t, "w-", iohw_dtype_name(iohw_problem_w_dtype(p)));
    add(t, "y-", iohw_dtype_name(iohw_problem_y_dtype(p)));
    if (p->per_channel)
        add(t, "per-channel", "");
    if (p->m_form == IOHW_QM_FIXED)
        add(t, "m-fixed", "");
}

int iohw_problem_tags(const iohw_problem *p, const char *fill, char *buf,
                      size_t n)
{
    tag_buf t = {buf, n, 0, 0};
    int asym = 0;
    int out_limit = 0;

    if (buf == NULL || n == 0)
        return -1;
    buf[0] = '\0';
    if (p == NULL)
        return -1;

    const uint32_t R = p->rank <= 3 ? p->rank : 3;  /* array bound */
    char rank_tag[3] = {(char)('0' + R), 'd', '\0'};

    add(&t, rank_tag, "");
    add(&t, iohw_dtype_name(p->dtype), "");
    if (fill != NULL && fill[0] != '\0')
        add(&t, "fill-", fill);
    if (p->direction == IOHW_DIR_BWD_D)
        add(&t, "dir-bwd_d", "");
    else if (p->direction == IOHW_DIR_BWD_W)
        add(&t, "dir-bwd_w", "");
    if (p->batch > 1)
        add(&t, "batch", "");
    if (p->groups > 1)
        add(&t, "grouped", "");
    if (p->groups > 1 && p->groups == p->in_channels)
        add(&t, "depthwise", "");
    if (any_above(p->stride, R, 1))
        add(&t, "strided", "");
    if (any_above(p->dilation, R, 1))
        add(&t, "dilated", "");
    if (any_above(p->pad_begin, R, 0) || any_above(p->pad_end, R, 0))
        add(&t, "padded", "");
    for (uint32_t a = 0; a < R; a++)
        if (p->pad_begin[a] != p->pad_end[a])
            asym = 1;
    if (asym)
        add(&t, "asym-pad", "");
    if (any_above(p->output_padding, R, 0))
        add(&t, "out-pad", "");
    out_limit = iohw_problem_beyond_limit(p);
    if (out_limit)
        add(&t, "op-beyond-limit", "");
    if (p->has_bias)
        add(&t, "bias", "");
    if (R > 1
        && (differ(p->in_size, R) || differ(p->kernel, R) || differ(p->stride, R)
            || differ(p->dilation, R) || differ(p->pad_begin, R)
            || differ(p->pad_end, R) || differ(p->output_padding, R)))
        add(&t, "anisotropic", "");

    /* Layouts. */
    if (p->data_layout[0] != '\0' && p->data_layout[1] != 'C')
        add(&t, "channels-last", "");
    if (iohw_layout_has_groups(p->weight_layout))
        add(&t, "weight-grouped", "");
    {
        char io[3] = {0, 0, 0};
        int k = 0;
        for (const char *s = p->weight_layout; *s != '\0' && k < 2; s++)
            if (*s != 'G')
                io[k++] = *s;
        if (strcmp(io, "IO") != 0)
            add(&t, "weight-not-io", "");
    }

    /* A stated convention. */
    const char *cv = iohw_convention_name(p->convention);
    const char *ap = iohw_auto_pad_name(p->auto_pad);
    if (cv != NULL && p->convention != IOHW_CONV_NONE)
        add(&t, "conv-", cv);
    if (ap != NULL && p->auto_pad != IOHW_AUTO_PAD_NONE)
        add(&t, "auto_pad-", ap);
    if (p->out_shape[0] > 0)
        add(&t, "out-shape", "");
    if (iohw_problem_is_quant(p))
        quant_tags(&t, p);
    return t.overflow ? -1 : (int)t.len;
}
