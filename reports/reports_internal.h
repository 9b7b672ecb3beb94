/*
 * reports/reports_internal.h - what the files of the reports module share:
 * text escaping for XML, HTML, JSON and Markdown, counts by status, and the
 * small JSON tree the readers use.  Not part of the module's interface.
 */
#ifndef IOHW_REPORTS_INTERNAL_H
#define IOHW_REPORTS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "judge/verdict.h"
#include "reports/reports.h"

#ifndef IOHW_VERSION_STRING
#define IOHW_VERSION_STRING "0.1.0"
#endif

/* --- text ---------------------------------------------------------------- */

/* Decodes one UTF-8 sequence at s (n bytes left): returns its length and
 * sets *cp, or returns 0 for a byte that does not start a valid sequence
 * (overlong forms, surrogates and values past U+10FFFF are invalid). */
size_t iohw__utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/* Copies s into buf[n] as the JSON writer will give it back when read:
 * bytes that are not UTF-8 become U+FFFD; when that does not fit, they
 * and any U+FFFD already there become '?' (one byte each), so that a field
 * written from n - 1 bytes always reads back into n.  0, or -1 when even
 * that does not fit (buf is then ""). */
int iohw__text_fit(const char *s, char *buf, size_t n);
/* The same into a malloc'd string of the size it needs (no limit); NULL
 * when memory runs out. */
char *iohw__text_dup(const char *s);

/* Writes s as a JSON string, quotes included: RFC 8259 escapes, \u00XX for
 * other control characters, U+FFFD for bytes that are not UTF-8, and "<\/"
 * for "</" so that the text can sit inside an HTML <script>. */
void iohw__json_string(FILE *f, const char *s);

/* Hands p to the report's storage (freed with the report); returns p, or
 * NULL (p freed) when memory runs out or p is NULL. */
void *iohw__report_own(iohw_report *rep, void *p);
/* A double as JSON: 17 significant digits, or the strings "inf", "-inf",
 * "nan" where JSON has no number. */
void iohw__json_double(FILE *f, double v);

/* Writes s as XML character data (attr = 0) or an attribute value (attr =
 * 1, also escaping quotes, tabs and newlines): & < > escaped, control
 * characters XML cannot hold written as the visible text \xHH, bytes that
 * are not UTF-8 (and U+FFFE, U+FFFF) as U+FFFD.  Valid HTML as well. */
void iohw__xml_text(FILE *f, const char *s, int attr);

/* Writes s for a Markdown table cell: HTML-escaped, '|' as "\|", line
 * breaks as spaces, at most max bytes (then "..."). */
void iohw__md_cell(FILE *f, const char *s, size_t max);

/* One group of the verdict as a writer shows it: its place k (0 first),
 * the group, its smallest case and that case's repro ("" when it does not
 * fit). */
typedef struct iohw__verdict_row {
    int k;
    const iohw_verdict_group *g;
    const iohw_result *smallest;
    const char *repro;
} iohw__verdict_row;

/* How one report writes the verdict: head (with the headline), a row per
 * group, tail, then, when note is not NULL, a note per group. */
typedef struct iohw__verdict_writer {
    void (*head)(FILE *f, const iohw_verdict *v, const char *headline);
    void (*row)(FILE *f, const iohw__verdict_row *row);
    void (*tail)(FILE *f, const iohw_verdict *v);
    void (*note)(FILE *f, const iohw__verdict_row *row);
    int max_rows;   /* groups shown at most (0: all) */
    int always;     /* 1: written with no failures too, and running out of
                       memory is an error; 0: nothing in either case */
} iohw__verdict_writer;

/* Builds the verdict of r and writes it through w, largest group first.
 * 0, or -1 when memory runs out and w->always is set. */
int iohw__verdict_walk(FILE *f, const iohw_run_results *r,
                       const iohw_report_options *o,
                       const iohw__verdict_writer *w);

/* "2026-12-02T11:09:46Z" (UTC) into buf (>= 32 bytes); "" for 0. */
void iohw__iso_time(int64_t t, char *buf, size_t n);
/* Parses that form back; 0, or -1. */
int iohw__iso_time_parse(const char *s, int64_t *t);

/* --- results ------------------------------------------------------------- */

typedef struct iohw__counts {
    int64_t total;
    int64_t status[IOHW_RESULT_STATUS_COUNT];
    int64_t bad;  /* FAIL + ERROR + CRASH + TIMEOUT + INVALID */
    /* PASS with a note (results/result.h): under a declared subnormal
     * flush, under a declared rounding, and the index of the first of
     * each (-1: none); noted is their sum. */
    int64_t flushed, rounded, first_flushed, first_rounded, noted;
} iohw__counts;

void iohw__count(const iohw_run_results *r, iohw__counts *c);

/* The repro command of a result (harness/run.h), "" when it does not fit. */
void iohw__repro(const iohw_report_options *o, const iohw_result *r,
                 char *buf, int n);

/* 1 when some bin of r->errmap is non-zero. */
int iohw__has_errmap(const iohw_result *r);

/* The speed part of a performance run (reports/speed.c); nothing when no
 * result was timed. */
void iohw__speed_markdown(FILE *f, const iohw_run_results *r);
void iohw__speed_html(FILE *f, const iohw_run_results *r);

/* --- HTML pieces (reports/html_svg.c, reports/html_assets.c) ------------- */

/* A heat map of where r's mismatches sit in the output's (h, w) plane. */
void iohw__svg_heatmap(FILE *f, const iohw_result *r);
/* A histogram of the worst error ratios of the cases that compared. */
void iohw__svg_histogram(FILE *f, const iohw_run_results *r);
/* A bar split by outcome (pass, fail, skip, waived). */
void iohw__svg_bar(FILE *f, const int64_t count[IOHW_OUTCOME_COUNT]);
const char *iohw__outcome_color(iohw_outcome o);

extern const char iohw__html_css[];
extern const char iohw__html_js[];

/* --- a JSON tree (reports/json_parse.c) ---------------------------------- */

typedef enum iohw__json_type {
    IOHW__JSON_NULL,
    IOHW__JSON_BOOL,
    IOHW__JSON_NUMBER,
    IOHW__JSON_STRING,
    IOHW__JSON_ARRAY,
    IOHW__JSON_OBJECT
} iohw__json_type;

typedef struct iohw__json iohw__json;
struct iohw__json {
    iohw__json_type type;
    int line, col;          /* where the value starts */
    size_t start, end;      /* its text: bytes [start, end) of the input */
    int boolean;            /* BOOL */
    double number;          /* NUMBER (finite) */
    int is_int;             /* NUMBER written without fraction or exponent
                               and inside int64_t */
    int64_t integer;        /* when is_int */
    const char *string;     /* STRING: UTF-8, no NUL inside */
    size_t n;               /* ARRAY, OBJECT: members */
    iohw__json **items;     /* ARRAY, OBJECT */
    const char **keys;      /* OBJECT */
};

/* Nesting deeper than this is an error. */
#define IOHW__JSON_DEPTH_MAX 64

typedef struct iohw__json_doc iohw__json_doc;

/* Parses text (len bytes, NUL bytes included are an error) into a tree;
 * NULL with "NAME:LINE:COL: reason". */
iohw__json_doc *iohw__json_parse(const char *text, size_t len,
                                 const char *name, iohw_error *err);
const iohw__json *iohw__json_root(const iohw__json_doc *d);
void iohw__json_free(iohw__json_doc *d);

/* The member key of an object, or NULL (also when o is not an object). */
const iohw__json *iohw__json_get(const iohw__json *o, const char *key);

/* Reads a whole file (at most max bytes) into a malloc'd NUL-terminated
 * buffer. */
char *iohw__read_file(const char *path, size_t max, size_t *len,
                      iohw_error *err);

#endif
