/*
 * backends/naive/naive_layout.c - the naive backend's own reading of a
 * problem: extents on three spatial axes (D, H, W) and element strides of
 * x, w and y decoded from the layout strings.
 *
 * Layout strings list axes from the slowest to the fastest varying, so the
 * stride of a letter is the product of the extents of the letters after it.
 * Data letters: N, C and the spatial letters of the rank.  Weight letters:
 * I, O and the spatial letters, or G, I, O and the spatial letters.  In a
 * weight layout without G, I runs over all C_in channels, channel g*Cg + c
 * being group g's channel c, so group g starts Cg I-steps further.
 */
#include <stdio.h>
#include <string.h>

#include "naive.h"

/* Largest element count the naive backend accepts for one tensor. */
#define NAIVE_MAX_ELEMENTS ((int64_t)1 << 40)
/* Largest per-axis parameter: keeps the output-size formula inside int64_t
 * ((2^31 - 1) * 2^31 twice, plus a few 2^31, stays below 2^63). */
#define NAIVE_MAX_PARAM ((int64_t)1 << 31)

static const char SPATIAL[] = "DHW";

/* *acc *= v unless the product passes NAIVE_MAX_ELEMENTS; 0 or -1. */
static int mul_checked(int64_t *acc, int64_t v)
{
    if (v <= 0 || *acc > NAIVE_MAX_ELEMENTS / v)
        return -1;
    *acc *= v;
    return 0;
}

/* Index of a spatial letter among D, H, W, or -1. */
static int spatial_index(char letter)
{
    const char *at = letter != '\0' ? strchr(SPATIAL, letter) : NULL;
    return at != NULL ? (int)(at - SPATIAL) : -1;
}

/* Strides of a data tensor with channel count c and spatial extents sp[3]
 * in the given layout.  Fills *sn, *sc, ssp[3] and *count. */
static int data_strides(const char *layout, int rank, int64_t n, int64_t c,
                        const int64_t sp[3], int64_t *sn, int64_t *sc,
                        int64_t ssp[3], int64_t *count, char *why, size_t wn)
{
    const size_t len = strnlen(layout, 16);
    int seen_n = 0, seen_c = 0, seen_sp[3] = {0, 0, 0};
    int64_t stride = 1;

    if (len != (size_t)(2 + rank)) {
        snprintf(why, wn, "data layout '%.16s' has %zu letters, rank %d "
                 "needs %d", layout, len, rank, 2 + rank);
        return -1;
    }
    for (int j = 0; j < 3; j++)
        ssp[j] = 0;
    for (int pos = (int)len - 1; pos >= 0; pos--) {
        const char letter = layout[pos];
        const int j = spatial_index(letter);
        int64_t extent;
        if (letter == 'N' && !seen_n) {
            seen_n = 1;
            *sn = stride;
            extent = n;
        } else if (letter == 'C' && !seen_c) {
            seen_c = 1;
            *sc = stride;
            extent = c;
        } else if (j >= 3 - rank && !seen_sp[j]) {
            seen_sp[j] = 1;
            ssp[j] = stride;
            extent = sp[j];
        } else {
            snprintf(why, wn, "data layout '%.16s': letter '%c' is unknown, "
                     "repeated or not of rank %d", layout, letter, rank);
            return -1;
        }
        if (mul_checked(&stride, extent) != 0) {
            snprintf(why, wn, "data layout '%.16s': tensor too large", layout);
            return -1;
        }
    }
    *count = stride;
    return 0;
}

/* Strides of the weight in its layout. */
static int weight_strides(const iohw_problem *p, naive_geometry *g, char *why,
                          size_t wn)
{
    const char *layout = p->weight_layout;
    const int rank = (int)p->rank;
    const size_t len = strnlen(layout, 16);
    const int grouped = memchr(layout, 'G', len) != NULL;
    int seen_g = 0, seen_i = 0, seen_o = 0, seen_k[3] = {0, 0, 0};
    int64_t stride = 1;

    if (len != (size_t)(2 + grouped + rank)) {
        snprintf(why, wn, "weight layout '%.16s' has %zu letters, rank %d "
                 "needs %d", layout, len, rank, 2 + grouped + rank);
        return -1;
    }
    for (int j = 0; j < 3; j++)
        g->w_k[j] = 0;
    for (int pos = (int)len - 1; pos >= 0; pos--) {
        const char letter = layout[pos];
        const int j = spatial_index(letter);
        int64_t extent;
        if (letter == 'G' && !seen_g) {
            seen_g = 1;
            g->w_g = stride;
            extent = g->groups;
        } else if (letter == 'I' && !seen_i) {
            seen_i = 1;
            g->w_i = stride;
            extent = grouped ? g->cg : g->cin;
        } else if (letter == 'O' && !seen_o) {
            seen_o = 1;
            g->w_o = stride;
            extent = g->mg;
        } else if (j >= 3 - rank && !seen_k[j]) {
            seen_k[j] = 1;
            g->w_k[j] = stride;
            extent = g->k[j];
        } else {
            snprintf(why, wn, "weight layout '%.16s': letter '%c' is "
                     "unknown, repeated or not of rank %d", layout, letter,
                     rank);
            return -1;
        }
        if (mul_checked(&stride, extent) != 0) {
            snprintf(why, wn, "weight layout '%.16s': tensor too large",
                     layout);
            return -1;
        }
    }
    if (!grouped)
        g->w_g = g->cg * g->w_i;
    g->w_count = stride;
    return 0;
}

int iohw__naive_geometry(const iohw_problem *p, naive_geometry *g, char *why,
                         size_t n)
{
    /* Test the arguments. */
    if (p == NULL) {
        snprintf(why, n, "problem is NULL");
        return -1;
    }
    if (p->struct_size < sizeof(iohw_problem)) {
        snprintf(why, n, "problem struct_size %u is too small",
                 (unsigned)p->struct_size);
        return -1;
    }
    const int rank = (int)p->rank;
    if (p->rank < 1 || p->rank > 3) {
        snprintf(why, n, "rank %u is not 1, 2 or 3", (unsigned)p->rank);
        return -1;
    }
    if (p->batch < 1 || p->in_channels < 1 || p->out_channels < 1 ||
        p->groups < 1) {
        snprintf(why, n, "batch, channels and groups must be >= 1");
        return -1;
    }
    if (p->in_channels % p->groups != 0 || p->out_channels % p->groups != 0) {
        snprintf(why, n, "groups %lld does not divide the channel counts",
                 (long long)p->groups);
        return -1;
    }
    if (p->dtype != IOHW_F32 && p->dtype != IOHW_F64 &&
        p->dtype != IOHW_F16 && p->dtype != IOHW_BF16) {
        snprintf(why, n, "dtype %d is unknown", (int)p->dtype);
        return -1;
    }
    if (p->has_bias != 0 && p->has_bias != 1) {
        snprintf(why, n, "has_bias is %d", (int)p->has_bias);
        return -1;
    }

    /* Channels, then the spatial axes (missing ones are trivial). */
    g->n = p->batch;
    g->cin = p->in_channels;
    g->cout = p->out_channels;
    g->groups = p->groups;
    g->cg = g->cin / g->groups;
    g->mg = g->cout / g->groups;
    for (int j = 0; j < 3; j++) {
        const int a = j - (3 - rank); /* the problem's axis, or < 0 */
        if (a < 0) {
            g->in[j] = g->k[j] = g->s[j] = g->d[j] = g->out[j] = 1;
            g->pb[j] = 0;
            continue;
        }
        const int64_t in = p->in_size[a], k = p->kernel[a];
        const int64_t s = p->stride[a], d = p->dilation[a];
        const int64_t pb = p->pad_begin[a], pe = p->pad_end[a];
        const int64_t op = p->output_padding[a];
        if (in < 1 || k < 1 || s < 1 || d < 1 || pb < 0 || pe < 0 || op < 0 ||
            in > NAIVE_MAX_PARAM || k > NAIVE_MAX_PARAM ||
            s > NAIVE_MAX_PARAM || d > NAIVE_MAX_PARAM ||
            pb > NAIVE_MAX_PARAM || pe > NAIVE_MAX_PARAM ||
            op > NAIVE_MAX_PARAM) {
            snprintf(why, n, "axis %d: a size, kernel, stride, dilation, "
                     "padding or output_padding is out of range", a);
            return -1;
        }
        const int64_t out = (in - 1) * s - pb - pe + d * (k - 1) + op + 1;
        if (out < 1 || out != p->out_size[a]) {
            snprintf(why, n, "axis %d: out_size %lld, but the formula gives "
                     "%lld", a, (long long)p->out_size[a], (long long)out);
            return -1;
        }
        g->in[j] = in;
        g->k[j] = k;
        g->s[j] = s;
        g->d[j] = d;
        g->pb[j] = pb;
        g->out[j] = out;
    }

    /* Memory strides from the layout strings. */
    if (memchr(p->data_layout, '\0', sizeof p->data_layout) == NULL ||
        memchr(p->weight_layout, '\0', sizeof p->weight_layout) == NULL) {
        snprintf(why, n, "a layout string is not NUL-terminated");
        return -1;
    }
    if (data_strides(p->data_layout, rank, g->n, g->cin, g->in, &g->x_n,
                     &g->x_c, g->x_sp, &g->x_count, why, n) != 0)
        return -1;
    if (data_strides(p->data_layout, rank, g->n, g->cout, g->out, &g->y_n,
                     &g->y_c, g->y_sp, &g->y_count, why, n) != 0)
        return -1;
    return weight_strides(p, g, why, n);
}
