/*
 * harness/journal.c - writing the run journal (JSON lines) and reading it
 * back line by line (the parser of one line is in journal_parse.c).
 */
#include "harness/journal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --- one line ------------------------------------------------------------ */

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

/* A JSON string of at most `max` bytes of s (fixed-size fields need not be
 * NUL-terminated when full). */
static void sb_json_string(sbuf *b, const char *s, size_t max)
{
    size_t len = strnlen(s, max);
    const unsigned char *u = (const unsigned char *)s;
    sb_putc(b, '"');
    for (size_t i = 0; i < len;) {
        unsigned c = u[i];
        if (c == '"' || c == '\\') {
            sb_putc(b, '\\');
            sb_putc(b, (char)c);
        } else if (c == '\n') {
            sb_puts(b, "\\n");
        } else if (c == '\t') {
            sb_puts(b, "\\t");
        } else if (c == '\r') {
            sb_puts(b, "\\r");
        } else if (c < 0x20 || c == 0x7F) {
            sb_printf(b, "\\u%04x", c);
        } else if (c >= 0x80) {
            int k = utf8_len(u + i, len - i);
            if (k == 0) {
                sb_puts(b, "\\ufffd");
                i++;
                continue;
            }
            for (int j = 0; j < k; j++)
                sb_putc(b, (char)u[i + j]);
            i += (size_t)k;
            continue;
        } else {
            sb_putc(b, (char)c);
        }
        i++;
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
    sb_printf(b, ",\"%s\":", key);
}

int iohw_journal_format(const iohw_result *r, char *buf, size_t n)
{
    if (buf == NULL || n == 0)
        return -1;
    sbuf b = {buf, n, 0, 0};
    buf[0] = '\0';

    /* Strings. */
    sb_puts(&b, "{\"id\":");
    sb_json_string(&b, r->case_id, sizeof r->case_id);
    sb_key(&b, "file");
    sb_json_string(&b, r->file, sizeof r->file);
    sb_key(&b, "descriptor");
    sb_json_string(&b, r->descriptor, sizeof r->descriptor);
    sb_key(&b, "tags");
    sb_json_string(&b, r->tags, sizeof r->tags);
    sb_key(&b, "status");
    sb_json_string(&b, iohw_result_status_name(r->status), 16);
    sb_key(&b, "message");
    sb_json_string(&b, r->message, sizeof r->message);
    sb_key(&b, "diagnosis");
    sb_json_string(&b, r->diagnosis, sizeof r->diagnosis);

    /* Numbers. */
    sb_printf(&b, ",\"exact\":%d", r->exact);
    sb_printf(&b, ",\"elements\":%lld", (long long)r->elements);
    sb_printf(&b, ",\"mismatches\":%lld", (long long)r->mismatches);
    sb_printf(&b, ",\"unwritten\":%lld", (long long)r->unwritten);
    sb_key(&b, "worst_ratio");
    sb_double(&b, r->worst_ratio);
    sb_key(&b, "seconds");
    sb_double(&b, r->seconds);

    /* The first mismatching points. */
    int np = r->npoints;
    if (np < 0)
        np = 0;
    if (np > IOHW_RESULT_POINTS)
        np = IOHW_RESULT_POINTS;
    sb_puts(&b, ",\"points\":[");
    for (int i = 0; i < np; i++) {
        const iohw_point *p = &r->points[i];
        sb_printf(&b, "%s{\"index\":%lld,\"coord\":[", i ? "," : "",
                  (long long)p->index);
        for (int a = 0; a < 5; a++)
            sb_printf(&b, "%s%lld", a ? "," : "", (long long)p->coord[a]);
        sb_puts(&b, "],\"expected\":");
        sb_double(&b, p->expected);
        sb_puts(&b, ",\"got\":");
        sb_double(&b, p->got);
        sb_puts(&b, ",\"bound\":");
        sb_double(&b, p->bound);
        sb_putc(&b, '}');
    }
    sb_putc(&b, ']');

    /* The coarse error map, as hex, when anything is in it. */
    int any = 0;
    for (int i = 0; i < IOHW_RESULT_ERRMAP * IOHW_RESULT_ERRMAP; i++)
        any |= r->errmap[i];
    if (any) {
        sb_puts(&b, ",\"errmap\":\"");
        for (int i = 0; i < IOHW_RESULT_ERRMAP * IOHW_RESULT_ERRMAP; i++)
            sb_printf(&b, "%02x", r->errmap[i]);
        sb_putc(&b, '"');
    }
    sb_puts(&b, "}\n");
    return b.over ? -1 : (int)b.len;
}

/* --- reading ------------------------------------------------------------- */

int iohw_journal_read(const char *path, iohw_result **items, int64_t *count,
                      FILE *warn, int64_t *skipped, iohw_error *err)
{
    *items = NULL;
    *count = 0;
    if (skipped != NULL)
        *skipped = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        if (errno == ENOENT)
            return 0;
        return iohw_error_set(err, "cannot read journal %s: %s", path,
                              strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0, icap = 0;
    ssize_t len;
    int64_t lineno = 0;
    int rc = 0;
    while ((len = getline(&line, &cap, f)) != -1) {
        lineno++;
        if (len == 0 || (len == 1 && line[0] == '\n'))
            continue;
        iohw_result r;
        iohw_error e = {{0}};
        if (iohw_journal_parse(line, &r, &e) != 0) {
            if (warn != NULL)
                fprintf(warn, "iohw: %s:%lld: %s (a line cut short by a "
                        "killed run?), ignored\n", path, (long long)lineno,
                        e.msg);
            if (skipped != NULL)
                (*skipped)++;
            continue;
        }
        if ((size_t)*count == icap) {
            size_t ncap = icap ? 2 * icap : 256;
            iohw_result *v = realloc(*items, ncap * sizeof *v);
            if (v == NULL) {
                rc = iohw_error_set(err, "out of memory reading journal %s",
                                    path);
                break;
            }
            *items = v;
            icap = ncap;
        }
        (*items)[(*count)++] = r;
    }
    if (rc == 0 && ferror(f))
        rc = iohw_error_set(err, "cannot read journal %s: %s", path,
                            strerror(errno));
    free(line);
    fclose(f);
    if (rc != 0) {
        free(*items);
        *items = NULL;
        *count = 0;
    }
    return rc;
}

/* --- writing ------------------------------------------------------------- */

struct iohw_journal {
    FILE *f;
    char path[1024];
    int failed;
    char line[IOHW_JOURNAL_LINE_MAX];
};

/* 1 when the file is non-empty and its last byte is not '\n'. */
static int ends_mid_line(FILE *f)
{
    if (fseek(f, 0, SEEK_END) != 0)
        return 0;
    long size = ftell(f);
    if (size <= 0 || fseek(f, size - 1, SEEK_SET) != 0)
        return 0;
    int last = fgetc(f);
    fseek(f, 0, SEEK_END);
    return last != '\n';
}

iohw_journal *iohw_journal_open(const char *path, int append, iohw_error *err)
{
    iohw_journal *j = calloc(1, sizeof *j);
    if (j == NULL) {
        iohw_error_set(err, "out of memory opening journal %s", path);
        return NULL;
    }
    snprintf(j->path, sizeof j->path, "%s", path);
    j->f = fopen(path, append ? "a+" : "w");
    if (j->f == NULL) {
        iohw_error_set(err, "cannot write journal %s: %s", path,
                       strerror(errno));
        free(j);
        return NULL;
    }
    if (append && ends_mid_line(j->f)) {
        fputc('\n', j->f);
        fflush(j->f);
    }
    return j;
}

int iohw_journal_append(iohw_journal *j, const iohw_result *r, iohw_error *err)
{
    int n = iohw_journal_format(r, j->line, sizeof j->line);
    if (n < 0)
        return iohw_error_set(err, "journal %s: a result does not fit in a "
                              "line", j->path);
    if (fputs(j->line, j->f) == EOF || fflush(j->f) != 0) {
        j->failed = 1;
        return iohw_error_set(err, "cannot write journal %s: %s", j->path,
                              strerror(errno));
    }
    return 0;
}

int iohw_journal_close(iohw_journal *j, iohw_error *err)
{
    if (j == NULL)
        return 0;
    int rc = 0;
    if (fclose(j->f) != 0 || j->failed)
        rc = iohw_error_set(err, "cannot write journal %s", j->path);
    free(j);
    return rc;
}
