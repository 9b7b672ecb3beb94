/*
 * results/record.c - encoding the result record (see record.h); the
 * decoder is in record_parse.c.
 */
#include "results/record.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A bounded string builder; `over` records an overflow. */
typedef struct sbuf {
    char *p;
    size_t n, len;
    int over;
} sbuf;

static void sb_putc(sbuf *b, char ch)
{
    if (b->len + 1 >= b->n) {
        b->over = 1;
        return;
    }
    b->p[b->len++] = ch;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s)
{
    while (*s)
        sb_putc(b, *s++);
}

static void sb_printf(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof tmp) {
        b->over = 1;
        return;
    }
    sb_puts(b, tmp);
}

/* Length of the valid UTF-8 sequence starting at s (at most `left` bytes),
 * or 0 when it is not valid (overlong, surrogate, beyond U+10FFFF, cut). */
static int utf8_len(const unsigned char *s, size_t left)
{
    unsigned c = s[0];
    int n;
    unsigned min, cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, min = 0x80, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, min = 0x800, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, min = 0x10000, cp = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)n > left)
        return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

size_t iohw__record_text_len(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s), out = 0;
    for (size_t i = 0; i < len;) {
        int k = u[i] < 0x80 ? 1 : utf8_len(u + i, len - i);
        out += k == 0 ? 3 : (size_t)k;
        i += k == 0 ? 1 : (size_t)k;
    }
    return out;
}

/* A JSON string of s, whole: bytes that are not valid UTF-8 become
 * U+FFFD. */
static void sb_json_string(sbuf *b, const char *s)
{
    if (s == NULL)
        s = "";
    size_t len = strlen(s);
    const unsigned char *u = (const unsigned char *)s;
    const char *bad = "\\ufffd";
    sb_putc(b, '"');
    for (size_t i = 0; i < len;) {
        unsigned c = u[i];
        int k = 1;
        if (c == '"' || c == '\\') {
            sb_putc(b, '\\');
            sb_putc(b, (char)c);
        } else if (c == '\n') {
            sb_puts(b, "\\n");
        } else if (c == '\t') {
            sb_puts(b, "\\t");
        } else if (c == '\r') {
            sb_puts(b, "\\r");
        } else if (c == '\b') {
            sb_puts(b, "\\b");
        } else if (c == '\f') {
            sb_puts(b, "\\f");
        } else if (c == '/' && i > 0 && u[i - 1] == '<') {
            sb_puts(b, "\\/");  /* "</" would end an HTML <script> */
        } else if (c < 0x20 || c == 0x7F) {
            sb_printf(b, "\\u%04x", c);
        } else if (c >= 0x80) {
            k = utf8_len(u + i, len - i);
            if (k == 0) {
                sb_puts(b, bad);
                k = 1;
            } else if (k == 3 && c == 0xE2 && u[i + 1] == 0x80 &&
                       (u[i + 2] == 0xA8 || u[i + 2] == 0xA9)) {
                /* U+2028, U+2029: line ends to JavaScript. */
                sb_printf(b, "\\u%04x", 0x2000u + (u[i + 2] & 0x3F));
            } else {
                for (int j = 0; j < k; j++)
                    sb_putc(b, (char)u[i + j]);
            }
        } else {
            sb_putc(b, (char)c);
        }
        i += (size_t)k;
    }
    sb_putc(b, '"');
}

static void sb_double(sbuf *b, double v)
{
    if (isnan(v))
        sb_puts(b, "\"nan\"");
    else if (isinf(v))
        sb_puts(b, v > 0 ? "\"inf\"" : "\"-inf\"");
    else
        sb_printf(b, "%.17g", v);
}

static void sb_key(sbuf *b, const char *key)
{
    sb_printf(b, ", \"%s\": ", key);
}

#define STRING_MEMBER(b, key, field) \
    (sb_key(b, key), sb_json_string(b, field))

static void encode_points(sbuf *b, const iohw_result *r)
{
    int np = r->npoints < 0 ? 0 : r->npoints;
    if (np > IOHW_RESULT_POINTS)
        np = IOHW_RESULT_POINTS;
    sb_puts(b, ", \"points\": [");
    for (int i = 0; i < np; i++) {
        const iohw_point *p = &r->points[i];
        sb_printf(b, "%s{\"index\": %lld, \"coord\": [", i ? ", " : "",
                  (long long)p->index);
        for (int a = 0; a < 5; a++)
            sb_printf(b, "%s%lld", a ? ", " : "", (long long)p->coord[a]);
        sb_puts(b, "], \"expected\": ");
        sb_double(b, p->expected);
        sb_puts(b, ", \"got\": ");
        sb_double(b, p->got);
        sb_puts(b, ", \"bound\": ");
        sb_double(b, p->bound);
        sb_putc(b, '}');
    }
    sb_putc(b, ']');
}

static void encode_errmap(sbuf *b, const iohw_result *r)
{
    int any = 0;
    for (size_t i = 0; i < sizeof r->errmap; i++)
        any |= r->errmap[i];
    if (!any)
        return;
    sb_puts(b, ", \"errmap\": [");
    for (size_t i = 0; i < sizeof r->errmap; i++)
        sb_printf(b, "%s%u", i ? "," : "", (unsigned)r->errmap[i]);
    sb_putc(b, ']');
}

/* The timing of a performance run, only when there was one: a record
 * without it reads as before. */
static void encode_speed(sbuf *b, const iohw_result *r)
{
    if (r->repeat <= 0)
        return;
    sb_printf(b, ", \"repeat\": %d", r->repeat);
    sb_key(b, "time_ms");
    sb_double(b, r->time_ms);
    sb_key(b, "time_min_ms");
    sb_double(b, r->time_min_ms);
    sb_key(b, "gmacs");
    sb_double(b, r->gmacs);
    if (r->ref_time_ms <= 0)
        return;
    sb_key(b, "ref_time_ms");
    sb_double(b, r->ref_time_ms);
    sb_key(b, "ratio");
    sb_double(b, r->ratio);
}

int iohw_record_encode(const iohw_result *r, char *buf, size_t n)
{
    if (buf == NULL || n == 0)
        return -1;
    sbuf b = {buf, n, 0, 0};
    buf[0] = '\0';
    sb_puts(&b, "{\"id\": ");
    sb_json_string(&b, r->case_id);
    STRING_MEMBER(&b, "file", r->file);
    STRING_MEMBER(&b, "descriptor", r->descriptor);
    STRING_MEMBER(&b, "tags", r->tags);
    /* Only a backward result has a direction (specification section 13):
     * a forward record reads and writes as before. */
    if (r->direction[0] != '\0')
        STRING_MEMBER(&b, "direction", r->direction);
    sb_key(&b, "status");
    sb_json_string(&b, iohw_result_status_name(r->status));
    STRING_MEMBER(&b, "message", r->message);
    STRING_MEMBER(&b, "diagnosis", r->diagnosis);
    STRING_MEMBER(&b, "warnings", r->warnings);
    sb_printf(&b, ", \"exact\": %s", r->exact ? "true" : "false");
    sb_printf(&b, ", \"elements\": %lld", (long long)r->elements);
    sb_printf(&b, ", \"mismatches\": %lld", (long long)r->mismatches);
    sb_printf(&b, ", \"unwritten\": %lld", (long long)r->unwritten);
    sb_key(&b, "worst_ratio");
    sb_double(&b, r->worst_ratio);
    sb_key(&b, "seconds");
    sb_double(&b, r->seconds);
    encode_speed(&b, r);
    encode_points(&b, r);
    encode_errmap(&b, r);
    sb_putc(&b, '}');
    if (b.over) {
        buf[0] = '\0';
        return -1;
    }
    return (int)b.len;
}

static size_t text_len(const char *s)
{
    return s != NULL ? strlen(s) : 0;
}

size_t iohw_record_size(const iohw_result *r)
{
    size_t text = text_len(r->case_id) + text_len(r->file) +
                  text_len(r->descriptor) + text_len(r->tags) +
                  text_len(r->message) + text_len(r->diagnosis) +
                  text_len(r->warnings) + sizeof r->direction;
    /* Every text byte escaped at six bytes; the names, numbers and points
     * fit in 4096, the errmap's bins in four bytes each. */
    return 6 * text + 4096 + 4 * sizeof r->errmap;
}

char *iohw_record_encode_alloc(const iohw_result *r)
{
    size_t size = iohw_record_size(r);
    char *buf = malloc(size);
    if (buf == NULL)
        return NULL;
    int n = iohw_record_encode(r, buf, size);
    if (n < 0) {
        free(buf);
        return NULL;
    }
    char *s = realloc(buf, (size_t)n + 1);
    return s != NULL ? s : buf;
}
