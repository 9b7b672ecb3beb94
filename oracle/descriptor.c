/*
 * oracle/descriptor.c - the one-line problem descriptor (specification
 * section 6).
 *
 * Grammar.  Tokens are separated by white space; each is key=value with a
 * key from KEY_NAMES, at most once.
 *   scalar   n ci co g bias: a decimal integer
 *   per axis in k s d op:    INT or INTxINT or INTxINTxINT (D,H,W order)
 *   pad:                     P or B:E per axis, joined by x
 *   dt:                      f32 f64 f16 bf16, or (quantized) s8 u8
 *   wdt ydt zp round m pc sx sy: a quantized problem's (descriptor_quant.c)
 *   sw qmul qshift:          comma lists of 1 or co values (descriptor_lists.c)
 *   xl wl:                   upper-case layout letters (section 2)
 *   fill:                    one of iohw_fill_names()
 *   seed:                    unsigned 64-bit decimal integer
 *   auto_pad conv out:       a framework convention (specification section
 *                            12): same_upper same_lower valid; onnx tf tvm
 *                            torch mxnet; the output size per axis
 *   dir:                     the direction (specification section 13,
 *                            descriptor_dir.c)
 * INT is an optional '-' and decimal digits (the minus only so that a
 * negative value is reported as such).  Rank is the number of entries of
 * `in`; another per-axis key has that many entries or exactly one, which
 * applies to every axis.  Every error quotes the token.
 */
#include "oracle/descriptor.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/convention.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/descriptor_internal.h"

#define NAXES 3
#define QUOTE_MAX 200 /* longest text quoted in a message */

static const char *const KEY_NAMES[K_COUNT] = {
    "n", "ci", "co", "g", "in", "k", "s", "d", "pad", "op", "bias", "dt",
    "wdt", "ydt", "zp", "round", "m", "pc", "sx", "sy", "sw", "qmul", "qshift",
    "xl", "wl", "fill", "seed", "auto_pad", "out", "conv", "dir"
};

static const char *const FILL_NAMES[] = {
    "exact", "normal", "uniform", "cancel", "range", "special",
    "zeros", "subnormal", "ties", "huge", "accum16", NULL
};

int iohw__desc_tok_error(iohw_error *err, const token *t, const char *fmt, ...)
{
    char msg[IOHW_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int qlen = t->len > QUOTE_MAX ? QUOTE_MAX : (int)t->len;
    return iohw_error_set(err, "descriptor token '%.*s%s': %s", qlen, t->s,
                          t->len > QUOTE_MAX ? "..." : "", msg);
}

const char *const *iohw_fill_names(void)
{
    return FILL_NAMES;
}

int iohw_fill_known(const char *name)
{
    if (name == NULL)
        return 0;
    for (size_t i = 0; FILL_NAMES[i] != NULL; i++)
        if (strcmp(name, FILL_NAMES[i]) == 0)
            return 1;
    return iohw_fill_is_quant(name);
}

int iohw_fill_recorded(const char *name)
{
    return name != NULL && strcmp(name, "onehot") == 0;
}

/*
 * Numbers.
 */

/* Parses s[0..len) as INT into *v; errors name `what` and quote the text. */
int iohw__desc_parse_int(const token *t, const char *what, const char *s,
                     size_t len, int64_t *v, iohw_error *err)
{
    char buf[32];
    if (len == 0)
        return iohw__desc_tok_error(err, t, "empty number in %s", what);
    size_t start = s[0] == '-' ? 1 : 0;
    int ok = len > start;
    for (size_t i = start; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            ok = 0;
    if (!ok)
        return iohw__desc_tok_error(err, t, "%s: '%.*s' is not a decimal integer", what,
                         len > QUOTE_MAX ? QUOTE_MAX : (int)len, s);
    if (len >= sizeof buf)
        return iohw__desc_tok_error(err, t, "%s: '%.*s' is out of range", what,
                         len > QUOTE_MAX ? QUOTE_MAX : (int)len, s);
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    char *end;
    long long x = strtoll(buf, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return iohw__desc_tok_error(err, t, "%s: '%s' is out of range", what, buf);
    *v = (int64_t)x;
    return 0;
}

/* INT >= min. */
static int parse_min(const token *t, const char *what, const char *s,
                     size_t len, int64_t min, int64_t *v, iohw_error *err)
{
    if (iohw__desc_parse_int(t, what, s, len, v, err) != 0)
        return -1;
    if (*v < min)
        return iohw__desc_tok_error(err, t, "%s = %" PRId64 ": must be >= %" PRId64, what,
                         *v, min);
    return 0;
}

/* Splits the value at 'x' into at most NAXES pieces; returns their number,
 * or -1 (reported) for more than NAXES or a count that does not fit rank
 * (rank 0: the key that defines the rank). */
static int split_axes(const token *t, const char *key, int rank,
                      const char *piece[NAXES], size_t plen[NAXES],
                      iohw_error *err)
{
    int count = 1;
    for (size_t i = 0; i < t->vlen; i++)
        if (t->val[i] == 'x')
            count += 1;
    if (count > NAXES)
        return iohw__desc_tok_error(err, t, "%s has %d values; at most %d axes (D, H, "
                         "W)", key, count, NAXES);
    if (rank > 0 && count != 1 && count != rank)
        return iohw__desc_tok_error(err, t, "%s has %d values but in= gives rank %d: "
                         "give one value per axis, or one for all axes", key,
                         count, rank);
    const char *s = t->val;
    const char *end = t->val + t->vlen;
    for (int a = 0; a < count; a++) {
        const char *x = memchr(s, 'x', (size_t)(end - s));
        const char *stop = x != NULL ? x : end;
        piece[a] = s;
        plen[a] = (size_t)(stop - s);
        s = stop + 1;
    }
    return count;
}

/* A per-axis key: rank values (or one for all) each >= min into v; returns
 * the number of values given (rank 0: `in`, whose count is the rank). */
static int parse_axes(const token *t, const char *key, int rank, int64_t min,
                      int64_t v[NAXES], iohw_error *err)
{
    const char *piece[NAXES];
    size_t plen[NAXES];
    int count = split_axes(t, key, rank, piece, plen, err);
    if (count < 0)
        return -1;
    for (int a = 0; a < count; a++)
        if (parse_min(t, key, piece[a], plen[a], min, &v[a], err) != 0)
            return -1;
    for (int a = count; a < rank; a++)
        v[a] = v[0];
    return count;
}

/* pad: P or B:E per axis. */
static int parse_pad(const token *t, int rank, int64_t pb[NAXES],
                     int64_t pe[NAXES], iohw_error *err)
{
    const char *piece[NAXES];
    size_t plen[NAXES];
    int count = split_axes(t, "pad", rank, piece, plen, err);
    if (count < 0)
        return -1;
    for (int a = 0; a < count; a++) {
        const char *colon = memchr(piece[a], ':', plen[a]);
        if (colon == NULL) {
            if (parse_min(t, "pad", piece[a], plen[a], 0, &pb[a], err) != 0)
                return -1;
            pe[a] = pb[a];
            continue;
        }
        size_t blen = (size_t)(colon - piece[a]);
        size_t elen = plen[a] - blen - 1;
        if (memchr(colon + 1, ':', elen) != NULL)
            return iohw__desc_tok_error(err, t, "pad '%.*s': expected P or B:E",
                             (int)plen[a], piece[a]);
        if (parse_min(t, "pad begin", piece[a], blen, 0, &pb[a], err) != 0 ||
            parse_min(t, "pad end", colon + 1, elen, 0, &pe[a], err) != 0)
            return -1;
    }
    for (int a = count; a < rank; a++) {
        pb[a] = pb[0];
        pe[a] = pe[0];
    }
    return 0;
}

/* seed: unsigned 64-bit decimal. */
static int parse_seed(const token *t, uint64_t *seed, iohw_error *err)
{
    char buf[32];
    int ok = t->vlen > 0 && t->vlen < sizeof buf;
    for (size_t i = 0; i < t->vlen; i++)
        if (t->val[i] < '0' || t->val[i] > '9')
            ok = 0;
    if (!ok)
        return iohw__desc_tok_error(err, t, "seed must be an unsigned decimal integer");
    memcpy(buf, t->val, t->vlen);
    buf[t->vlen] = '\0';
    errno = 0;
    char *end;
    unsigned long long x = strtoull(buf, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return iohw__desc_tok_error(err, t, "seed is out of range (at most %" PRIu64 ")",
                         UINT64_MAX);
    *seed = (uint64_t)x;
    return 0;
}

/* xl / wl: upper-case letters valid for the rank. */
static int parse_layout(const token *t, int weight, int rank, char out[16],
                        iohw_error *err)
{
    int ok = t->vlen > 0 && t->vlen < 16;
    for (size_t i = 0; i < t->vlen; i++)
        if (t->val[i] < 'A' || t->val[i] > 'Z')
            ok = 0;
    if (!ok)
        return iohw__desc_tok_error(err, t, "a layout is 1 to 15 upper-case letters");
    memcpy(out, t->val, t->vlen);
    out[t->vlen] = '\0';
    int rc = weight ? iohw_layout_check_weight(out, rank, err)
                    : iohw_layout_check_data(out, rank, err);
    if (rc != 0) {
        int qlen = t->len > QUOTE_MAX ? QUOTE_MAX : (int)t->len;
        return iohw_error_prefix(err, "descriptor token '%.*s'", qlen, t->s);
    }
    return 0;
}

/* Copies a short value into a NUL-terminated buffer of size n. */
int iohw__desc_copy_word(const token *t, char *out, size_t n)
{
    if (t->vlen >= n)
        return -1;
    memcpy(out, t->val, t->vlen);
    out[t->vlen] = '\0';
    return 0;
}

/* Splits text into tokens, one slot per key. */
static int tokenize(const char *text, token tok[K_COUNT], int seen[K_COUNT],
                    iohw_error *err)
{
    const char *s = text;
    int any = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (*s == '\0')
            break;
        token t = {s, 0, NULL, 0};
        while (s[t.len] != '\0' && s[t.len] != ' ' && s[t.len] != '\t' &&
               s[t.len] != '\n' && s[t.len] != '\r')
            t.len++;
        s += t.len;
        any = 1;
        const char *eq = memchr(t.s, '=', t.len);
        if (eq == NULL)
            return iohw__desc_tok_error(err, &t, "expected key=value");
        size_t klen = (size_t)(eq - t.s);
        t.val = eq + 1;
        t.vlen = t.len - klen - 1;
        if (klen == 0)
            return iohw__desc_tok_error(err, &t, "missing key before '='");
        int k = 0;
        while (k < K_COUNT && (strlen(KEY_NAMES[k]) != klen ||
                               memcmp(KEY_NAMES[k], t.s, klen) != 0))
            k++;
        if (k == K_COUNT)
            return iohw__desc_tok_error(err, &t, "unknown key '%.*s' (keys: n ci co g "
                             "in k s d pad op bias dt wdt ydt zp round m "
                             "pc sx sy sw qmul qshift xl wl fill seed auto_pad out conv dir)",
                             klen > QUOTE_MAX ? QUOTE_MAX : (int)klen, t.s);
        if (seen[k])
            return iohw__desc_tok_error(err, &t, "repeated key '%s'", KEY_NAMES[k]);
        if (t.vlen == 0)
            return iohw__desc_tok_error(err, &t, "empty value");
        seen[k] = 1;
        tok[k] = t;
    }
    if (!any)
        return iohw_error_set(err, "descriptor is empty");
    return 0;
}

/* Batch, channels and groups (n and g optional). */
static int parse_channels(const token tok[K_COUNT], const int seen[K_COUNT],
                          iohw_problem *p, iohw_error *err)
{
    if (seen[K_N] && parse_min(&tok[K_N], "n", tok[K_N].val, tok[K_N].vlen,
                               1, &p->batch, err) != 0)
        return -1;
    if (parse_min(&tok[K_CI], "ci", tok[K_CI].val, tok[K_CI].vlen, 1,
                  &p->in_channels, err) != 0)
        return -1;
    if (parse_min(&tok[K_CO], "co", tok[K_CO].val, tok[K_CO].vlen, 1,
                  &p->out_channels, err) != 0)
        return -1;
    if (seen[K_G] && parse_min(&tok[K_G], "g", tok[K_G].val, tok[K_G].vlen,
                               1, &p->groups, err) != 0)
        return -1;
    return 0;
}

/* Spatial axes; `in` fixes the rank.  The rank, or -1. */
static int parse_spatial(const token tok[K_COUNT], const int seen[K_COUNT],
                         iohw_problem *p, iohw_error *err)
{
    const int rank = parse_axes(&tok[K_IN], "in", 0, 1, p->in_size, err);
    if (rank < 0)
        return -1;
    p->rank = (uint32_t)rank;
    if (parse_axes(&tok[K_K], "k", rank, 1, p->kernel, err) < 0)
        return -1;
    if (seen[K_S] && parse_axes(&tok[K_S], "s", rank, 1, p->stride, err) < 0)
        return -1;
    if (seen[K_D] &&
        parse_axes(&tok[K_D], "d", rank, 1, p->dilation, err) < 0)
        return -1;
    if (seen[K_PAD] &&
        parse_pad(&tok[K_PAD], rank, p->pad_begin, p->pad_end, err) != 0)
        return -1;
    if (seen[K_OP] &&
        parse_axes(&tok[K_OP], "op", rank, 0, p->output_padding, err) < 0)
        return -1;
    return rank;
}

/* Bias, type and layouts of a problem of the given rank. */
static int parse_bias_type_layouts(const token tok[K_COUNT], const int seen[K_COUNT],
                                   int rank, iohw_problem *p, iohw_error *err)
{
    if (seen[K_BIAS]) {
        int64_t v;
        if (iohw__desc_parse_int(&tok[K_BIAS], "bias", tok[K_BIAS].val, tok[K_BIAS].vlen,
                      &v, err) != 0)
            return -1;
        if (v != 0 && v != 1)
            return iohw__desc_tok_error(err, &tok[K_BIAS], "bias must be 0 or 1");
        p->has_bias = (int32_t)v;
    }
    if (seen[K_DT]) {
        char name[8];
        if (iohw__desc_copy_word(&tok[K_DT], name, sizeof name) != 0 ||
            iohw_dtype_parse(name, &p->dtype) != 0)
            return iohw__desc_tok_error(err, &tok[K_DT], "unknown dtype (f32, f64, f16, "
                             "bf16, s8, u8)");
    }
    if (seen[K_XL] &&
        parse_layout(&tok[K_XL], 0, rank, p->data_layout, err) != 0)
        return -1;
    if (seen[K_WL] &&
        parse_layout(&tok[K_WL], 1, rank, p->weight_layout, err) != 0)
        return -1;
    return 0;
}

/* How the inputs are filled: fill name and seed. */
static int parse_fill(const token tok[K_COUNT], const int seen[K_COUNT],
                      iohw_desc *r, iohw_error *err)
{
    if (seen[K_FILL]) {
        if (iohw__desc_copy_word(&tok[K_FILL], r->fill, sizeof r->fill) != 0 ||
            !(iohw_fill_known(r->fill) || iohw_fill_recorded(r->fill)))
            return iohw__desc_tok_error(err, &tok[K_FILL], "unknown fill (exact, normal, "
                             "uniform, cancel, range, special, zeros, "
                             "subnormal, ties, huge, accum16; quantized: qrandom; "
                             "written by iohw shrink: onehot)");
    }
    if (seen[K_SEED] && parse_seed(&tok[K_SEED], &r->seed, err) != 0)
        return -1;
    return 0;
}

/* A value given for a member the convention derives must be what it
 * derives: pad (both sides) and op, compared on every axis. */
static int check_given(const token *t, int rank, const int64_t *given,
                       const int64_t *given2, const iohw_problem *p,
                       iohw_error *err)
{
    const int pad = given2 != NULL;
    const int64_t *want = pad ? p->pad_begin : p->output_padding;
    for (int a = 0; a < rank; a++)
        if (given[a] != want[a] || (pad && given2[a] != p->pad_end[a]))
            return iohw__desc_tok_error(err, t, "contradicts conv=%s%s%s, which resolves "
                             "axis %c to %s %" PRId64 ":%" PRId64 ", op %" PRId64,
                             iohw_convention_name(p->convention),
                             p->auto_pad != 0 ? " auto_pad=" : "",
                             p->auto_pad != 0 ? iohw_auto_pad_name(p->auto_pad) : "",
                             iohw_spatial_letters(rank)[a], "pad", p->pad_begin[a],
                             p->pad_end[a], p->output_padding[a]);
    return 0;
}

/* auto_pad, out and conv: the stated convention, resolved into the explicit
 * members (pad and op given must agree with what it derives). */
static int parse_convention(const token tok[K_COUNT], const int seen[K_COUNT],
                            int rank, iohw_problem *p, iohw_error *err)
{
    char word[16];
    if (!seen[K_CONV]) {
        if (seen[K_AUTO_PAD] || seen[K_OUT])
            return iohw__desc_tok_error(err, &tok[seen[K_OUT] ? K_OUT : K_AUTO_PAD], "needs "
                             "conv=onnx|tf|tvm|torch|mxnet: frameworks split odd "
                             "padding differently");
        return 0;
    }
    if (iohw__desc_copy_word(&tok[K_CONV], word, sizeof word) != 0 ||
        iohw_convention_parse(word, &p->convention) != 0)
        return iohw__desc_tok_error(err, &tok[K_CONV], "unknown convention (onnx, tf, tvm, "
                         "torch, mxnet)");
    if (seen[K_AUTO_PAD] &&
        (iohw__desc_copy_word(&tok[K_AUTO_PAD], word, sizeof word) != 0 ||
         iohw_auto_pad_parse(word, &p->auto_pad) != 0))
        return iohw__desc_tok_error(err, &tok[K_AUTO_PAD], "unknown auto_pad (same_upper, "
                         "same_lower, valid)");
    if (seen[K_OUT] &&
        parse_axes(&tok[K_OUT], "out", rank, 1, p->out_shape, err) < 0)
        return -1;
    int64_t pb[NAXES], pe[NAXES], op[NAXES];
    memcpy(pb, p->pad_begin, sizeof pb);
    memcpy(pe, p->pad_end, sizeof pe);
    memcpy(op, p->output_padding, sizeof op);
    if (iohw_convention_resolve(p, err) != 0) {
        const token *t = &tok[K_CONV];
        int qlen = t->len > QUOTE_MAX ? QUOTE_MAX : (int)t->len;
        return iohw_error_prefix(err, "descriptor token '%.*s'", qlen, t->s);
    }
    if (seen[K_PAD] && check_given(&tok[K_PAD], rank, pb, pe, p, err) != 0)
        return -1;
    if (seen[K_OP] && check_given(&tok[K_OP], rank, op, NULL, p, err) != 0)
        return -1;
    return 0;
}

int iohw_desc_parse(const char *text, iohw_desc *d, iohw_error *err)
{
    static const int required[] = {K_CI, K_CO, K_IN, K_K};
    token tok[K_COUNT];
    int seen[K_COUNT] = {0};
    iohw_desc r;

    /* Test the input parameters. */
    if (text == NULL)
        return iohw_error_set(err, "descriptor is NULL");
    if (d == NULL)
        return iohw_error_set(err, "descriptor output is NULL");
    if (tokenize(text, tok, seen, err) != 0)
        return -1;
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!seen[required[i]])
            return iohw_error_set(err, "descriptor: missing required key "
                                  "'%s'", KEY_NAMES[required[i]]);

    /* Defaults, then every key given. */
    memset(&r, 0, sizeof r);
    iohw_problem_init(&r.p);
    strcpy(r.fill, "normal");
    r.seed = 1;
    if (parse_channels(tok, seen, &r.p, err) != 0)
        return -1;
    const int rank = parse_spatial(tok, seen, &r.p, err);
    if (rank < 0 || parse_bias_type_layouts(tok, seen, rank, &r.p, err) != 0
        || parse_fill(tok, seen, &r, err) != 0
        || iohw__desc_parse_quant(tok, seen, &r, err) != 0
        || parse_convention(tok, seen, rank, &r.p, err) != 0
        || iohw__desc_parse_dir(tok, seen, &r.p, err) != 0)
        return -1;

    /* Output size and the whole problem. */
    if (iohw_problem_finish(&r.p, err) != 0) {
        size_t len = strlen(text);
        return iohw_error_prefix(err, "descriptor '%.*s%s'",
                                 len > QUOTE_MAX ? QUOTE_MAX : (int)len, text,
                                 len > QUOTE_MAX ? "..." : "");
    }
    *d = r;
    return 0;
}

/*
 * Formatting.
 */

typedef struct outbuf {
    char *buf;
    size_t n;
    size_t len;
    int full;
} outbuf;

static void put(outbuf *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(outbuf *o, const char *fmt, ...)
{
    if (o->full)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(o->buf + o->len, o->n - o->len, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= o->n - o->len) {
        o->full = 1;
        return;
    }
    o->len += (size_t)w;
}

static void put_axes(outbuf *o, const char *key, const int64_t *v, int rank)
{
    put(o, " %s=", key);
    for (int a = 0; a < rank; a++)
        put(o, "%s%" PRId64, a > 0 ? "x" : "", v[a]);
}

/* The canonical form with the stated lists of d (NULL: none). */
static int format_desc(const iohw_problem *p, const iohw_desc *d, const char *fill,
                       uint64_t seed, char *buf, size_t n)
{
    char xl[16], wl[16];

    /* Test the input parameters. */
    if (p == NULL || buf == NULL || n == 0 || p->rank < 1 || p->rank > NAXES)
        return -1;
    const int rank = (int)p->rank;
    if (fill == NULL || fill[0] == '\0')
        fill = "normal";
    snprintf(xl, sizeof xl, "%.15s", p->data_layout);
    snprintf(wl, sizeof wl, "%.15s", p->weight_layout);
    if (xl[0] == '\0')
        iohw_layout_default_data(rank, xl);
    if (wl[0] == '\0')
        iohw_layout_default_weight(rank, wl);

    /* Every key, in canonical order. */
    outbuf o = {buf, n, 0, 0};
    buf[0] = '\0';
    put(&o, "n=%" PRId64 " ci=%" PRId64 " co=%" PRId64 " g=%" PRId64,
        p->batch, p->in_channels, p->out_channels, p->groups);
    put_axes(&o, "in", p->in_size, rank);
    put_axes(&o, "k", p->kernel, rank);
    put_axes(&o, "s", p->stride, rank);
    put_axes(&o, "d", p->dilation, rank);
    put(&o, " pad=");
    for (int a = 0; a < rank; a++) {
        put(&o, "%s%" PRId64, a > 0 ? "x" : "", p->pad_begin[a]);
        if (p->pad_end[a] != p->pad_begin[a])
            put(&o, ":%" PRId64, p->pad_end[a]);
    }
    put_axes(&o, "op", p->output_padding, rank);
    char quant[160], lists[IOHW_DESC_MAX];
    if (iohw__desc_format_quant(p, quant, sizeof quant) < 0
        || (d != NULL && iohw__desc_format_lists(d, lists, sizeof lists) < 0))
        return -1;
    put(&o, " bias=%d dt=%s%s%s xl=%s wl=%s fill=%s seed=%" PRIu64,
        (int)p->has_bias, iohw_dtype_name(p->dtype), quant, d != NULL ? lists : "", xl, wl,
        fill, seed);
    if (p->convention != IOHW_CONV_NONE) {
        const char *ap = iohw_auto_pad_name(p->auto_pad);
        if (p->auto_pad != IOHW_AUTO_PAD_NONE && ap != NULL)
            put(&o, " auto_pad=%s", ap);
        if (p->out_shape[0] > 0)
            put_axes(&o, "out", p->out_shape, rank);
        const char *cv = iohw_convention_name(p->convention);
        put(&o, " conv=%s", cv != NULL ? cv : "?");
    }
    if (p->direction != IOHW_DIR_FWD)
        put(&o, " dir=%s", iohw__desc_dir_name(p));
    if (o.full || o.len > INT32_MAX)
        return -1;
    return (int)o.len;
}

int iohw_desc_format_problem(const iohw_problem *p, const char *fill,
                             uint64_t seed, char *buf, size_t n)
{
    return format_desc(p, NULL, fill, seed, buf, n);
}

int iohw_desc_format(const iohw_desc *d, char *buf, size_t n)
{
    if (d == NULL)
        return -1;
    return format_desc(&d->p, d, d->fill, d->seed, buf, n);
}
