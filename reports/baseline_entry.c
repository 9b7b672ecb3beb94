/*
 * reports/baseline_entry.c - a baseline entry's strings (malloc'd, no
 * fixed size: a 4 KB pattern or reason is kept whole) and the baseline made
 * from a report's failures (`iohw report baseline`).
 */
#include "reports/reports_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* printf into a malloc'd string of the size it needs, or NULL. */
static char *fmt_alloc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_alloc(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s != NULL) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* The entry standing for the failing result x of report NAME (base). */
static int entry_of_result(iohw_baseline_entry *e, const iohw_result *x,
                           const char *base)
{
    const char *key = x->case_id[0] != '\0' ? x->case_id : x->file;
    e->pattern = strdup(key);
    e->reason = fmt_alloc("%s in %s: %s", iohw_result_status_name(x->status),
                          base, x->message);
    e->condition = strdup("");
    if (e->pattern == NULL || e->reason == NULL || e->condition == NULL)
        return -1;
    /* One line, no control characters, no white space in the pattern. */
    for (char *c = e->reason; *c != '\0'; c++)
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    for (char *c = e->pattern; *c != '\0'; c++)
        if ((unsigned char)*c <= 0x20)
            *c = '?';
    return 0;
}

int iohw_baseline_from_report(const iohw_report *rep, const char *name,
                              iohw_baseline *b, iohw_error *err)
{
    memset(b, 0, sizeof *b);
    if ((b->path = strdup(name != NULL ? name : "report")) == NULL)
        return iohw_error_set(err, "%s: out of memory", name != NULL ? name : "report");
    const iohw_run_results *r = &rep->results;
    int64_t bad = 0;
    for (int64_t i = 0; i < r->count; i++)
        bad += iohw_result_status_bad(r->items[i].status);
    int rc = 0;
    if (bad > INT32_MAX)
        rc = iohw_error_set(err, "%s: too many failures for a baseline", b->path);
    else if (bad > 0 && (b->entries = calloc((size_t)bad, sizeof *b->entries)) == NULL)
        rc = iohw_error_set(err, "%s: out of memory", b->path);
    const char *base = strrchr(b->path, '/');
    base = base != NULL ? base + 1 : b->path;
    for (int64_t i = 0; rc == 0 && i < r->count; i++) {
        if (!iohw_result_status_bad(r->items[i].status))
            continue;
        if (entry_of_result(&b->entries[b->count++], &r->items[i], base) != 0)
            rc = iohw_error_set(err, "%s: out of memory", b->path);
    }
    if (rc != 0)
        iohw_baseline_free(b);
    return rc;
}

void iohw_baseline_entry_free(iohw_baseline_entry *e)
{
    free(e->pattern);
    free(e->reason);
    free(e->condition);
    e->pattern = e->reason = e->condition = NULL;
}

int iohw_baseline_entry_copy(iohw_baseline_entry *dst,
                             const iohw_baseline_entry *src)
{
    *dst = *src;
    dst->pattern = strdup(src->pattern != NULL ? src->pattern : "");
    dst->reason = strdup(src->reason != NULL ? src->reason : "");
    dst->condition = strdup(src->condition != NULL ? src->condition : "");
    if (dst->pattern != NULL && dst->reason != NULL && dst->condition != NULL)
        return 0;
    iohw_baseline_entry_free(dst);
    return -1;
}
