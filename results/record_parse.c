/*
 * results/record_parse.c - decoding a result record (see record.h).
 *
 * A small strict JSON reader over (text, length): objects, arrays, strings
 * with every escape (\uXXXX with surrogate pairs decoded to UTF-8), numbers,
 * true, false, null.  Members the record does not have are skipped; every
 * member it has is checked for type and range before it is stored, and an
 * error names the member.
 */
#include "results/record.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32
/* Point indices and coordinates: no tensor holds more elements. */
#define COORD_LIMIT ((int64_t)1 << 31)

typedef struct jp {
    const char *s, *end;  /* next character, end of the text */
    char member[64];      /* the member being read, for messages */
    char why[300];        /* first error, or "" */
} jp;

static int fail(jp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(jp *p, const char *fmt, ...)
{
    if (p->why[0] != '\0')
        return -1;
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->member[0] != '\0')
        snprintf(p->why, sizeof p->why, "member '%s': %s", p->member, msg);
    else
        snprintf(p->why, sizeof p->why, "%s", msg);
    return -1;
}

static char peek(const jp *p)
{
    return p->s < p->end ? *p->s : '\0';
}

static void ws(jp *p)
{
    while (p->s < p->end &&
           (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static int expect(jp *p, char ch)
{
    ws(p);
    if (peek(p) != ch)
        return fail(p, p->s < p->end ? "expected '%c'" : "text cut short (expected '%c')",
                    ch);
    p->s++;
    return 0;
}

static int hex4(const jp *p, const char *s, unsigned *v)
{
    *v = 0;
    if (p->end - s < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return -1;
        *v = *v << 4 | d;
    }
    return 0;
}

/* A string being decoded into a field of n bytes (out NULL: skipped). */
typedef struct sink {
    char *out;
    size_t n, len;
    int over;
} sink;

static void put_bytes(sink *k, const char *b, size_t m)
{
    if (k->out == NULL)
        return;
    if (k->len + m + 1 > k->n) {
        k->over = 1;
        return;
    }
    memcpy(k->out + k->len, b, m);
    k->len += m;
    k->out[k->len] = '\0';
}

static void put_utf8(sink *k, unsigned cp)
{
    char b[4];
    size_t m;
    if (cp < 0x80) {
        b[0] = (char)cp, m = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), m = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)), m = 3;
    } else {
        b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (char)(0x80 | (cp >> 6 & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F));
        m = 4;
    }
    put_bytes(k, b, m);
}

/* One escape at p->s (the backslash) into k. */
static int parse_escape(jp *p, sink *k)
{
    char e = p->s + 1 < p->end ? p->s[1] : '\0';
    const char *simple = e != '\0' ? strchr("\"\\/bfnrt", e) : NULL;
    if (simple != NULL) {
        static const char to[] = "\"\\/\b\f\n\r\t";
        put_bytes(k, &to[simple - "\"\\/bfnrt"], 1);
        p->s += 2;
        return 0;
    }
    if (e != 'u')
        return fail(p, e ? "bad escape in a string" : "text cut short in a string");
    unsigned cp, lo;
    if (hex4(p, p->s + 2, &cp) != 0)
        return fail(p, "bad \\u escape");
    p->s += 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u' ||
            hex4(p, p->s + 2, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF)
            return fail(p, "unpaired surrogate in a string");
        p->s += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return fail(p, "unpaired surrogate in a string");
    }
    if (cp == 0)
        return fail(p, "NUL character (\\u0000) in a string");
    put_utf8(k, cp);
    return 0;
}

/* A string into out (n bytes; NULL to skip it); longer than the field is an
 * error, never a cut. */
static int parse_string(jp *p, char *out, size_t n)
{
    sink k = {out, n, 0, 0};
    if (out != NULL && n > 0)
        out[0] = '\0';
    if (expect(p, '"') != 0)
        return -1;
    for (;;) {
        if (p->s >= p->end)
            return fail(p, "text cut short inside a string");
        unsigned char c = (unsigned char)*p->s;
        if (c == '"') {
            p->s++;
            break;
        }
        if (c < 0x20)
            return fail(p, "raw control character in a string");
        if (c == '\\') {
            if (parse_escape(p, &k) != 0)
                return -1;
            continue;
        }
        put_bytes(&k, p->s, 1);
        p->s++;
    }
    if (k.over)
        return fail(p, "longer than %zu bytes", n - 1);
    return 0;
}

/* A JSON number token; *is_int when it has no fraction or exponent and
 * fits int64_t. */
static int parse_number(jp *p, double *d, int64_t *i, int *is_int)
{
    ws(p);
    const char *q = p->s;
    char text[64];
    *is_int = 1;
    if (q < p->end && *q == '-')
        q++;
    if (q < p->end && *q == '0')
        q++;
    else if (q < p->end && *q >= '1' && *q <= '9')
        while (q < p->end && *q >= '0' && *q <= '9')
            q++;
    else
        return fail(p, q < p->end ? "expected a number" : "text cut short");
    if (q < p->end && *q == '.') {
        *is_int = 0;
        if (++q >= p->end || !(*q >= '0' && *q <= '9'))
            return fail(p, "bad number");
        while (q < p->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < p->end && (*q == 'e' || *q == 'E')) {
        *is_int = 0;
        if (++q < p->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= p->end || !(*q >= '0' && *q <= '9'))
            return fail(p, "bad number");
        while (q < p->end && *q >= '0' && *q <= '9')
            q++;
    }
    if ((size_t)(q - p->s) >= sizeof text)
        return fail(p, "number longer than %zu characters", sizeof text - 1);
    memcpy(text, p->s, (size_t)(q - p->s));
    text[q - p->s] = '\0';
    errno = 0;
    *d = strtod(text, NULL);
    if (!isfinite(*d))
        return fail(p, "number %s out of range", text);
    *i = 0;
    if (*is_int) {
        errno = 0;
        long long v = strtoll(text, NULL, 10);
        if (errno != 0)
            *is_int = 0;
        *i = (int64_t)v;
    }
    p->s = q;
    return 0;
}

/* 1 (and consumed) when the next token is the literal word. */
static int literal(jp *p, const char *word)
{
    ws(p);
    size_t n = strlen(word);
    if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0)
        return 0;
    p->s += n;
    return 1;
}

/* Any value, skipped. */
static int skip_value(jp *p, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(p, "nested too deeply");
    ws(p);
    char c = peek(p);
    if (c == '"')
        return parse_string(p, NULL, 0);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        p->s++;
        ws(p);
        if (peek(p) == close) {
            p->s++;
            return 0;
        }
        for (;;) {
            if (c == '{' && (parse_string(p, NULL, 0) != 0 || expect(p, ':') != 0))
                return -1;
            if (skip_value(p, depth + 1) != 0)
                return -1;
            ws(p);
            if (peek(p) == ',') {
                p->s++;
                continue;
            }
            return expect(p, close);
        }
    }
    if (literal(p, "true") || literal(p, "false") || literal(p, "null"))
        return 0;
    double d;
    int64_t i;
    int is_int;
    return parse_number(p, &d, &i, &is_int);
}

/* A double: a number, "inf", "-inf", "nan", or null (dflt). */
static int parse_double(jp *p, double dflt, double *v)
{
    ws(p);
    if (literal(p, "null"))
        return *v = dflt, 0;
    if (peek(p) == '"') {
        char word[8];
        if (parse_string(p, word, sizeof word) != 0)
            return -1;
        if (strcmp(word, "inf") == 0)
            *v = INFINITY;
        else if (strcmp(word, "-inf") == 0)
            *v = -INFINITY;
        else if (strcmp(word, "nan") == 0)
            *v = NAN;
        else
            return fail(p, "expected a number, \"inf\", \"-inf\" or \"nan\"");
        return 0;
    }
    int64_t i;
    int is_int;
    return parse_number(p, v, &i, &is_int);
}

/* An integer in [lo, hi]; null reads as 0. */
static int parse_int(jp *p, int64_t lo, int64_t hi, int64_t *v)
{
    double d;
    int is_int;
    if (literal(p, "null"))
        return *v = 0, 0;
    if (parse_number(p, &d, v, &is_int) != 0)
        return -1;
    if (!is_int)
        return fail(p, "expected an integer");
    if (*v < lo || *v > hi)
        return fail(p, "%lld outside [%lld, %lld]", (long long)*v, (long long)lo,
                    (long long)hi);
    return 0;
}

/* Iterates the members of an object: calls member(p, key, arg) for each. */
static int parse_object(jp *p, int (*member)(jp *, const char *, void *), void *arg)
{
    if (expect(p, '{') != 0)
        return -1;
    ws(p);
    if (peek(p) == '}') {
        p->s++;
        return 0;
    }
    for (;;) {
        char key[32];
        ws(p);
        const char *at = p->s;
        if (parse_string(p, NULL, 0) != 0 || expect(p, ':') != 0)
            return -1;
        /* Keys longer than any the record knows are skipped unread. */
        size_t klen = (size_t)(p->s - at);
        key[0] = '\0';
        if (klen < sizeof key + 2) {
            jp kp = *p;
            kp.s = at;
            (void)parse_string(&kp, key, sizeof key);
        }
        if (member(p, key, arg) != 0)
            return -1;
        ws(p);
        if (peek(p) == ',') {
            p->s++;
            continue;
        }
        return expect(p, '}');
    }
}

/* An array: calls item(p, index, arg) for each element. */
static int parse_array(jp *p, int (*item)(jp *, int, void *), void *arg)
{
    if (expect(p, '[') != 0)
        return -1;
    ws(p);
    if (peek(p) == ']') {
        p->s++;
        return 0;
    }
    for (int i = 0;; i++) {
        if (item(p, i, arg) != 0)
            return -1;
        ws(p);
        if (peek(p) == ',') {
            p->s++;
            continue;
        }
        return expect(p, ']');
    }
}

/* --- points -------------------------------------------------------------- */

typedef struct point_ctx {
    iohw_point *pt;
    int k;              /* point index, for messages */
    int ncoord;
} point_ctx;

static int coord_item(jp *p, int a, void *arg)
{
    point_ctx *pc = arg;
    if (a >= 5)
        return fail(p, "more than 5 coordinates");
    snprintf(p->member, sizeof p->member, "points[%d].coord[%d]", pc->k, a);
    pc->ncoord = a + 1;
    return parse_int(p, 0, COORD_LIMIT - 1, &pc->pt->coord[a]);
}

static int point_member(jp *p, const char *key, void *arg)
{
    point_ctx *pc = arg;
    iohw_point *pt = pc->pt;
    snprintf(p->member, sizeof p->member, "points[%d].%.20s", pc->k, key);
    if (strcmp(key, "index") == 0)
        return parse_int(p, 0, COORD_LIMIT - 1, &pt->index);
    if (strcmp(key, "expected") == 0)
        return parse_double(p, 0, &pt->expected);
    if (strcmp(key, "got") == 0)
        return parse_double(p, 0, &pt->got);
    if (strcmp(key, "bound") == 0)
        return parse_double(p, 0, &pt->bound);
    if (strcmp(key, "coord") != 0)
        return skip_value(p, 2);
    ws(p);
    if (peek(p) != '[')
        return fail(p, "expected an array of 5 integers");
    pc->ncoord = 0;
    if (parse_array(p, coord_item, pc) != 0)
        return -1;
    if (pc->ncoord != 5) {
        snprintf(p->member, sizeof p->member, "points[%d].coord", pc->k);
        return fail(p, "expected 5 integers, not %d", pc->ncoord);
    }
    return 0;
}

static int point_item(jp *p, int k, void *arg)
{
    iohw_result *r = arg;
    iohw_point scratch;
    iohw_point *pt = k < IOHW_RESULT_POINTS ? &r->points[k] : &scratch;
    memset(pt, 0, sizeof *pt);
    snprintf(p->member, sizeof p->member, "points[%d]", k);
    ws(p);
    if (peek(p) != '{')
        return fail(p, "expected an object");
    point_ctx pc = {pt, k, 5};
    if (parse_object(p, point_member, &pc) != 0)
        return -1;
    if (k < IOHW_RESULT_POINTS)
        r->npoints = k + 1;
    return 0;
}

/* --- the error map ------------------------------------------------------- */

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

typedef struct map_ctx {
    iohw_result *r;
    int n;
} map_ctx;

static int errmap_item(jp *p, int k, void *arg)
{
    map_ctx *mc = arg;
    int64_t v;
    if ((size_t)k >= sizeof mc->r->errmap)
        return fail(p, "more than %zu bins", sizeof mc->r->errmap);
    if (parse_int(p, 0, 255, &v) != 0)
        return -1;
    mc->r->errmap[k] = (uint8_t)v;
    mc->n = k + 1;
    return 0;
}

/* An array of 256 integers, or 512 hex digits (older journals). */
static int parse_errmap(jp *p, iohw_result *r)
{
    enum { BINS = sizeof r->errmap };
    ws(p);
    if (literal(p, "null"))
        return 0;
    if (peek(p) == '[') {
        map_ctx mc = {r, 0};
        if (parse_array(p, errmap_item, &mc) != 0)
            return -1;
        return mc.n == BINS ? 0 : fail(p, "expected %d integers, not %d", BINS, mc.n);
    }
    if (peek(p) != '"')
        return fail(p, "expected %d hex digits", 2 * BINS);
    char hex[2 * BINS + 1];
    if (parse_string(p, hex, sizeof hex) != 0)
        return -1;
    if (strlen(hex) != 2 * BINS)
        return fail(p, "expected %d hex digits, not %zu", 2 * BINS, strlen(hex));
    for (int i = 0; i < BINS; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return fail(p, "holds a character that is not a hex digit");
        r->errmap[i] = (uint8_t)(hi * 16 + lo);
    }
    return 0;
}

/* --- the record ---------------------------------------------------------- */

typedef struct seen {
    iohw_result *r;
    int id, status;
} seen;

/* A string of any length as a kept text (results/text.h): unescaped it
 * is never longer than what is left of the record. */
static int parse_text(jp *p, const char **field)
{
    size_t room = (size_t)(p->end - p->s) + 1;
    char *buf = malloc(room);
    if (buf == NULL)
        return fail(p, "out of memory reading a string");
    int rc = parse_string(p, buf, room);
    *field = iohw_text_keep(rc == 0 ? buf : NULL);
    free(buf);
    return rc;
}

/* An optional string member: null reads as "". */
static int text_member(jp *p, const char **field)
{
    if (literal(p, "null"))
        return *field = iohw_text_keep(NULL), 0;
    ws(p);
    if (peek(p) != '"')
        return fail(p, "expected a string");
    return parse_text(p, field);
}

static int parse_status(jp *p, seen *sn)
{
    char name[32];
    ws(p);
    if (peek(p) != '"')
        return fail(p, "expected a string");
    if (parse_string(p, name, sizeof name) != 0)
        return -1;
    if (iohw_result_status_parse(name, &sn->r->status) != 0)
        return fail(p, "unknown status '%s'", name);
    sn->status = 1;
    return 0;
}

static int parse_exact(jp *p, iohw_result *r)
{
    int64_t v;
    if (literal(p, "true"))
        return r->exact = 1, 0;
    if (literal(p, "false"))
        return r->exact = 0, 0;
    ws(p);
    char c = peek(p);
    if (c != '-' && c != 'n' && !(c >= '0' && c <= '9'))
        return fail(p, "expected 0, 1, true or false");
    if (parse_int(p, 0, 1, &v) != 0)
        return -1;
    r->exact = (int)v;
    return 0;
}

/* "direction": a backward direction's name, "BWD_D", "BWD_W" or "BWD_WB"
 * (specification section 13); null or "" reads as forward. */
static int parse_direction(jp *p, iohw_result *r)
{
    static const char *const names[] = {"", "BWD_D", "BWD_W", "BWD_WB"};
    if (literal(p, "null"))
        return r->direction[0] = '\0', 0;
    ws(p);
    if (peek(p) != '"' || parse_string(p, r->direction, sizeof r->direction) != 0)
        return fail(p, "expected \"BWD_D\", \"BWD_W\" or \"BWD_WB\"");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(r->direction, names[i]) == 0)
            return 0;
    char bad[sizeof r->direction];
    snprintf(bad, sizeof bad, "%s", r->direction);
    r->direction[0] = '\0';
    return fail(p, "unknown direction '%s' (BWD_D, BWD_W or BWD_WB)", bad);
}

static int result_member(jp *p, const char *key, void *arg)
{
    seen *sn = arg;
    iohw_result *r = sn->r;
    snprintf(p->member, sizeof p->member, "%.40s", key);
    if (strcmp(key, "id") == 0) {
        ws(p);
        if (peek(p) != '"')
            return fail(p, "expected a string");
        sn->id = 1;
        if (parse_text(p, &r->case_id) != 0)
            return -1;
        /* Measured as written back, so that what iohw writes it reads. */
        if (iohw__record_text_len(r->case_id) > IOHW_RESULT_ID_MAX)
            return fail(p, "longer than %d bytes (a case id, specification "
                        "section 4)", IOHW_RESULT_ID_MAX);
        return 0;
    }
#define TEXT(name, field) \
    if (strcmp(key, name) == 0) \
        return text_member(p, &field);
    TEXT("file", r->file)
    TEXT("descriptor", r->descriptor)
    TEXT("tags", r->tags)
    TEXT("message", r->message)
    TEXT("diagnosis", r->diagnosis)
    TEXT("warnings", r->warnings)
#undef TEXT
    if (strcmp(key, "status") == 0)
        return parse_status(p, sn);
    if (strcmp(key, "direction") == 0)
        return parse_direction(p, r);
    if (strcmp(key, "exact") == 0)
        return parse_exact(p, r);
    if (strcmp(key, "elements") == 0)
        return parse_int(p, 0, INT64_MAX, &r->elements);
    if (strcmp(key, "mismatches") == 0)
        return parse_int(p, 0, INT64_MAX, &r->mismatches);
    if (strcmp(key, "unwritten") == 0)
        return parse_int(p, 0, INT64_MAX, &r->unwritten);
    if (strcmp(key, "worst_ratio") == 0)
        return parse_double(p, INFINITY, &r->worst_ratio);
    if (strcmp(key, "seconds") == 0)
        return parse_double(p, 0, &r->seconds);
    if (strcmp(key, "repeat") == 0) {
        int64_t v = 0;
        int rc = parse_int(p, 0, INT32_MAX, &v);
        r->repeat = (int)v;
        return rc;
    }
#define SPEED(name, field) \
    if (strcmp(key, name) == 0) \
        return parse_double(p, 0, field);
    SPEED("time_ms", &r->time_ms)
    SPEED("time_min_ms", &r->time_min_ms)
    SPEED("gmacs", &r->gmacs)
    SPEED("ref_time_ms", &r->ref_time_ms)
    SPEED("ratio", &r->ratio)
#undef SPEED
    if (strcmp(key, "points") == 0) {
        r->npoints = 0;
        ws(p);
        if (literal(p, "null"))
            return 0;
        if (peek(p) != '[')
            return fail(p, "expected an array");
        return parse_array(p, point_item, r);
    }
    if (strcmp(key, "errmap") == 0)
        return parse_errmap(p, r);
    return skip_value(p, 1);
}

int iohw_record_decode(const char *text, size_t len, iohw_result *r,
                       iohw_error *err)
{
    iohw_result_init(r);
    if (text == NULL)
        return iohw_error_set(err, "not a result record: no text");
    if (memchr(text, '\0', len) != NULL)
        return iohw_error_set(err, "not a result record: a NUL byte in the text");
    jp p = {text, text + len, "", ""};
    seen sn = {r, 0, 0};
    ws(&p);
    int rc = peek(&p) == '{' ? parse_object(&p, result_member, &sn)
                             : fail(&p, p.s < p.end ? "not a JSON object" : "empty text");
    if (rc == 0) {
        ws(&p);
        p.member[0] = '\0';
        if (p.s != p.end)
            rc = fail(&p, "text after the object");
        else if (!sn.id || !sn.status)
            rc = fail(&p, "member '%s' missing", !sn.id ? "id" : "status");
    }
    if (rc != 0) {
        iohw_result_init(r);
        return iohw_error_set(err, "not a result record: %s", p.why);
    }
    return 0;
}
