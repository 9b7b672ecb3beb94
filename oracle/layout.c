/*
 * oracle/layout.c - layout letters (specification section 2): validation,
 * shapes, and permutation between a layout and the canonical order.
 *
 * Definitions:
 *   rank R       1, 2 or 3; spatial letters "W", "HW", "DHW".
 *   data layout  a permutation of N, C and the R spatial letters.
 *                x: N = batch, C = in_channels,  spatial = in_size;
 *                y: N = batch, C = out_channels, spatial = out_size.
 *   weight       a permutation of I, O and the spatial letters
 *   layout       (I = C_in, O = Mg), or of G, I, O and the spatial
 *                letters (G = groups, I = Cg, O = Mg); spatial = kernel.
 *   memory       row-major in the layout's letter order: the last letter
 *                has stride 1, letter j has stride shape[j+1]*stride[j+1].
 *   canonical    data N, C, spatial; weight G, I (Cg), O (Mg), spatial.
 *                Without a G letter the layout's I axis (extent C_in,
 *                stride sI) gives canonical G the stride Cg*sI and
 *                canonical I the stride sI, so the canonical weight is
 *                exactly the semantic w[C_in][Mg][K...].
 *
 * The copies walk the canonical index as an odometer: the innermost
 * canonical axis is one strided row, the outer axes advance the layout
 * offset by adding and subtracting strides (no division per element).
 */
#include "oracle/layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "oracle/problem.h"

enum { KIND_DATA = 0, KIND_WEIGHT = 1 };

/* Longest part of a layout string quoted in a message. */
#define QUOTE_MAX 16

static const char *kind_name(int kind)
{
    return kind == KIND_DATA ? "data" : "weight";
}

/* The layout as it appears in a message: at most QUOTE_MAX characters,
 * anything unprintable shown as '?', "..." when cut. */
static void quote_layout(const char *layout, char *out, size_t n)
{
    size_t i;
    size_t len = strlen(layout);
    size_t shown = len < QUOTE_MAX ? len : QUOTE_MAX;

    for (i = 0; i < shown && i + 1 < n; i++) {
        unsigned char c = (unsigned char)layout[i];
        out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    out[i] = '\0';
    if (len > shown && i + 4 <= n)
        memcpy(out + i, "...", 4);
}

/* "<kind> layout '<layout>' is not valid for rank <R>: <reason>" */
static int layout_fail(iohw_error *err, int kind, const char *layout, int rank,
                       const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int layout_fail(iohw_error *err, int kind, const char *layout, int rank,
                       const char *fmt, ...)
{
    char quoted[QUOTE_MAX + 4];
    char reason[256];
    va_list ap;

    quote_layout(layout, quoted, sizeof quoted);
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return iohw_error_set(err, "%s layout '%s' is not valid for rank %d: %s",
                          kind_name(kind), quoted, rank, reason);
}

/* Checks one layout string; kind is KIND_DATA or KIND_WEIGHT. */
static int check_layout(const char *layout, int rank, int kind, iohw_error *err)
{
    const char *spatial;
    const char *required;
    char need[8];
    int seen[26] = {0};
    size_t i;

    /* Arguments. */
    if (layout == NULL)
        return iohw_error_set(err, "%s layout is missing (NULL)", kind_name(kind));
    spatial = iohw_spatial_letters(rank);
    if (spatial == NULL)
        return layout_fail(err, kind, layout, rank, "rank must be 1, 2 or 3");
    if (layout[0] == '\0')
        return layout_fail(err, kind, layout, rank, "the layout is empty");

    /* Every character must be an allowed, not yet seen letter.  A string
     * that is too long always repeats a letter or holds a foreign one. */
    for (i = 0; layout[i] != '\0'; i++) {
        const char c = layout[i];
        const unsigned char uc = (unsigned char)c;

        if (c >= 'a' && c <= 'z')
            return layout_fail(err, kind, layout, rank,
                               "letter '%c' is lower case (layout letters are "
                               "upper case)", c);
        if (c < 'A' || c > 'Z') {
            if (uc >= 0x20 && uc < 0x7f)
                return layout_fail(err, kind, layout, rank,
                                   "character '%c' is not a layout letter", c);
            return layout_fail(err, kind, layout, rank,
                               "character 0x%02x is not a layout letter", uc);
        }
        if (c == 'D' || c == 'H' || c == 'W') {
            if (strchr(spatial, c) == NULL)
                return layout_fail(err, kind, layout, rank,
                                   "letter '%c' is not a rank-%d axis (the "
                                   "spatial letters are %s)", c, rank, spatial);
        } else if (kind == KIND_DATA) {
            if (c == 'G' || c == 'I' || c == 'O')
                return layout_fail(err, kind, layout, rank,
                                   "letter '%c' belongs in weight layouts, "
                                   "not data layouts", c);
            if (c != 'N' && c != 'C')
                return layout_fail(err, kind, layout, rank,
                                   "unknown letter '%c' (a data layout uses "
                                   "N, C and %s)", c, spatial);
        } else {
            if (c == 'N' || c == 'C')
                return layout_fail(err, kind, layout, rank,
                                   "letter '%c' belongs in data layouts, "
                                   "not weight layouts", c);
            if (c != 'G' && c != 'I' && c != 'O')
                return layout_fail(err, kind, layout, rank,
                                   "unknown letter '%c' (a weight layout uses "
                                   "I, O, %s and optionally G)", c, spatial);
        }
        if (seen[c - 'A'])
            return layout_fail(err, kind, layout, rank,
                               "letter '%c' appears more than once", c);
        seen[c - 'A'] = 1;
    }

    /* Every required letter must be there (G is optional). */
    required = kind == KIND_DATA ? "NC" : "IO";
    snprintf(need, sizeof need, "%s%s", required, spatial);
    for (i = 0; need[i] != '\0'; i++) {
        if (!seen[need[i] - 'A'])
            return layout_fail(err, kind, layout, rank,
                               "letter '%c' is missing", need[i]);
    }
    return 0;
}

int iohw_layout_check_data(const char *layout, int rank, iohw_error *err)
{
    return check_layout(layout, rank, KIND_DATA, err);
}

int iohw_layout_check_weight(const char *layout, int rank, iohw_error *err)
{
    return check_layout(layout, rank, KIND_WEIGHT, err);
}

int iohw_layout_has_groups(const char *weight_layout)
{
    return weight_layout != NULL && strchr(weight_layout, 'G') != NULL;
}

/* head + the rank's spatial letters, or "" for a rank outside 1..3. */
static void default_layout(int rank, const char *head, char *buf)
{
    const char *spatial = iohw_spatial_letters(rank);

    if (buf == NULL)
        return;
    if (spatial == NULL) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, 16, "%s%s", head, spatial);
}

void iohw_layout_default_data(int rank, char *buf)
{
    default_layout(rank, "NC", buf);
}

void iohw_layout_default_weight(int rank, char *buf)
{
    default_layout(rank, "IO", buf);
}

/* Checks an extent of the problem. */
static int check_extent(int64_t v, const char *name, int axis, iohw_error *err)
{
    if (v >= 1)
        return 0;
    if (axis < 0)
        return iohw_error_set(err, "%s = %lld must be >= 1", name, (long long)v);
    return iohw_error_set(err, "%s[%d] = %lld must be >= 1", name, axis,
                          (long long)v);
}

/* Fills m from the layout string and the extent of each letter
 * (extent[letter - 'A']): memory shape and strides, count, and the
 * canonical shape and strides for the canonical letters `canon`.  A letter
 * of `canon` that the layout lacks (only G, for a weight without G) takes
 * the stride of I times the canonical I extent, which is the stride of
 * the group block inside the full-width I axis. */
static int fill_map(const char *layout, const int64_t *extent, const char *canon,
                    const int64_t *canon_extent, iohw_layout_map *m,
                    iohw_error *err)
{
    int64_t stride_of[26] = {0};
    int ndim = (int)strlen(layout);
    int ncanon = (int)strlen(canon);
    int64_t count = 1;
    int j;

    memset(m, 0, sizeof *m);
    m->ndim = ndim;
    memcpy(m->letters, layout, (size_t)ndim + 1);

    /* Memory shape and element count (checked against overflow). */
    for (j = 0; j < ndim; j++) {
        m->shape[j] = extent[layout[j] - 'A'];
        if (count > INT64_MAX / m->shape[j])
            return iohw_error_set(err, "layout '%s': the tensor has more than "
                                  "2^63 elements", layout);
        count *= m->shape[j];
    }
    m->count = count;

    /* Row-major strides of the layout's letters. */
    {
        int64_t s = 1;
        for (j = ndim - 1; j >= 0; j--) {
            stride_of[layout[j] - 'A'] = s;
            s *= m->shape[j];
        }
    }

    /* Canonical shape and strides. */
    m->ncanon = ncanon;
    for (j = 0; j < ncanon; j++) {
        const int l = canon[j] - 'A';
        m->canon_shape[j] = canon_extent[l];
        if (strchr(layout, canon[j]) != NULL)
            m->canon_stride[j] = stride_of[l];
        else
            m->canon_stride[j] = canon_extent['I' - 'A'] * stride_of['I' - 'A'];
    }
    return 0;
}

/* Common checks of a problem handed to the map functions. */
static int check_problem(const iohw_problem *p, iohw_layout_map *m,
                         iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    if (m == NULL)
        return iohw_error_set(err, "layout map is NULL");
    if (p->rank < 1 || p->rank > 3)
        return iohw_error_set(err, "rank = %u must be 1, 2 or 3",
                              (unsigned)p->rank);
    if (check_extent(p->batch, "batch", -1, err) != 0 ||
        check_extent(p->in_channels, "in_channels", -1, err) != 0 ||
        check_extent(p->out_channels, "out_channels", -1, err) != 0 ||
        check_extent(p->groups, "groups", -1, err) != 0)
        return -1;
    return 0;
}

int iohw_layout_data_map_as(const iohw_problem *p, int output,
                            const char *layout, iohw_layout_map *m,
                            iohw_error *err)
{
    int64_t extent[26] = {0};
    const char *spatial;
    const int64_t *size;
    const char *size_name;
    char canon[8];
    int rank, a;

    /* Arguments, in order. */
    if (check_problem(p, m, err) != 0)
        return -1;
    if (output != 0 && output != 1)
        return iohw_error_set(err, "output = %d must be 0 (x) or 1 (y)", output);
    rank = (int)p->rank;
    if (iohw_layout_check_data(layout, rank, err) != 0)
        return -1;
    size = output ? p->out_size : p->in_size;
    size_name = output ? "out_size" : "in_size";
    for (a = 0; a < rank; a++) {
        if (check_extent(size[a], size_name, a, err) != 0)
            return -1;
    }

    /* Extent of each letter. */
    spatial = iohw_spatial_letters(rank);
    extent['N' - 'A'] = p->batch;
    extent['C' - 'A'] = output ? p->out_channels : p->in_channels;
    for (a = 0; a < rank; a++)
        extent[spatial[a] - 'A'] = size[a];

    snprintf(canon, sizeof canon, "NC%s", spatial);
    return fill_map(layout, extent, canon, extent, m, err);
}

int iohw_layout_weight_map_as(const iohw_problem *p, const char *layout,
                              iohw_layout_map *m, iohw_error *err)
{
    int64_t extent[26] = {0};
    int64_t canon_extent[26] = {0};
    const char *spatial;
    char canon[8];
    int64_t G, Cg, Mg;
    int rank, a;

    /* Arguments, in order. */
    if (check_problem(p, m, err) != 0)
        return -1;
    rank = (int)p->rank;
    if (iohw_layout_check_weight(layout, rank, err) != 0)
        return -1;
    G = p->groups;
    if (p->in_channels % G != 0)
        return iohw_error_set(err, "groups = %lld does not divide in_channels "
                              "= %lld", (long long)G, (long long)p->in_channels);
    if (p->out_channels % G != 0)
        return iohw_error_set(err, "groups = %lld does not divide out_channels "
                              "= %lld", (long long)G, (long long)p->out_channels);
    for (a = 0; a < rank; a++) {
        if (check_extent(p->kernel[a], "kernel", a, err) != 0)
            return -1;
    }
    Cg = p->in_channels / G;
    Mg = p->out_channels / G;

    /* Extent of each letter, in the layout and in the canonical order. */
    spatial = iohw_spatial_letters(rank);
    extent['G' - 'A'] = G;
    extent['I' - 'A'] = iohw_layout_has_groups(layout) ? Cg : p->in_channels;
    extent['O' - 'A'] = Mg;
    canon_extent['G' - 'A'] = G;
    canon_extent['I' - 'A'] = Cg;
    canon_extent['O' - 'A'] = Mg;
    for (a = 0; a < rank; a++) {
        extent[spatial[a] - 'A'] = p->kernel[a];
        canon_extent[spatial[a] - 'A'] = p->kernel[a];
    }

    snprintf(canon, sizeof canon, "GIO%s", spatial);
    return fill_map(layout, extent, canon, canon_extent, m, err);
}

int iohw_layout_data_map(const iohw_problem *p, int output, iohw_layout_map *m,
                         iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    return iohw_layout_data_map_as(p, output, p->data_layout, m, err);
}

int iohw_layout_weight_map(const iohw_problem *p, iohw_layout_map *m,
                           iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    return iohw_layout_weight_map_as(p, p->weight_layout, m, err);
}

/* n elements from s (stride ss elements) to d (stride ds elements). */
static void copy_row(size_t elem, int64_t n, unsigned char *d, int64_t ds,
                     const unsigned char *s, int64_t ss)
{
    const int64_t db = ds * (int64_t)elem;
    const int64_t sb = ss * (int64_t)elem;
    int64_t j;

    if (ds == 1 && ss == 1) {
        memcpy(d, s, (size_t)n * elem);
        return;
    }
    switch (elem) {
    case 1:
        for (j = 0; j < n; j++)
            d[j * db] = s[j * sb];
        break;
    case 2:
        for (j = 0; j < n; j++)
            memcpy(d + j * db, s + j * sb, 2);
        break;
    case 4:
        for (j = 0; j < n; j++)
            memcpy(d + j * db, s + j * sb, 4);
        break;
    case 8:
        for (j = 0; j < n; j++)
            memcpy(d + j * db, s + j * sb, 8);
        break;
    default:
        break;
    }
}

/* The odometer over the canonical index; to_canon selects the direction. */
static void permute(const iohw_layout_map *m, size_t elem, const void *src,
                    void *dst, int to_canon)
{
    int64_t idx[IOHW_LAYOUT_MAX_DIMS] = {0};
    const unsigned char *s = src;
    unsigned char *d = dst;
    int64_t last, row_len, row_stride, rows, r, off;
    int a;

    /* Quick return if possible. */
    if (m == NULL || src == NULL || dst == NULL || m->count <= 0)
        return;
    if (m->ncanon < 1 || m->ncanon > IOHW_LAYOUT_MAX_DIMS)
        return;
    if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
        return;

    last = m->ncanon - 1;
    row_len = m->canon_shape[last];
    row_stride = m->canon_stride[last];
    rows = m->count / row_len;

    /* One canonical row at a time; off is the layout offset of its start. */
    off = 0;
    for (r = 0; r < rows; r++) {
        const int64_t canon_off = r * row_len;
        if (to_canon)
            copy_row(elem, row_len, d + canon_off * (int64_t)elem, 1,
                     s + off * (int64_t)elem, row_stride);
        else
            copy_row(elem, row_len, d + off * (int64_t)elem, row_stride,
                     s + canon_off * (int64_t)elem, 1);

        /* Advance the outer canonical axes. */
        for (a = (int)last - 1; a >= 0; a--) {
            idx[a]++;
            off += m->canon_stride[a];
            if (idx[a] < m->canon_shape[a])
                break;
            off -= m->canon_stride[a] * m->canon_shape[a];
            idx[a] = 0;
        }
    }
}

void iohw_layout_to_canonical(const iohw_layout_map *m, size_t elem_size,
                              const void *src, void *dst)
{
    permute(m, elem_size, src, dst, 1);
}

void iohw_layout_from_canonical(const iohw_layout_map *m, size_t elem_size,
                                const void *src, void *dst)
{
    permute(m, elem_size, src, dst, 0);
}

int64_t iohw_layout_offset(const iohw_layout_map *m, const int64_t *canon_index)
{
    int64_t off = 0;
    int a;

    if (m == NULL || canon_index == NULL)
        return -1;
    for (a = 0; a < m->ncanon; a++)
        off += canon_index[a] * m->canon_stride[a];
    return off;
}
