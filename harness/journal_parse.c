/*
 * harness/journal_parse.c - reading one journal line (a JSON object, see
 * journal.h) back into an iohw_result.
 *
 * A small strict JSON reader: objects, arrays, strings with every escape
 * (\uXXXX with surrogate pairs decoded to UTF-8), numbers, true, false, null.
 * Members it does not know are skipped, so later versions may add some.
 */
#include "harness/journal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

typedef struct jp {
    const char *s;    /* next character */
    const char *why;  /* first error, or NULL */
} jp;

static int fail(jp *p, const char *why)
{
    if (p->why == NULL)
        p->why = why;
    return -1;
}

static void ws(jp *p)
{
    while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
        p->s++;
}

static int expect(jp *p, char ch)
{
    ws(p);
    if (*p->s != ch)
        return fail(p, *p->s ? "unexpected character" : "line cut short");
    p->s++;
    return 0;
}

static int hex4(const char *s, unsigned *v)
{
    *v = 0;
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

/* Appends bytes to out (size n) unless they would not fit whole. */
static void put_bytes(char *out, size_t n, size_t *len, const char *b, size_t k)
{
    if (out == NULL || *len + k + 1 > n)
        return;
    memcpy(out + *len, b, k);
    *len += k;
    out[*len] = '\0';
}

static void put_utf8(char *out, size_t n, size_t *len, unsigned cp)
{
    char b[4];
    size_t k;
    if (cp < 0x80) {
        b[0] = (char)cp, k = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), k = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)), k = 3;
    } else {
        b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (char)(0x80 | (cp >> 6 & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F));
        k = 4;
    }
    put_bytes(out, n, len, b, k);
}

/* A string into out (size n, truncated at a character boundary; out may be
 * NULL to skip it). */
static int parse_string(jp *p, char *out, size_t n)
{
    size_t len = 0;
    if (out != NULL && n > 0)
        out[0] = '\0';
    if (expect(p, '"') != 0)
        return -1;
    for (;;) {
        unsigned char c = (unsigned char)*p->s;
        if (c == '\0')
            return fail(p, "line cut short inside a string");
        if (c == '"') {
            p->s++;
            return 0;
        }
        if (c < 0x20)
            return fail(p, "raw control character in a string");
        if (c != '\\') {
            /* Copy a whole UTF-8 sequence at once so truncation is clean. */
            size_t k = 1;
            while ((p->s[k] & 0xC0) == 0x80 && c >= 0xC0 && k < 4)
                k++;
            put_bytes(out, n, &len, p->s, k);
            p->s += k;
            continue;
        }
        char e = p->s[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e != '\0' && simple != NULL) {
            static const char to[] = "\"\\/\b\f\n\r\t";
            char ch = to[simple - "\"\\/bfnrt"];
            put_bytes(out, n, &len, &ch, 1);
            p->s += 2;
            continue;
        }
        if (e != 'u')
            return fail(p, e ? "bad escape in a string" : "line cut short");
        unsigned cp, lo;
        if (hex4(p->s + 2, &cp) != 0)
            return fail(p, "bad \\u escape");
        p->s += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (p->s[0] != '\\' || p->s[1] != 'u' || hex4(p->s + 2, &lo) != 0 ||
                lo < 0xDC00 || lo > 0xDFFF)
                return fail(p, "unpaired surrogate in a string");
            p->s += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail(p, "unpaired surrogate in a string");
        }
        if (cp != 0)
            put_utf8(out, n, &len, cp);
    }
}

/* A JSON number token; *is_int when it has no fraction or exponent. */
static int parse_number(jp *p, double *d, int64_t *i, int *is_int)
{
    ws(p);
    const char *s = p->s, *q = s;
    *is_int = 1;
    if (*q == '-')
        q++;
    if (*q == '0')
        q++;
    else if (*q >= '1' && *q <= '9')
        while (*q >= '0' && *q <= '9')
            q++;
    else
        return fail(p, *q ? "expected a number" : "line cut short");
    if (*q == '.') {
        *is_int = 0;
        q++;
        if (!(*q >= '0' && *q <= '9'))
            return fail(p, "bad number");
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q == 'e' || *q == 'E') {
        *is_int = 0;
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return fail(p, "bad number");
        while (*q >= '0' && *q <= '9')
            q++;
    }
    *d = strtod(s, NULL);
    *i = *is_int ? (int64_t)strtoll(s, NULL, 10) : 0;
    p->s = q;
    return 0;
}

/* Any value, skipped. */
static int skip_value(jp *p, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(p, "nested too deeply");
    ws(p);
    char c = *p->s;
    if (c == '"')
        return parse_string(p, NULL, 0);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        p->s++;
        ws(p);
        if (*p->s == close) {
            p->s++;
            return 0;
        }
        for (;;) {
            if (c == '{' && (parse_string(p, NULL, 0) != 0 || expect(p, ':') != 0))
                return -1;
            if (skip_value(p, depth + 1) != 0)
                return -1;
            ws(p);
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            return expect(p, close);
        }
    }
    static const char *const words[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(words[k]);
        if (strncmp(p->s, words[k], n) == 0) {
            p->s += n;
            return 0;
        }
    }
    double d;
    int64_t i;
    int is_int;
    return parse_number(p, &d, &i, &is_int);
}

/* A double: a number or one of the strings "inf", "-inf", "nan". */
static int parse_double(jp *p, double *v)
{
    ws(p);
    if (*p->s == '"') {
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

static int parse_int(jp *p, int64_t *v)
{
    double d;
    int is_int;
    if (parse_number(p, &d, v, &is_int) != 0)
        return -1;
    return is_int ? 0 : fail(p, "expected an integer");
}

/* Iterates the members of an object: calls member(p, key, arg) for each. */
static int parse_object(jp *p, int (*member)(jp *, const char *, void *),
                        void *arg)
{
    if (expect(p, '{') != 0)
        return -1;
    ws(p);
    if (*p->s == '}') {
        p->s++;
        return 0;
    }
    for (;;) {
        char key[32];
        if (parse_string(p, key, sizeof key) != 0 || expect(p, ':') != 0)
            return -1;
        if (member(p, key, arg) != 0)
            return -1;
        ws(p);
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        return expect(p, '}');
    }
}

static int point_member(jp *p, const char *key, void *arg)
{
    iohw_point *pt = arg;
    if (strcmp(key, "index") == 0)
        return parse_int(p, &pt->index);
    if (strcmp(key, "expected") == 0)
        return parse_double(p, &pt->expected);
    if (strcmp(key, "got") == 0)
        return parse_double(p, &pt->got);
    if (strcmp(key, "bound") == 0)
        return parse_double(p, &pt->bound);
    if (strcmp(key, "coord") != 0)
        return skip_value(p, 1);
    if (expect(p, '[') != 0)
        return -1;
    for (int a = 0; a < 5; a++) {
        if (a > 0 && expect(p, ',') != 0)
            return -1;
        if (parse_int(p, &pt->coord[a]) != 0)
            return -1;
    }
    return expect(p, ']');
}

static int parse_points(jp *p, iohw_result *r)
{
    r->npoints = 0;
    if (expect(p, '[') != 0)
        return -1;
    ws(p);
    if (*p->s == ']') {
        p->s++;
        return 0;
    }
    for (;;) {
        iohw_point scratch;
        iohw_point *pt = r->npoints < IOHW_RESULT_POINTS
                             ? &r->points[r->npoints++]
                             : &scratch;
        memset(pt, 0, sizeof *pt);
        if (parse_object(p, point_member, pt) != 0)
            return -1;
        ws(p);
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        return expect(p, ']');
    }
}

/* The coarse error map: 2 hex digits per bin. */
static int parse_errmap(jp *p, iohw_result *r)
{
    enum { BINS = IOHW_RESULT_ERRMAP * IOHW_RESULT_ERRMAP };
    char hex[2 * BINS + 2];
    if (parse_string(p, hex, sizeof hex) != 0)
        return -1;
    if (strlen(hex) != 2 * BINS) {
        return fail(p, "\"errmap\" is not 512 hex digits");
    }
    for (int i = 0; i < BINS; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char c = hex[2 * i + k];
            int d = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) {
                return fail(p, "\"errmap\" holds a character that is not a hex digit");
            }
            v = v * 16 + (unsigned)d;
        }
        r->errmap[i] = (uint8_t)v;
    }
    return 0;
}

/* Members seen, for the required ones. */
typedef struct seen {
    iohw_result *r;
    int id, file, status, bad_status;
} seen;

static int result_member(jp *p, const char *key, void *arg)
{
    seen *sn = arg;
    iohw_result *r = sn->r;
    int64_t v;
    if (strcmp(key, "id") == 0)
        return sn->id = 1, parse_string(p, r->case_id, sizeof r->case_id);
    if (strcmp(key, "file") == 0)
        return sn->file = 1, parse_string(p, r->file, sizeof r->file);
    if (strcmp(key, "descriptor") == 0)
        return parse_string(p, r->descriptor, sizeof r->descriptor);
    if (strcmp(key, "tags") == 0)
        return parse_string(p, r->tags, sizeof r->tags);
    if (strcmp(key, "message") == 0)
        return parse_string(p, r->message, sizeof r->message);
    if (strcmp(key, "diagnosis") == 0)
        return parse_string(p, r->diagnosis, sizeof r->diagnosis);
    if (strcmp(key, "status") == 0) {
        char name[32];
        if (parse_string(p, name, sizeof name) != 0)
            return -1;
        sn->status = 1;
        if (iohw_result_status_parse(name, &r->status) != 0)
            sn->bad_status = 1;
        return 0;
    }
    if (strcmp(key, "exact") == 0) {
        if (parse_int(p, &v) != 0)
            return -1;
        r->exact = v != 0;
        return 0;
    }
    if (strcmp(key, "elements") == 0)
        return parse_int(p, &r->elements);
    if (strcmp(key, "mismatches") == 0)
        return parse_int(p, &r->mismatches);
    if (strcmp(key, "unwritten") == 0)
        return parse_int(p, &r->unwritten);
    if (strcmp(key, "worst_ratio") == 0)
        return parse_double(p, &r->worst_ratio);
    if (strcmp(key, "seconds") == 0)
        return parse_double(p, &r->seconds);
    if (strcmp(key, "points") == 0)
        return parse_points(p, r);
    if (strcmp(key, "errmap") == 0)
        return parse_errmap(p, r);
    return skip_value(p, 1);
}

int iohw_journal_parse(const char *line, iohw_result *r, iohw_error *err)
{
    memset(r, 0, sizeof *r);
    jp p = {line, NULL};
    seen sn = {r, 0, 0, 0, 0};
    if (parse_object(&p, result_member, &sn) != 0)
        return iohw_error_set(err, "not a journal line: %s", p.why);
    ws(&p);
    if (*p.s != '\0')
        return iohw_error_set(err, "not a journal line: text after the object");
    if (!sn.id || !sn.file || !sn.status)
        return iohw_error_set(err, "journal line without %s",
                              !sn.id ? "\"id\"" : !sn.file ? "\"file\"" : "\"status\"");
    if (sn.bad_status)
        return iohw_error_set(err, "journal line with an unknown status");
    return 0;
}
