/*
 * judge/adapt.c - re-expressing a case in other layouts (see adapt.h).
 *
 * Every tensor goes through the canonical order of oracle/layout.h: from the
 * case's layout to canonical, then from canonical to the new layout.  The
 * numbers are copied bit for bit; nothing is recomputed.
 */
#include "judge/adapt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* --- candidates ---------------------------------------------------------- */

static int add_unique(char (*out)[16], int n, int max, const char *s)
{
    if (n >= max)
        return n;
    for (int i = 0; i < n; i++)
        if (strcmp(out[i], s) == 0)
            return n;
    snprintf(out[n], 16, "%s", s);
    return n + 1;
}

/* Each form: letters before the spatial ones, then letters after. */
typedef const char *const layout_form[2];

static int expand_forms(layout_form *forms, size_t nforms, int rank,
                        char (*out)[16], int max)
{
    const char *sp = iohw_spatial_letters(rank);
    if (sp == NULL || out == NULL || max <= 0)
        return 0;
    int n = 0;
    for (size_t i = 0; i < nforms; i++) {
        char s[16];
        snprintf(s, sizeof s, "%s%s%s", forms[i][0], sp, forms[i][1]);
        n = add_unique(out, n, max, s);
    }
    return n;
}

int iohw_adapt_data_candidates(int rank, char (*out)[16], int max)
{
    static layout_form forms[] = {
        {"NC", ""}, {"N", "C"}, {"C", "N"}, {"CN", ""},
    };
    return expand_forms(forms, sizeof forms / sizeof forms[0], rank, out, max);
}

int iohw_adapt_weight_candidates(int rank, char (*out)[16], int max)
{
    static layout_form forms[] = {
        {"IO", ""}, {"OI", ""}, {"GIO", ""}, {"GOI", ""}, {"", "OI"},
        {"", "IO"}, {"O", "I"}, {"I", "O"}, {"GO", "I"}, {"GI", "O"},
    };
    return expand_forms(forms, sizeof forms / sizeof forms[0], rank, out, max);
}

/* --- one tensor ---------------------------------------------------------- */

/* Copies src (laid out by `from`) into a new buffer laid out by `to`. */
static void *relayout(const iohw_layout_map *from, const iohw_layout_map *to,
                      size_t es, const void *src)
{
    const size_t bytes = (size_t)from->count * es;
    void *canon = malloc(bytes ? bytes : 1);
    void *dst = malloc(bytes ? bytes : 1);
    if (canon == NULL || dst == NULL) {
        free(canon);
        free(dst);
        return NULL;
    }
    iohw_layout_to_canonical(from, es, src, canon);
    iohw_layout_from_canonical(to, es, canon, dst);
    free(canon);
    return dst;
}

static void *copy_bytes(const void *src, size_t bytes)
{
    void *dst = malloc(bytes ? bytes : 1);
    if (dst != NULL)
        memcpy(dst, src, bytes);
    return dst;
}

static char *copy_string(const char *s)
{
    return strdup(s != NULL ? s : "");
}

/* The old and new maps of x, y and w. */
typedef struct maps {
    const iohw_layout_map *xo, *xn, *yo, *yn, *wo, *wn;
} maps;

/* The output's maps and the elements after them copied as they are (db). */
typedef struct out_maps {
    const iohw_layout_map *from, *to;
    int64_t tail;
} out_maps;

static out_maps output_maps(const iohw_problem *p, const maps *m)
{
    out_maps o = {m->yo, m->yn, 0};
    if (p->direction == IOHW_DIR_BWD_D)
        o.from = m->xo, o.to = m->xn;
    else if (p->direction == IOHW_DIR_BWD_W)
        o.from = m->wo, o.to = m->wn, o.tail = iohw_problem_bias_count(p);
    return o;
}

/* The direction's output re-expressed: its tensor through the maps, then
 * the tail (db) copied. */
static void *relayout_out(const out_maps *o, size_t es, const void *src)
{
    const size_t head = (size_t)o->from->count * es, tail = (size_t)o->tail * es;
    char *dst = malloc(head + tail ? head + tail : 1);
    void *t = relayout(o->from, o->to, es, src);
    if (dst == NULL || t == NULL) {
        free(dst);
        free(t);
        return NULL;
    }
    memcpy(dst, t, head);
    memcpy(dst + head, (const char *)src + head, tail);
    free(t);
    return dst;
}

/* --- the case ------------------------------------------------------------ */

int iohw_adapt_case(const iohw_case *c, const char *xl, const char *wl,
                    iohw_case *out, iohw_error *err)
{
    if (c == NULL || out == NULL || xl == NULL || wl == NULL)
        return iohw_error_set(err, "adapt: NULL argument");
    memset(out, 0, sizeof *out);
    /* The problem in the new layouts. */
    iohw_problem q = c->p;
    if (strlen(xl) >= sizeof q.data_layout || strlen(wl) >= sizeof q.weight_layout)
        return iohw_error_set(err, "adapt: layout '%s' / '%s' too long", xl, wl);
    snprintf(q.data_layout, sizeof q.data_layout, "%s", xl);
    snprintf(q.weight_layout, sizeof q.weight_layout, "%s", wl);
    if (iohw_problem_validate(&q, err) != 0)
        return iohw_error_prefix(err, "adapt: case '%s' as %s/%s", c->id, xl, wl);

    /* Maps of every tensor, old and new. */
    iohw_layout_map xo, xn, yo, yn, wo, wn;
    if (iohw_layout_data_map(&c->p, 0, &xo, err) != 0 ||
        iohw_layout_data_map(&q, 0, &xn, err) != 0 ||
        iohw_layout_data_map(&c->p, 1, &yo, err) != 0 ||
        iohw_layout_data_map(&q, 1, &yn, err) != 0 ||
        iohw_layout_weight_map(&c->p, &wo, err) != 0 ||
        iohw_layout_weight_map(&q, &wn, err) != 0)
        return iohw_error_prefix(err, "adapt: case '%s'", c->id);
    /* The direction's output (specification section 13): y like y, dx
     * like x, dw like w followed by db, which no layout changes. */
    const maps m = {&xo, &xn, &yo, &yn, &wo, &wn};
    const out_maps om = output_maps(&c->p, &m);

    /* Attributes, then tensors. */
    *out = *c;
    out->p = q;
    out->tags = copy_string(c->tags);
    out->descriptor = copy_string(c->descriptor);
    out->x = out->w = out->bias = out->y = out->dy = NULL;
    out->y_f64 = out->err_bound = out->requant = NULL;
    /* Element sizes of each tensor: a quantized case's w and y may differ
     * from x, its bias is int32.  The bias and the requant values are
     * indexed by output channel, which no layout changes: copied as they
     * are. */
    const size_t xs = iohw_dtype_size(c->p.dtype);
    const size_t ws = iohw_dtype_size(iohw_problem_w_dtype(&c->p));
    const size_t bs = iohw_dtype_size(iohw_problem_bias_dtype(&c->p));
    const size_t ys = iohw_dtype_size(iohw_problem_y_dtype(&c->p));
    int bad = out->tags == NULL || out->descriptor == NULL;
    if (c->x != NULL)
        bad |= (out->x = relayout(&xo, &xn, xs, c->x)) == NULL;
    if (c->w != NULL)
        bad |= (out->w = relayout(&wo, &wn, ws, c->w)) == NULL;
    if (c->dy != NULL)                 /* dy like y */
        bad |= (out->dy = relayout(&yo, &yn, xs, c->dy)) == NULL;
    if (c->bias != NULL)
        bad |= (out->bias = copy_bytes(c->bias, (size_t)c->p.out_channels * bs)) == NULL;
    if (c->requant != NULL)
        bad |= (out->requant = copy_bytes(c->requant,
                                          iohw_quant_requant_bytes(&c->p))) == NULL;
    if (c->y != NULL)
        bad |= (out->y = relayout_out(&om, ys, c->y)) == NULL;
    if (c->y_f64 != NULL)
        bad |= (out->y_f64 = relayout_out(&om, sizeof(double), c->y_f64)) == NULL;
    if (c->err_bound != NULL)
        bad |= (out->err_bound = relayout_out(&om, sizeof(double), c->err_bound)) == NULL;
    if (bad) {
        iohw_case_free(out);
        return iohw_error_set(err, "adapt: case '%s': out of memory", c->id);
    }
    return 0;
}
