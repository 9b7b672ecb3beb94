/*
 * reports/text.c - escaping for the report formats, times, counts by
 * status, and the small helpers the writers share.
 *
 * Every writer prints text that came from a backend (messages) or from a
 * file (ids, descriptors), so none of it is trusted: invalid UTF-8, control
 * characters and markup characters are all escaped here, in one place per
 * format.
 */
#include "reports/reports_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- UTF-8 --------------------------------------------------------------- */

size_t iohw__utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (n == 0)
        return 0;
    unsigned char b = s[0];
    size_t len;
    uint32_t v, min;
    if (b < 0x80) {
        *cp = b;
        return 1;
    } else if (b >= 0xC2 && b <= 0xDF) {
        len = 2, v = b & 0x1Fu, min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3, v = b & 0x0Fu, min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4, v = b & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* s with its invalid bytes replaced by U+FFFD (wide) or by '?' (and each
 * U+FFFD by '?'), into buf[n]; its length, or n when it does not fit. */
static size_t fit_pass(const char *s, char *buf, size_t n, int wide)
{
    static const char fffd[] = "\xEF\xBF\xBD";
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s), o = 0;
    while (left > 0) {
        uint32_t cp;
        size_t k = iohw__utf8_next(p, left, &cp);
        const char *put = (const char *)p;
        size_t len = k;
        if (k == 0 || (!wide && cp == 0xFFFD)) {
            put = wide ? fffd : "?";
            len = wide ? 3 : 1;
            k = k == 0 ? 1 : k;
        }
        if (o + len >= n)
            return n;
        memcpy(buf + o, put, len);
        o += len, p += k, left -= k;
    }
    buf[o] = '\0';
    return o;
}

int iohw__text_fit(const char *s, char *buf, size_t n)
{
    if (fit_pass(s, buf, n, 1) < n || fit_pass(s, buf, n, 0) < n)
        return 0;
    buf[0] = '\0';
    return -1;
}

char *iohw__text_dup(const char *s)
{
    size_t len = strlen(s != NULL ? s : "");
    if (len > (SIZE_MAX - 1) / 3)
        return NULL;
    /* A byte that is not UTF-8 becomes U+FFFD: 3 bytes at most per byte. */
    char *buf = malloc(3 * len + 1);
    if (buf != NULL && iohw__text_fit(s != NULL ? s : "", buf, 3 * len + 1) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* --- JSON ---------------------------------------------------------------- */

void iohw__json_string(FILE *f, const char *s)
{
    const unsigned char *start = (const unsigned char *)(s != NULL ? s : "");
    const unsigned char *p = start;
    size_t n = strlen((const char *)p);
    fputc('"', f);
    while (n > 0) {
        uint32_t cp;
        size_t k = iohw__utf8_next(p, n, &cp);
        if (k == 0) {
            fputs("\\ufffd", f);
            p++, n--;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '/':
            /* "</" would end an HTML <script> element. */
            fputs(p > start && p[-1] == '<' ? "\\/" : "/", f);
            break;
        default:
            if (cp < 0x20 || cp == 0x7F || cp == 0x2028 || cp == 0x2029)
                fprintf(f, "\\u%04x", (unsigned)cp);
            else
                fwrite(p, 1, k, f);
        }
        p += k, n -= k;
    }
    fputc('"', f);
}

void iohw__json_double(FILE *f, double v)
{
    if (isnan(v))
        fputs("\"nan\"", f);
    else if (isinf(v))
        fputs(v > 0 ? "\"inf\"" : "\"-inf\"", f);
    else
        fprintf(f, "%.17g", v);
}

/* --- XML / HTML ---------------------------------------------------------- */

void iohw__xml_text(FILE *f, const char *s, int attr)
{
    const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");
    size_t n = strlen((const char *)p);
    while (n > 0) {
        uint32_t cp;
        size_t k = iohw__utf8_next(p, n, &cp);
        if (k == 0 || cp == 0xFFFE || cp == 0xFFFF) {
            fputs("\xEF\xBF\xBD", f);  /* U+FFFD */
            k = k == 0 ? 1 : k;
        } else if (cp == '&') {
            fputs("&amp;", f);
        } else if (cp == '<') {
            fputs("&lt;", f);
        } else if (cp == '>') {
            fputs("&gt;", f);
        } else if (attr && cp == '"') {
            fputs("&quot;", f);
        } else if (attr && cp == '\'') {
            fputs("&apos;", f);
        } else if (attr && (cp == '\n' || cp == '\r' || cp == '\t')) {
            fprintf(f, "&#%u;", (unsigned)cp);
        } else if (cp == '\r') {
            fputs("&#13;", f);
        } else if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7F ||
                   (cp >= 0x80 && cp <= 0x9F)) {
            fprintf(f, "\\x%02x", (unsigned)cp);
        } else {
            fwrite(p, 1, k, f);
        }
        p += k, n -= k;
    }
}

void iohw__md_cell(FILE *f, const char *s, size_t max)
{
    const char *p = s != NULL ? s : "";
    size_t n = strlen(p);
    char buf[1024];
    size_t keep = n < max ? n : max;
    if (keep > sizeof buf - 1)
        keep = sizeof buf - 1;
    /* Cut on a character boundary. */
    while (keep > 0 && keep < n && ((unsigned char)p[keep] & 0xC0) == 0x80)
        keep--;
    size_t j = 0;
    for (size_t i = 0; i < keep; i++)
        buf[j++] = (p[i] == '\n' || p[i] == '\r' || p[i] == '\t') ? ' ' : p[i];
    buf[j] = '\0';
    /* Escape for HTML, and with a backslash what Markdown would read. */
    char *q = buf;
    for (char *bar; (bar = strpbrk(q, "\\|`*_[]")) != NULL; q = bar + 1) {
        char c = *bar;
        *bar = '\0';
        iohw__xml_text(f, q, 0);
        fprintf(f, "\\%c", c);
    }
    iohw__xml_text(f, q, 0);
    if (keep < n)
        fputs("...", f);
}

/* --- time ---------------------------------------------------------------- */

void iohw__iso_time(int64_t t, char *buf, size_t n)
{
    struct tm tm;
    time_t tt = (time_t)t;
    if (n == 0)
        return;
    buf[0] = '\0';
    if (t == 0 || gmtime_r(&tt, &tm) == NULL)
        return;
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int iohw__iso_time_parse(const char *s, int64_t *t)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (end == NULL || *end != '\0')
        return -1;
    time_t v = timegm(&tm);
    if (v == (time_t)-1)
        return -1;
    *t = (int64_t)v;
    return 0;
}

/* --- results ------------------------------------------------------------- */

void iohw__count(const iohw_run_results *r, iohw__counts *c)
{
    memset(c, 0, sizeof *c);
    c->first_flushed = c->first_rounded = -1;
    for (int64_t i = 0; i < r->count; i++) {
        iohw_result_status s = r->items[i].status;
        c->total++;
        if ((int)s >= 0 && (int)s < (int)IOHW_RESULT_STATUS_COUNT)
            c->status[s]++;
        if (iohw_result_status_bad(s))
            c->bad++;
        const int flushed = iohw_result_flushed(&r->items[i]);
        if (flushed && c->flushed++ == 0)
            c->first_flushed = i;
        if (!flushed && iohw_result_rounded(&r->items[i]) && c->rounded++ == 0)
            c->first_rounded = i;
    }
    c->noted = c->flushed + c->rounded;
}

void iohw__repro(const iohw_report_options *o, const iohw_result *r,
                 char *buf, int n)
{
    const char *backend = o != NULL ? o->backend_path : NULL;
    if (iohw_repro_command(backend, r, buf, n) < 0 && n > 0)
        buf[0] = '\0';
}

int iohw__has_errmap(const iohw_result *r)
{
    for (size_t i = 0; i < sizeof r->errmap; i++)
        if (r->errmap[i] != 0)
            return 1;
    return 0;
}

size_t iohw_report_category(const iohw_result *r, char *buf, size_t n)
{
    const char *id = r->case_id;
    const char *dot1 = strchr(id, '.');
    const char *dot2 = dot1 != NULL ? strchr(dot1 + 1, '.') : NULL;
    if (n == 0)
        return 0;
    if (dot2 != NULL) {
        size_t len = (size_t)(dot2 - id);
        snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), id);
        return strlen(buf);
    }
    /* The file's name without directory and extension. */
    const char *base = strrchr(r->file, '/');
    base = base != NULL ? base + 1 : r->file;
    const char *ext = strrchr(base, '.');
    size_t len = ext != NULL && ext != base ? (size_t)(ext - base) : strlen(base);
    if (len == 0) {
        snprintf(buf, n, "%s", "cases");
        return strlen(buf);
    }
    snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), base);
    return strlen(buf);
}

/* --- files --------------------------------------------------------------- */

char *iohw__read_file(const char *path, size_t max, size_t *len,
                      iohw_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return iohw_error_set(err, "%s: %s", path, strerror(errno)), NULL;
    size_t cap = 0, n = 0;
    char *buf = NULL;
    const char *why = NULL;
    for (;;) {
        if (n + 1 >= cap) {
            size_t ncap = cap == 0 ? 65536 : cap * 2;
            char *nb = ncap / 2 > max ? NULL : realloc(buf, ncap);
            if (nb == NULL) {
                why = ncap / 2 > max ? "too large" : "out of memory";
                break;
            }
            buf = nb, cap = ncap;
        }
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0)
            break;
    }
    if (why == NULL && ferror(f))
        why = strerror(errno);
    if (why == NULL && n > max)
        why = "too large";
    fclose(f);
    if (why != NULL) {
        free(buf);
        if (strcmp(why, "too large") == 0)
            return iohw_error_set(err, "%s: larger than %zu bytes", path, max),
                   NULL;
        return iohw_error_set(err, "%s: %s", path, why), NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
