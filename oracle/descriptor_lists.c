/*
 * oracle/descriptor_lists.c - the per-channel descriptor keys of a
 * quantized problem (specification sections 6 and 11.4):
 *   sw      binary32 decimals   s_w, the scales form only
 *   qmul    integers            multipliers in [1, 2^31 - 1], fixed form only
 *   qshift  integers            shifts in [-31, 30], fixed form only
 * each a comma list of one value (every channel) or co values (pc=1), e.g.
 * sw=0.0123,0.0456.  A fill keeps the values stated and chooses the rest.
 */
#include "oracle/descriptor_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One value of a list: the text s[0..len) of entry i (from 1). */
typedef struct entry {
    const token *t;
    const char *key;
    int i;
    const char *s;
    size_t len;
} entry;

static int entry_error(iohw_error *err, const entry *e, const char *what)
{
    const int qlen = e->len > 40 ? 40 : (int)e->len;
    return iohw__desc_tok_error(err, e->t, "%s: value %d '%.*s' %s", e->key, e->i, qlen,
                                e->s, what);
}

/* A positive normal binary32 scale. */
static int parse_float_entry(const entry *e, float *v, iohw_error *err)
{
    char buf[48];
    if (e->len == 0 || e->len >= sizeof buf)
        return entry_error(err, e, "is not a decimal number");
    memcpy(buf, e->s, e->len);
    buf[e->len] = '\0';
    errno = 0;
    char *end;
    const float f = strtof(buf, &end);
    if (*end != '\0' || buf[0] == '+' || buf[0] == ' ')
        return entry_error(err, e, "is not a decimal number");
    if (errno == ERANGE || !isnormal(f) || f <= 0.0f)
        return entry_error(err, e, "must be a positive normal binary32 number "
                           "(not zero, negative, infinite or NaN)");
    *v = f;
    return 0;
}

/* An integer in [lo, hi]. */
static int parse_int_entry(const entry *e, int64_t lo, int64_t hi, int32_t *v,
                           iohw_error *err)
{
    char msg[64];
    int64_t x;
    if (iohw__desc_parse_int(e->t, e->key, e->s, e->len, &x, err) != 0)
        return -1;
    if (x < lo || x > hi) {
        snprintf(msg, sizeof msg, "is outside [%lld, %lld]", (long long)lo, (long long)hi);
        return entry_error(err, e, msg);
    }
    *v = (int32_t)x;
    return 0;
}

/* Counts the values of t (commas + 1), refusing more than the storage. */
static int count_values(const token *t, const char *key, iohw_error *err)
{
    size_t n = 1;
    for (size_t i = 0; i < t->vlen; i++)
        n += t->val[i] == ',';
    if (n > IOHW_DESC_LIST_MAX)
        return iohw__desc_tok_error(err, t, "%s: %zu values, at most %d (one per "
                                    "output channel)", key, n, IOHW_DESC_LIST_MAX);
    return (int)n;
}

/* One list key: k is K_SW, K_QMUL or K_QSHIFT. */
static int parse_list(const token *t, int k, const iohw_problem *p, void *out,
                      int32_t *count, iohw_error *err)
{
    static const char *const NAMES[] = {"sw", "qmul", "qshift"};
    const char *key = NAMES[k - K_SW];
    const int n = count_values(t, key, err);
    if (n < 0)
        return -1;
    if (n != 1 && (n != p->out_channels || !p->per_channel))
        return iohw__desc_tok_error(err, t, "%s: %d values; it takes 1, or co = %lld "
                                    "with pc=1", key, n, (long long)p->out_channels);
    const char *s = t->val, *end = t->val + t->vlen;
    for (int i = 0; i < n; i++) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        const char *stop = comma != NULL ? comma : end;
        const entry e = {t, key, i + 1, s, (size_t)(stop - s)};
        int rc = k == K_SW     ? parse_float_entry(&e, (float *)out + i, err)
                 : k == K_QMUL ? parse_int_entry(&e, 1, INT32_MAX, (int32_t *)out + i, err)
                               : parse_int_entry(&e, -31, 30, (int32_t *)out + i, err);
        if (rc != 0)
            return -1;
        s = stop + 1;
    }
    *count = n;
    return 0;
}

int iohw__desc_parse_lists(const token tok[K_COUNT], const int seen[K_COUNT],
                           iohw_desc *r, iohw_error *err)
{
    const int fixed = r->p.m_form == IOHW_QM_FIXED;
    if (seen[K_SW] && fixed)
        return iohw__desc_tok_error(err, &tok[K_SW], "sw belongs to m=scales (the "
                                    "fixed form states qmul and qshift)");
    for (int k = K_QMUL; k <= K_QSHIFT; k++)
        if (seen[k] && !fixed)
            return iohw__desc_tok_error(err, &tok[k], "qmul and qshift belong to "
                                        "m=fixed (the scales form states sw)");
    if (seen[K_SW] && parse_list(&tok[K_SW], K_SW, &r->p, r->sw, &r->n_sw, err) != 0)
        return -1;
    if (seen[K_QMUL]
        && parse_list(&tok[K_QMUL], K_QMUL, &r->p, r->qmul, &r->n_qmul, err) != 0)
        return -1;
    if (seen[K_QSHIFT]
        && parse_list(&tok[K_QSHIFT], K_QSHIFT, &r->p, r->qshift, &r->n_qshift, err) != 0)
        return -1;
    r->stated |= (seen[K_SW] ? IOHW_STATED_SW : 0u) | (seen[K_QMUL] ? IOHW_STATED_QMUL : 0u)
                 | (seen[K_QSHIFT] ? IOHW_STATED_QSHIFT : 0u);
    return 0;
}

/* Appends one value to buf (size n, length *len): the key before the
 * first, a comma before the others; -1 when full. */
static int append(char *buf, size_t n, size_t *len, const char *key, int i, const char *v)
{
    const int w = snprintf(buf + *len, n - *len, "%s%s%s%s", i == 0 ? " " : ",",
                           i == 0 ? key : "", i == 0 ? "=" : "", v);
    if (w < 0 || (size_t)w >= n - *len)
        return -1;
    *len += (size_t)w;
    return 0;
}

int iohw__desc_format_lists(const iohw_desc *d, char *buf, size_t n)
{
    char v[32];
    size_t len = 0;
    if (n == 0)
        return -1;
    buf[0] = '\0';
    for (int i = 0; i < d->n_sw; i++) {
        snprintf(v, sizeof v, "%.9g", (double)d->sw[i]);
        if (append(buf, n, &len, "sw", i, v) != 0)
            return -1;
    }
    for (int i = 0; i < d->n_qmul; i++) {
        snprintf(v, sizeof v, "%ld", (long)d->qmul[i]);
        if (append(buf, n, &len, "qmul", i, v) != 0)
            return -1;
    }
    for (int i = 0; i < d->n_qshift; i++) {
        snprintf(v, sizeof v, "%ld", (long)d->qshift[i]);
        if (append(buf, n, &len, "qshift", i, v) != 0)
            return -1;
    }
    return (int)len;
}
