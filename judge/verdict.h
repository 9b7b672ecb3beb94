/*
 * judge/verdict.h - the bug first: a run's failing cases grouped by
 * diagnosis, largest group first, the opening of the console summary and
 * of every report (docs/REPORT_FORMAT.md, "verdict").
 *
 * A bad result (FAIL, ERROR, CRASH, TIMEOUT, INVALID) belongs to the group
 * of a misinterpretation its diagnosis names (judge/diagnose.h; "consistent
 * with NAME (not checkable: ...)" counts as NAME): of the names it lists,
 * the one that explains the most bad results of the run (ties: the
 * table's order), so that a failure several bugs explain joins the bug
 * that explains the others too (an output_padding-dropped backend is one
 * group, not also "pad begin and end exchanged" for the cases where the
 * two give the same numbers).  One without a diagnosis belongs to the group of its cause: an
 * ERROR, CRASH, TIMEOUT or INVALID to "STATUS: MESSAGE" with the message
 * normalised (iohw_verdict_normalise: one exception, one group), a FAIL to
 * "FAIL: the output overflows or is NaN (no diagnosis checkable)" when its
 * first mismatches are all non-finite, else to "FAIL: no diagnosis (no
 * misreading tried matches the output)".  Each group keeps its
 * count, a one-line meaning for a backend author, and its smallest case by
 * multiply-adds (ties: the earlier result), whose repro line reports print.
 */
#ifndef IOHW_VERDICT_H
#define IOHW_VERDICT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results/result.h"
#include "results/run_results.h"

typedef struct iohw_verdict_group {
    int diagnosis;              /* index in the diagnosis table, or -1 */
    iohw_result_status status;  /* the status of a group without diagnosis
                                   (groups with one: the first result's) */
    char label[600];            /* "weight I and O exchanged" or "ERROR:
                                   shape SHAPE does not match" */
    const char *meaning;        /* the diagnosis's meaning, or the status's */
    int64_t count;
    int64_t first;              /* index of the group's first result */
    int64_t smallest;           /* index of its smallest case */
    double smallest_macs;       /* its multiply-adds (0 when its descriptor
                                   does not parse) */
} iohw_verdict_group;

typedef struct iohw_verdict {
    iohw_verdict_group *groups; /* largest first; ties: first seen first */
    int count;
    int64_t failures;           /* bad results in all */
} iohw_verdict;

/* Groups the bad results of r.  0, or -1 when memory runs out (*v is then
 * empty). */
int iohw_verdict_build(const iohw_run_results *r, iohw_verdict *v);
void iohw_verdict_free(iohw_verdict *v);

/* The key of a bad result's group on its own (the first diagnosis it
 * names, without the run's counts), as the label above; the diagnosis
 * index (or -1) is returned. */
int iohw_verdict_key(const iohw_result *r, char *label, size_t n);

/* The diagnoses a diagnosis sentence names ("matches the oracle with A,
 * or with B", "consistent with A (not checkable: ...)", a bare name), in
 * its order, into found (at most max); returns how many. */
int iohw_verdict_matches(const char *diagnosis, int *found, int max);

/* A message with what changes from case to case taken out, so that one
 * exception is one group: a quoted path becomes PATH, a hex number ADDR, a
 * shape ("[1, 2, 3]", "(2, 3)", "2x3x4") SHAPE, any other number N; cut to
 * out (size n). */
void iohw_verdict_normalise(const char *msg, char *out, size_t n);

/* One sentence: "all 169 failures match weight I and O exchanged" when one
 * diagnosed group holds every failure, "169 failures in 2 groups" otherwise,
 * "no failures" when there are none. */
void iohw_verdict_headline(const iohw_verdict *v, char *buf, size_t n);

/* The console's verdict: the headline, then per group its count, label,
 * meaning, smallest case and its __REPRO line (o as in iohw_repro_format;
 * NULL: no options). */
void iohw_verdict_print(const iohw_verdict *v, const iohw_run_results *r,
                        const iohw_repro_options *o, FILE *out);

#endif
