/*
 * results/result.c - names, meanings and badness of the result statuses,
 * all generated from IOHW_RESULT_STATUS_MAP (results/result.h) so that the
 * three never drift; a result's repro command and its worst error.
 */
#include "results/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/quant_problem.h"  /* iohw_quant_rounding_name */

static const char *const status_names[] = {
#define IOHW_XX(name, bad, meaning) #name,
    IOHW_RESULT_STATUS_MAP(IOHW_XX)
#undef IOHW_XX
};

static const char *const status_meanings[] = {
#define IOHW_XX(name, bad, meaning) meaning,
    IOHW_RESULT_STATUS_MAP(IOHW_XX)
#undef IOHW_XX
};

static const int status_bad[] = {
#define IOHW_XX(name, bad, meaning) bad,
    IOHW_RESULT_STATUS_MAP(IOHW_XX)
#undef IOHW_XX
};

/* 1 when s is one of the enum's statuses (the enum may be unsigned). */
static int status_known(iohw_result_status s)
{
    return (int)s >= 0 && (int)s < (int)IOHW_RESULT_STATUS_COUNT;
}

const char *iohw_result_status_name(iohw_result_status s)
{
    return status_known(s) ? status_names[s] : "?";
}

const char *iohw_result_status_meaning(iohw_result_status s)
{
    return status_known(s) ? status_meanings[s] : "an unknown status";
}

int iohw_result_status_bad(iohw_result_status s)
{
    return status_known(s) ? status_bad[s] : 1;
}

int iohw_result_status_parse(const char *name, iohw_result_status *s)
{
    if (name == NULL || s == NULL)
        return -1;
    for (int i = 0; i < (int)IOHW_RESULT_STATUS_COUNT; i++) {
        if (strcmp(name, status_names[i]) == 0) {
            *s = (iohw_result_status)i;
            return 0;
        }
    }
    return -1;
}

/* --- the repro command ---------------------------------------------------- */

/* Appends s to buf (size n); *len counts what did not fit as well. */
static void append(char *buf, size_t n, size_t *len, const char *s)
{
    size_t k = strlen(s);
    if (*len + k < n)
        memcpy(buf + *len, s, k + 1);
    *len += k;
}

/* Appends s, single-quoted when it holds anything the shell interprets. */
static void append_word(char *buf, size_t n, size_t *len, const char *s)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                               "VWXYZ0123456789_-./:=@%+,";
    if (s[0] != '\0' && strspn(s, safe) == strlen(s)) {
        append(buf, n, len, s);
        return;
    }
    append(buf, n, len, "'");
    for (const char *q = s; *q; q++) {
        char one[2] = {*q, '\0'};
        append(buf, n, len, *q == '\'' ? "'\\''" : one);
    }
    append(buf, n, len, "'");
}

/* The shortest "%g" form of x that reads back as x. */
static void format_seconds(double x, char *buf, size_t n)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

/* The options that change the outcome, each with a leading blank. */
static void append_options(char *buf, size_t n, size_t *len,
                           const iohw_repro_options *o, const iohw_result *r)
{
    char num[64], secs[40];
    int adapted = strncmp(r->message, IOHW_REPRO_ADAPTED,
                          strlen(IOHW_REPRO_ADAPTED)) == 0;
    if (adapted || (o != NULL && o->adapt_layout))
        append(buf, n, len, " --adapt-layout");
    if (o == NULL)
        return;
    if (o->timeout_fixed) {
        format_seconds(o->timeout, secs, sizeof secs);
        snprintf(num, sizeof num, " --timeout %s", secs);
        append(buf, n, len, num);
    }
    if (o->memory_limit_mb >= 0) {
        snprintf(num, sizeof num, " --memory-limit %lld",
                 (long long)o->memory_limit_mb);
        append(buf, n, len, num);
    }
    if (o->subnormals_flush != 0) {
        append(buf, n, len, " --subnormals ");
        iohw_subnormals_format(o->subnormals_flush, num, sizeof num);
        append(buf, n, len, num);
    }
    if (o->rounding != 0) {
        append(buf, n, len, " --rounding ");
        append(buf, n, len, iohw_quant_rounding_name(o->rounding));
    }
}

extern char **environ;

/* For the exec backend (libiohw_exec*.so), which is told its program by
 * the environment: every IOHW_EXEC_* variable set now, as NAME=VALUE
 * (the value quoted for the shell) and a blank, so the command runs as
 * pasted. */
static void append_exec_env(char *buf, size_t n, size_t *len, const char *backend)
{
    const char *base = backend != NULL ? strrchr(backend, '/') : NULL;
    base = base != NULL ? base + 1 : backend;
    if (base == NULL || strncmp(base, "libiohw_exec", strlen("libiohw_exec")) != 0)
        return;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        char name[64];
        if (strncmp(*e, "IOHW_EXEC_", 10) != 0 || eq == NULL
            || (size_t)(eq - *e) >= sizeof name)
            continue;
        snprintf(name, sizeof name, "%.*s=", (int)(eq - *e), *e);
        append(buf, n, len, name);
        append_word(buf, n, len, eq + 1);
        append(buf, n, len, " ");
    }
}

int iohw_repro_format(const iohw_repro_options *o, const iohw_result *r,
                      char *buf, int n)
{
    if (buf == NULL || n <= 0 || r == NULL)
        return -1;
    size_t len = 0, cap = (size_t)n;
    buf[0] = '\0';
    append_exec_env(buf, cap, &len, o != NULL ? o->backend : NULL);
    append(buf, cap, &len, "iohw run --backend ");
    append_word(buf, cap, &len,
                o != NULL && o->backend != NULL ? o->backend : "LIB");
    append(buf, cap, &len, " ");
    append_word(buf, cap, &len, r->file);
    if (r->case_id[0] != '\0') {
        append(buf, cap, &len, " --filter 'id=");
        append(buf, cap, &len, r->case_id);
        append(buf, cap, &len, "'");
    }
    append_options(buf, cap, &len, o, r);
    return len < cap ? (int)len : -1;
}

void iohw_repro_options_backend(const char *backend, iohw_repro_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = backend;
    o->memory_limit_mb = -1;
}

int iohw_repro_command(const char *backend, const iohw_result *r, char *buf,
                       int n)
{
    iohw_repro_options o;
    iohw_repro_options_backend(backend, &o);
    return iohw_repro_format(&o, r, buf, n);
}

int iohw_result_flushed(const iohw_result *r)
{
    return r != NULL && r->status == IOHW_RESULT_PASS &&
           strstr(r->message, IOHW_RESULT_NOTE_FLUSHED) != NULL;
}

int iohw_result_rounded(const iohw_result *r)
{
    return r != NULL && r->status == IOHW_RESULT_PASS &&
           strstr(r->message, IOHW_RESULT_NOTE_ROUNDING) != NULL;
}

/* The recorded mismatch with a non-finite value, else the one with the
 * largest error where exactly 0 is expected; NULL when neither. */
static const iohw_point *infinite_point(const iohw_result *r)
{
    const iohw_point *zero = NULL;
    for (int k = 0; k < r->npoints && k < IOHW_RESULT_POINTS; k++) {
        const iohw_point *p = &r->points[k];
        if (!isfinite(p->got) || !isfinite(p->expected))
            return p;
        if (p->expected == 0.0 && p->got != 0.0 &&
            (zero == NULL || fabs(p->got) > fabs(zero->got)))
            zero = p;
    }
    return zero;
}

void iohw_result_worst_error(const iohw_result *r, char *buf, size_t n)
{
    const iohw_point *p = isinf(r->worst_ratio) ? infinite_point(r) : NULL;
    if (!isinf(r->worst_ratio))
        snprintf(buf, n, "worst error %.3g u*err_bound", r->worst_ratio);
    else if (r->unwritten > 0)
        snprintf(buf, n, "worst error: elements never written");
    else if (p == NULL)
        snprintf(buf, n, "worst error inf u*err_bound");
    else if (!isfinite(p->got) || !isfinite(p->expected))
        snprintf(buf, n, "worst error: got %.9g where %.9g is expected",
                 p->got, p->expected);
    else
        snprintf(buf, n, "worst error %.3g (absolute) where exactly 0 is "
                 "expected (err_bound 0: no error allowed)", fabs(p->got));
}

void iohw_result_init(iohw_result *r)
{
    memset(r, 0, sizeof *r);
    r->case_id = r->file = r->descriptor = r->tags = iohw_text_keep(NULL);
    r->message = r->diagnosis = r->warnings = iohw_text_keep(NULL);
}
