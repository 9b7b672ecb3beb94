/*
 * reports/reports.h - what a run leaves behind: JUnit XML, JSON
 * (docs/REPORT_FORMAT.md), a self-contained HTML page and a Markdown
 * summary; the baseline of known failures; reading JSON reports back to
 * merge shards and to diff two runs; the parameter-space coverage.
 *
 * Input is always a run's results (harness/run.h iohw_run_results) plus
 * the run information of iohw_report_options.  Writers never change the
 * results; only iohw_baseline_apply does (FAIL... -> WAIVED).
 */
#ifndef IOHW_REPORTS_H
#define IOHW_REPORTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results/result.h"
#include "results/run_results.h"
#include "oracle/error.h"

/* The version of the JSON report format ("iohw_report_version"). */
#define IOHW_REPORT_VERSION 1

/* --- the baseline of known failures ------------------------------------- */

typedef struct iohw_report iohw_report;  /* a JSON report read back, below */

/* One line of a baseline file: `CASE_ID_OR_GLOB  reason...`.  The strings
 * have no fixed size: each is malloc'd, owned by the baseline (freed by
 * iohw_baseline_free) and never NULL in an entry iohw makes. */
typedef struct iohw_baseline_entry {
    char *pattern;      /* a case id or an fnmatch glob */
    char *reason;
    int line;           /* line in the baseline file; 0 when unknown */
    int64_t matched;    /* failing results this entry waived */
    /* Appended: the entry's conditions ("cpu=avx512_bf16 version~1.13"),
     * "" when it holds everywhere, and whether they failed to hold in the
     * last iohw_baseline_apply (such an entry waives nothing and is not
     * stale). */
    char *condition;
    int inapplicable;
} iohw_baseline_entry;

typedef struct iohw_baseline {
    char *path;                    /* malloc'd; NULL when not named */
    iohw_baseline_entry *entries;  /* malloc'd; NULL when count is 0 */
    int count;
} iohw_baseline;

/* Parses baseline text: one entry per line, the pattern, white space, any
 * conditions (words `cpu=FEATURE`, `cpu!=FEATURE`, `version~TEXT`,
 * `version!~TEXT`; FEATURE one of results/machine.h's names), the reason
 * (required); blank lines and lines starting with '#' are skipped.
 * name labels the error messages ("NAME:LINE: ...").  *b is overwritten. */
int iohw_baseline_parse(const char *text, const char *name, iohw_baseline *b,
                        iohw_error *err);
/* Reads and parses a baseline file.  A file that holds a JSON report
 * (starts with '{') stands for its failures: see iohw_baseline_from_report. */
int iohw_baseline_load(const char *path, iohw_baseline *b, iohw_error *err);
/* A baseline with one entry per FAIL, ERROR, CRASH, TIMEOUT or INVALID case
 * of a report: the case id (the file for a whole-file entry), and as reason
 * "STATUS in NAME: message" on one line.  Accepting today's failures this
 * way makes later runs fail only on new ones. */
int iohw_baseline_from_report(const iohw_report *rep, const char *name,
                              iohw_baseline *b, iohw_error *err);
/* Writes a baseline in the file format (a comment line, then one entry per
 * line); 0, or -1 on a write error. */
int iohw_baseline_write(FILE *f, const iohw_baseline *b);
/* Frees the entries, their strings and the path; *b is then empty. */
void iohw_baseline_free(iohw_baseline *b);
/* A copy of src's strings into dst (matched, line and inapplicable too);
 * 0, or -1 when memory runs out (dst then holds no memory). */
int iohw_baseline_entry_copy(iohw_baseline_entry *dst,
                             const iohw_baseline_entry *src);
/* Frees an entry's strings (the entry itself belongs to its baseline). */
void iohw_baseline_entry_free(iohw_baseline_entry *e);

/* Waives known failures: every FAIL, ERROR, CRASH, TIMEOUT or INVALID whose
 * case id (or, for an entry without an id, whose file) matches an entry's
 * pattern becomes WAIVED, with the entry's reason and the old status in the
 * message; the first matching entry counts it in `matched`.  Returns the
 * number of results waived. */
int64_t iohw_baseline_apply(iohw_baseline *b, iohw_run_results *r);
/* Entries that waived nothing although their condition held. */
int iohw_baseline_stale_count(const iohw_baseline *b);
/* 1 when this entry is stale: it waived nothing and its condition held. */
int iohw_baseline_entry_stale(const iohw_baseline_entry *e);
/* 1 when the entry's condition holds for these results: every `cpu=F` names
 * a feature of r->machine, every `cpu!=F` one it lacks, every `version~T`
 * is text in r->backend_version and every `version!~T` text not in it. */
int iohw_baseline_entry_applies(const iohw_baseline_entry *e,
                                const iohw_run_results *r);
/* Prints one line per stale entry ("iohw: baseline FILE:LINE: PATTERN
 * matches no failing case (stale)"); nothing when there are none. */
void iohw_baseline_print_stale(const iohw_baseline *b, FILE *out);

/* --- writing reports ----------------------------------------------------- */

typedef struct iohw_report_options {
    /* Files to write, or NULL; "-" is stdout. */
    const char *junit;
    const char *json;
    const char *html;
    const char *markdown;
    /* Run information the reports show (every member optional). */
    const char *backend_path;        /* for the repro commands */
    const char *const *inputs;       /* suite directories or case files */
    int ninputs;
    const char *filter;
    int shard_index, shard_count;    /* 0/0 or 1/1 when not sharded */
    int jobs;
    double timeout;
    int64_t start_time;              /* Unix seconds; 0 = unknown */
    const char *iohw_version;        /* NULL: this build's */
    const iohw_baseline *baseline;   /* the baseline applied, or NULL */
    const char *const *sources;      /* reports merged into this one */
    int nsources;
    const char *title;               /* NULL: "iohw report: BACKEND" */
} iohw_report_options;

/* Writes every report o names; stops at the first error, naming the file. */
int iohw_reports_write(const iohw_run_results *r, const iohw_report_options *o,
                       iohw_error *err);

/* The writers, one per format; 0, or -1 on a write error. */
int iohw_report_junit(FILE *f, const iohw_run_results *r,
                      const iohw_report_options *o);
int iohw_report_json(FILE *f, const iohw_run_results *r,
                     const iohw_report_options *o);
int iohw_report_html(FILE *f, const iohw_run_results *r,
                     const iohw_report_options *o);
int iohw_report_markdown(FILE *f, const iohw_run_results *r,
                         const iohw_report_options *o);

/* The one mapping from statuses to JUnit: PASS plain, FAIL failure, ERROR,
 * CRASH, TIMEOUT and INVALID error, UNSUPPORTED and WAIVED skipped. */
typedef enum iohw_junit_kind {
    IOHW_JUNIT_PASSED,
    IOHW_JUNIT_FAILURE,
    IOHW_JUNIT_ERROR,
    IOHW_JUNIT_SKIPPED
} iohw_junit_kind;
iohw_junit_kind iohw_junit_kind_of(iohw_result_status s);

/* A result's category: its case id up to the second '.' ("ct2d.grouped"
 * of "ct2d.grouped.0003"), or, for an id with fewer dots, the file's name
 * without directory and extension.  Returns the length. */
size_t iohw_report_category(const iohw_result *r, char *buf, size_t n);

/* --- reading JSON reports back ------------------------------------------ */

/* A report read from JSON: results and run information.  options points
 * into storage the report owns (its output paths are NULL); baseline is
 * the report's baseline section (count 0 when it had none). */
struct iohw_report {
    iohw_run_results results;
    iohw_report_options options;
    iohw_baseline baseline;
    int version;                 /* iohw_report_version */
    /* Storage (strings and arrays options points at). */
    void **owned;
    int nowned, capowned;
};

/* Parses a JSON report (text of len bytes; name labels errors).  Hostile
 * input gives an error naming the place, never a crash: depth, sizes and
 * numbers are all checked. */
int iohw_report_parse(const char *text, size_t len, const char *name,
                      iohw_report *rep, iohw_error *err);
int iohw_report_read(const char *path, iohw_report *rep, iohw_error *err);
void iohw_report_free(iohw_report *rep);

/* --- merge and diff ------------------------------------------------------ */

/* Merges reports (shards, or re-runs): the union of their cases, keyed by
 * (file, id); a key seen again replaces the earlier result and counts in
 * *replaced (may be NULL).  Results come out sorted by file, then id.  The
 * backends must agree (name and version).  Baseline entries are merged by
 * (pattern, reason) with their matches summed, so an entry is stale only
 * when it matched in no shard.  The run time is the sum, the start time the
 * earliest. */
int iohw_report_merge(const iohw_report *const *in, int n, iohw_report *out,
                      int64_t *replaced, iohw_error *err);

typedef struct iohw_diff_counts {
    int64_t new_failures;   /* bad in NEW; not bad (or absent) in OLD */
    int64_t fixed;          /* bad in OLD; present and not bad in NEW */
    int64_t still_failing;  /* bad in both */
    int64_t ratio_changed;  /* worst_ratio changed beyond the factor */
    int64_t added, removed; /* cases only in NEW / only in OLD */
} iohw_diff_counts;

/* Compares two reports, keyed by (file name without directory, id); prints
 * the differences to out (may be NULL) and fills *counts.  A worst error
 * ratio changes when one is finite and the other not, or when
 * max(a, floor) / max(b, floor) exceeds factor (> 1) either way. */
void iohw_report_diff(const iohw_report *old_rep, const iohw_report *new_rep,
                      double factor, double floor, FILE *out,
                      iohw_diff_counts *counts);

/* --- parameter-space coverage ------------------------------------------- */

typedef enum iohw_factor {
    IOHW_FACTOR_RANK,
    IOHW_FACTOR_GROUPS,          /* 1, grouped, depthwise (C_in / G = 1) */
    IOHW_FACTOR_STRIDE,          /* largest over the axes: 1 2 3 4 5+ */
    IOHW_FACTOR_DILATION,        /* likewise */
    IOHW_FACTOR_PADDING,         /* none, symmetric, asymmetric */
    IOHW_FACTOR_OUTPUT_PADDING,  /* 0, >0, beyond-limit */
    IOHW_FACTOR_DTYPE,
    IOHW_FACTOR_DATA_LAYOUT,
    IOHW_FACTOR_WEIGHT_LAYOUT,
    IOHW_FACTOR_FILL,
    IOHW_FACTOR_BIAS,            /* no, yes */
    IOHW_FACTOR_COUNT
} iohw_factor;

#define IOHW_FACTOR_VALUE_MAX 24

/* "rank", "groups", "stride", ... */
const char *iohw_factor_name(iohw_factor f);

/* The value of every factor for a problem descriptor. */
int iohw_factor_values(const char *descriptor,
                       char v[IOHW_FACTOR_COUNT][IOHW_FACTOR_VALUE_MAX],
                       iohw_error *err);

/* What a status counts as in the coverage. */
typedef enum iohw_outcome {
    IOHW_OUTCOME_PASS,    /* PASS */
    IOHW_OUTCOME_FAIL,    /* FAIL, ERROR, CRASH, TIMEOUT, INVALID */
    IOHW_OUTCOME_SKIP,    /* UNSUPPORTED */
    IOHW_OUTCOME_WAIVED,  /* WAIVED */
    IOHW_OUTCOME_COUNT
} iohw_outcome;
iohw_outcome iohw_outcome_of(iohw_result_status s);
/* "pass", "fail", "skip", "waived". */
const char *iohw_outcome_name(iohw_outcome o);

typedef struct iohw_factor_level {
    char value[IOHW_FACTOR_VALUE_MAX];
    int64_t count[IOHW_OUTCOME_COUNT];
} iohw_factor_level;

typedef struct iohw_coverage {
    int nlevels[IOHW_FACTOR_COUNT];
    iohw_factor_level *levels[IOHW_FACTOR_COUNT];  /* in a natural order */
    int64_t ncases;      /* results */
    int64_t unknown;     /* results whose descriptor does not parse */
    int16_t *level_of;   /* [ncases][IOHW_FACTOR_COUNT]: level, or -1 */
    uint8_t *outcome;    /* [ncases]: iohw_outcome */
} iohw_coverage;

int iohw_coverage_build(const iohw_run_results *r, iohw_coverage *cov,
                        iohw_error *err);
void iohw_coverage_free(iohw_coverage *cov);

/* Counts of the value pairs of factors a and b: element
 * [(i * nlevels[b] + j) * IOHW_OUTCOME_COUNT + k] counts the cases with
 * level i of a, level j of b and outcome k.  malloc'd; NULL on no memory. */
int64_t *iohw_coverage_pair(const iohw_coverage *cov, iohw_factor a,
                            iohw_factor b);

/* Over every pair of factors: value pairs possible (products of the levels
 * seen), exercised (some case), all passing (exercised, every case PASS),
 * with a failure (some case FAIL...). */
typedef struct iohw_pair_summary {
    int64_t possible, exercised, passing, failing;
} iohw_pair_summary;
void iohw_coverage_pairs(const iohw_coverage *cov, iohw_pair_summary *s);

#endif
