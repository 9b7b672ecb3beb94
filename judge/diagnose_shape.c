/*
 * judge/diagnose_shape.c - the misread problems behind an output of the
 * wrong shape (diagnose_shape.h, specification section 3.5); for a
 * quantized case (section 11) with the shape returned, the values compared
 * exactly with the misread problem's oracle.
 */
#include "judge/diagnose_shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/compare.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* One misreading: it changes q (a copy of the problem) in place and
 * returns 1 when it keeps the case's x, w and bias as the inputs. */
typedef int misread_fn(iohw_problem *q);

#define EACH_AXIS(q, a) for (uint32_t a = 0; a < (q)->rank; a++)

static int dil_ignored(iohw_problem *q)
{
    EACH_AXIS(q, a) q->dilation[a] = 1;
    return 1;
}

static int dil_zero_based(iohw_problem *q)
{
    EACH_AXIS(q, a) q->dilation[a] += 1;
    return 1;
}

static int op_ignored(iohw_problem *q)
{
    EACH_AXIS(q, a) q->output_padding[a] = 0;
    return 1;
}

static int op_twice(iohw_problem *q)
{
    EACH_AXIS(q, a) q->output_padding[a] *= 2;
    return 1;
}

/* output_padding added at the beginning as well as at the end: the crop
 * starts op earlier (pad_begin - op). */
static int op_both_ends(iohw_problem *q)
{
    EACH_AXIS(q, a) q->pad_begin[a] -= q->output_padding[a];
    return 1;
}

static int pad_begin_only(iohw_problem *q)
{
    EACH_AXIS(q, a) q->pad_end[a] = 0;
    return 1;
}

static int pad_end_only(iohw_problem *q)
{
    EACH_AXIS(q, a) q->pad_begin[a] = 0;
    return 1;
}

static int pad_ignored(iohw_problem *q)
{
    EACH_AXIS(q, a) q->pad_begin[a] = q->pad_end[a] = 0;
    return 1;
}

static int pad_doubled(iohw_problem *q)
{
    EACH_AXIS(q, a) {
        q->pad_begin[a] *= 2;
        q->pad_end[a] *= 2;
    }
    return 1;
}

static int stride_ignored(iohw_problem *q)
{
    EACH_AXIS(q, a) q->stride[a] = 1;
    return 1;
}

static void reverse(int64_t *v, uint32_t rank)
{
    for (uint32_t a = 0; a < rank / 2; a++) {
        int64_t t = v[a];
        v[a] = v[rank - 1 - a];
        v[rank - 1 - a] = t;
    }
}

/* Each axis given the stride of its mirror axis (W's for H and the
 * reverse). */
static int stride_exchanged(iohw_problem *q)
{
    reverse(q->stride, q->rank);
    return 1;
}

/* The whole problem's spatial axes reversed: the output's are too, and x
 * is read along the other axes (no values: another x). */
static int axes_exchanged(iohw_problem *q)
{
    reverse(q->in_size, q->rank);
    reverse(q->kernel, q->rank);
    reverse(q->stride, q->rank);
    reverse(q->dilation, q->rank);
    reverse(q->pad_begin, q->rank);
    reverse(q->pad_end, q->rank);
    reverse(q->output_padding, q->rank);
    return 0;
}

static int channels_c_in(iohw_problem *q)
{
    q->out_channels = q->in_channels;
    return 0;
}

static int channels_c_in_g(iohw_problem *q)
{
    q->out_channels = q->in_channels / q->groups;
    return 0;
}

static int channels_per_group(iohw_problem *q)
{
    q->out_channels = q->out_channels / q->groups;
    return 0;
}

static int kernel_minus_one(iohw_problem *q)
{
    EACH_AXIS(q, a) if (q->kernel[a] > 1) q->kernel[a] -= 1;
    return 0;
}

typedef struct misreading {
    const char *name;
    misread_fn *apply;
} misreading;

/* The names follow the float misreadings of diagnose.h where they are the
 * same bug. */
static const misreading LIST[] = {
    {"dilation ignored", dil_ignored},
    {"dilation taken as 0-based (d+1)", dil_zero_based},
    {"output_padding ignored", op_ignored},
    {"output_padding applied twice", op_twice},
    {"output_padding at both ends", op_both_ends},
    {"padding at the beginning only", pad_begin_only},
    {"padding at the end only", pad_end_only},
    {"padding ignored", pad_ignored},
    {"padding doubled", pad_doubled},
    {"stride ignored", stride_ignored},
    {"strides of the spatial axes exchanged", stride_exchanged},
    {"spatial axes exchanged", axes_exchanged},
    {"I and O channel counts exchanged (C = C_in)", channels_c_in},
    {"output channels counted as C_in/G", channels_c_in_g},
    {"groups ignored in the channel count (C = C_out/G)", channels_per_group},
    {"kernel size taken as k-1", kernel_minus_one},
};
#define LIST_COUNT ((int)(sizeof LIST / sizeof LIST[0]))

int iohw_diagnose_shape_count(void)
{
    return LIST_COUNT;
}

const char *iohw_diagnose_shape_name(int i)
{
    return i >= 0 && i < LIST_COUNT ? LIST[i].name : NULL;
}

/* The output's extents in the data layout's order; 0, or -1. */
static int out_dims(const iohw_problem *p, int64_t *dims, int *nd,
                    int64_t *count)
{
    iohw_layout_map m;
    if (iohw_layout_data_map(p, 1, &m, NULL) != 0)
        return -1;
    memcpy(dims, m.shape, sizeof m.shape);
    *nd = m.ndim;
    *count = m.count;
    return 0;
}

static int same_dims(const int64_t *a, int na, const int64_t *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

int iohw_diagnose_shape_problem(const iohw_problem *p, int i, iohw_problem *q,
                                int *values)
{
    int64_t d0[IOHW_LAYOUT_MAX_DIMS], d1[IOHW_LAYOUT_MAX_DIMS], n0, n1;
    int nd0, nd1;
    if (i < 0 || i >= LIST_COUNT || p->direction != IOHW_DIR_FWD)
        return 0;
    *q = *p;
    *values = LIST[i].apply(q);
    if (q->out_channels < 1)
        return 0;
    for (uint32_t a = 0; a < q->rank; a++) {
        q->out_size[a] = iohw_problem_out_axis(q, a);
        if (q->out_size[a] < 1)
            return 0;
    }
    if (out_dims(p, d0, &nd0, &n0) != 0 || out_dims(q, d1, &nd1, &n1) != 0)
        return 0;
    /* A misreading that changes nothing here, or not the shape, is for
     * the value diagnosis (diagnose.h). */
    if (same_dims(d0, nd0, d1, nd1))
        return 0;
    if (*values && iohw_problem_validate(q, NULL) != 0)
        *values = 0;
    return 1;
}

/* "1x1x4x4" */
static void dims_text(const int64_t *d, int nd, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < nd && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%lld", i ? "x" : "",
                                (long long)d[i]);
}

/* --- the returned values ------------------------------------------------ */

/* The count of y's leading elements before a tail (one element at least)
 * still holding the sentinel; 0 when y ends with no such tail.  The
 * sentinel is sentinel_bits, or the signalling NaN y's last element
 * holds. */
static int64_t written_head(const iohw_case *c, const void *y,
                            const void *sentinel_bits)
{
    const iohw_dtype dt = c->p.dtype;
    const size_t es = iohw_dtype_size(dt);
    const int64_t n = iohw_problem_y_count(&c->p);
    const unsigned char *e = (const unsigned char *)y;
    const unsigned char *s = sentinel_bits;
    if (n < 1)
        return 0;
    if (s == NULL) {
        s = e + (size_t)(n - 1) * es;
        uint64_t bits = 0;
        for (size_t i = 0; i < es; i++)
            bits |= (uint64_t)s[i] << (8 * i); /* x86-64: little-endian */
        const int q = dt == IOHW_F16 ? 9 : dt == IOHW_BF16 ? 6
                      : dt == IOHW_F64 ? 51 : 22;
        if (!isnan(iohw_dtype_load(dt, y, (size_t)(n - 1))) || ((bits >> q) & 1))
            return 0;            /* not the signalling sentinel */
    }
    int64_t h = n;
    while (h > 0 && memcmp(e + (size_t)(h - 1) * es, s, es) == 0)
        h--;
    return h == n ? 0 : h;
}

/* 1 when the count elements of y hold more than one value. */
static int spread(const iohw_case *c, const void *y, int64_t count)
{
    const size_t es = iohw_dtype_size(iohw_problem_y_dtype(&c->p));
    for (int64_t i = 1; i < count; i++)
        if (memcmp((const char *)y + (size_t)i * es, y, es) != 0)
            return 1;
    return 0;
}

/* --- the sentence ----------------------------------------------------- */

typedef struct found {
    int shape[64], proven[64];
    int nshape, nproven, tried;   /* tried: values compared for some */
} found;

/* Appends "A, or with B" for the listed misreadings to buf at *len. */
static void add_names(char *buf, size_t n, size_t *len, const int *ids, int k)
{
    for (int i = 0; i < k && *len < n; i++) {
        int w = snprintf(buf + *len, n - *len, "%s%s", i ? ", or with " : "",
                         LIST[ids[i]].name);
        *len = w < 0 ? n : *len + (size_t)w;
    }
}

static void sentence(const iohw_case *c, const found *f, const char *got,
                     int64_t head, char *buf, size_t n)
{
    int64_t d[IOHW_LAYOUT_MAX_DIMS], count;
    int nd;
    char want[96];
    size_t len = 0;
    if (out_dims(&c->p, d, &nd, &count) != 0)
        return;
    dims_text(d, nd, want, sizeof want);
    if (f->nproven == 1) {
        if (head > 0)
            snprintf(buf, n, "%s: only the first %lld of %lld elements were "
                     "written, densely, and they are that problem's output "
                     "(%s where %s %s is right)", LIST[f->proven[0]].name,
                     (long long)head, (long long)count, got, want,
                     c->p.data_layout);
        else
            snprintf(buf, n, "%s: the output is %s where %s %s is right, and "
                     "its values match the oracle of that problem",
                     LIST[f->proven[0]].name, got, want, c->p.data_layout);
        return;
    }
    int w = snprintf(buf, n, "the output is %s where %s %s is right; ", got,
                     want, c->p.data_layout);
    len = w < 0 ? n : (size_t)w;
    if (len >= n)
        return;
    if (f->nproven > 1) {
        w = snprintf(buf + len, n - len, "its shape and values are those of "
                     "the problem with ");
        len += w < 0 ? n : (size_t)w;
        if (len < n)
            add_names(buf, n, &len, f->proven, f->nproven);
        return;
    }
    if (f->nshape == 0) {
        snprintf(buf + len, n - len, "no misreading listed gives that shape");
        return;
    }
    w = snprintf(buf + len, n - len, "that is the shape of the problem with ");
    len += w < 0 ? n : (size_t)w;
    if (len < n)
        add_names(buf, n, &len, f->shape, f->nshape);
    if (f->tried && len < n)
        snprintf(buf + len, n - len, "; its values match none of them");
}

/* --- the driver ------------------------------------------------------- */

int iohw_diagnose_shape(const iohw_case *c, const void *y,
                        const void *sentinel_bits, const int64_t *dims,
                        int ndim, char *buf, size_t n)
{
    found f;
    char got[96];
    int64_t head = 0, have = -1;    /* have: elements of y to judge */

    if (buf != NULL && n > 0)
        buf[0] = '\0';
    /* A quantized y has no sentinel to find its head by: its shape must be
     * known (an exec program's OUT.h5). */
    if (buf == NULL || n == 0 || c == NULL || c->p.direction != IOHW_DIR_FWD ||
        (iohw_problem_is_quant(&c->p) && ndim == 0) || ndim < 0 ||
        ndim > IOHW_LAYOUT_MAX_DIMS)
        return IOHW_SHAPE_NONE;
    if (ndim == 0) {
        if (y == NULL || (head = written_head(c, y, sentinel_bits)) < 1)
            return IOHW_SHAPE_NONE;
        have = head;
    } else {
        have = 1;
        for (int i = 0; i < ndim && have >= 0; i++)
            have = dims[i] < 1 || have > IOHW_MAX_ELEMENTS / dims[i]
                       ? -1 : have * dims[i];
        if (y == NULL)
            have = -1;
    }
    if (have > 0 && !spread(c, y, have))
        have = -1;                   /* one value everywhere proves nothing */

    memset(&f, 0, sizeof f);
    for (int i = 0; i < LIST_COUNT; i++) {
        iohw_problem q;
        int64_t d[IOHW_LAYOUT_MAX_DIMS], count;
        int nd, values;
        if (iohw_diagnose_shape_problem(&c->p, i, &q, &values) != 1 ||
            out_dims(&q, d, &nd, &count) != 0)
            continue;
        if (ndim > 0 ? !same_dims(d, nd, dims, ndim) : count != head)
            continue;
        f.shape[f.nshape++] = i;
        if (values && have == count) {
            f.tried = 1;
            if (iohw__shape_values_match(c, &q, y, sentinel_bits) == 1) {
                f.proven[f.nproven++] = i;
                if (ndim == 0)       /* the shape the count stands for */
                    dims_text(d, nd, got, sizeof got);
            }
        }
    }
    if (ndim > 0)
        dims_text(dims, ndim, got, sizeof got);
    else if (f.nproven != 1)
        return IOHW_SHAPE_NONE;      /* a count alone names nothing else */
    sentence(c, &f, got, head, buf, n);
    return f.nproven == 1 ? IOHW_SHAPE_PROVEN : IOHW_SHAPE_FACTS;
}
