/*
 * explore/fuzz.h - `iohw fuzz`: random valid problems run against a
 * backend until a time or failure limit, each new failure shrunk
 * (specification section 7).
 *
 * Problems are drawn from a seeded generator (generators/), biased towards
 * the edges where kernels break: size-1 axes, stride larger than the kernel,
 * pads beyond the kernel's reach, output_padding at and past its limit,
 * depthwise and grouped problems, channel counts and widths just past
 * blocks of 8, 16 and 32, every dtype and the special-value fill; about a
 * fifth stated in a framework's convention (auto_pad, out_shape,
 * convention: specification section 12), resolved into the explicit
 * members.  The same seed draws the same problems.  They run in batches through iohw_run
 * (harness/run.h), each case in an isolated worker.  Failures fall into
 * classes: the same status and a diagnosis naming a misreading in common
 * with the class's first failure (iohw_shrink_related), so one bug whose
 * cases also match other misreadings now and then is one class.  The first
 * failure of a class is shrunk (explore/shrink.h) and its minimal case
 * kept; later ones are counted.  A TIMEOUT or CRASH is run once more
 * before it is shrunk: one that passes then is flaky (a loaded machine, a
 * race), reported apart and not shrunk.
 *
 * Time (--time T): the fuzzer stops within a tenth of T.  Limits are
 * checked between batches and between a shrink's candidates (the shrink
 * keeps the smallest case found when the time is up); the last batches
 * hold fewer cases as the time left falls below a full batch's measured
 * time, so only one case's run (at most one timeout) may pass T.
 */
#ifndef IOHW_FUZZ_H
#define IOHW_FUZZ_H

#include <stdint.h>
#include <stdio.h>

#include "generators/generators.h"
#include "explore/shrink.h"
#include "oracle/error.h"

#define IOHW_FUZZ_BATCH 16        /* cases per iohw_run */
#define IOHW_FUZZ_TIME_S 600.0    /* default --time */
#define IOHW_FUZZ_MAX_FAILURES 10 /* default --max-failures (classes) */
#define IOHW_FUZZ_CLASSES_MAX 64  /* classes kept apart; later ones merge */
#define IOHW_FUZZ_FLAKY_MAX 16    /* flaky cases kept for the report */

typedef struct iohw_fuzz_options {
    const char *backend;
    const char *out_dir;         /* where regressions.h5 and report.txt go */
    uint64_t seed;
    double time_s;               /* stop after this long; <= 0: no limit */
    int64_t max_cases;           /* stop after this many cases run; 0: none */
    int max_failures;            /* stop after this many failure classes;
                                    0: none */
    const char *filter;          /* what is drawn (iohw_fuzz_bounds below) */
    int jobs;                    /* workers per batch; 0: one per core */
    double timeout;              /* per backend call; 0: scaled default */
    int max_calls;               /* per shrink; 0: the shrink default */
    FILE *progress;              /* a line per batch, or NULL */
} iohw_fuzz_options;

void iohw_fuzz_options_init(iohw_fuzz_options *o);

/* One failure class. */
typedef struct iohw_fuzz_class {
    char key[320];               /* "FAIL: matches the oracle with ...":
                                    its first failure's */
    int64_t count;               /* failing cases of this class */
    iohw_shrink_result shrunk;   /* the first one, shrunk; minimal_case.id
                                    is "fuzz-NNN" */
    int shrunk_ok;               /* 0 when shrinking it failed */
} iohw_fuzz_class;

/* A TIMEOUT or CRASH that would have started a class is run again
 * once before it is shrunk; when the second run is not bad, the case is
 * flaky: reported as such, not shrunk, not a failure class. */
typedef struct iohw_fuzz_flaky {
    iohw_result first;           /* the TIMEOUT or CRASH */
    iohw_result_status again;    /* the second run's status */
} iohw_fuzz_flaky;

typedef struct iohw_fuzz_report {
    int64_t cases;               /* cases run (drawn and selected) */
    int64_t by_status[IOHW_RESULT_STATUS_COUNT]; /* first runs' statuses
                                    (flaky cases counted under the first) */
    int64_t flaky;               /* flaky cases (see above) */
    iohw_fuzz_flaky flaky_cases[IOHW_FUZZ_FLAKY_MAX]; /* the first ones */
    iohw_fuzz_class *classes;
    int nclasses;
    double seconds;
    const char *stopped_by;      /* "time", "cases", "failures" */
    char regressions[4200];      /* the case file written, "" when none */
    char report[4200];           /* the text report written */
} iohw_fuzz_report;

/* Draws the next problem of rng's stream: a valid, finished problem, its
 * fill and data seed.  Deterministic. */
void iohw_fuzz_draw(iohw_rng *rng, iohw_desc *d);

/* What a --filter fixes of the draws (specification section 7): the
 * filter's conditions on rank, n, ci, co, g, the per-axis keys k s d pb pe
 * op in (an upper bound and != hold on every axis, a lower bound on one
 * axis at least, as the filter compares the largest), dt, fill, xl, wl and
 * dir= (any of its values: fwd, fwd_d, fwd_b, bwd, bwd_d, bwd_w, bwd_wb;
 * specification section 13) constrain what is drawn (forward problems
 * only when no dir= asks for a backward direction); the rest (out, tag, id,
 * != on strings and dir) is checked on the drawn problem.  Ranges are
 * [lo, hi] minus up to 8 excluded values. */
#define IOHW_FUZZ_NE_MAX 8
typedef struct iohw_fuzz_range {
    int64_t lo, hi;
    int64_t ne[IOHW_FUZZ_NE_MAX];
    int nne;
} iohw_fuzz_range;

typedef struct iohw_fuzz_bounds {
    iohw_fuzz_range num[5];      /* rank n ci co g */
    iohw_fuzz_range axis[7];     /* k s d pb pe op in */
    unsigned dtypes;             /* bit 1 << dtype of each dtype allowed */
    unsigned fills;              /* bit i of each allowed fill of
                                    iohw_fuzz_fills() */
    char xl[8], wl[8];           /* a stated layout, or "" */
    int bias;                    /* 0 or 1 when dir= fixes it, -1 */
    unsigned directions;         /* bit 1 << IOHW_DIR_* of each direction
                                    drawn; forward only by default */
} iohw_fuzz_bounds;

/* The fills the fuzzer draws, NULL-terminated. */
const char *const *iohw_fuzz_fills(void);

/* Bounds from a filter expression (NULL: none).  -1 with a message
 * naming the condition when the filter is malformed or asks for what no
 * drawn problem can be (dt=s8: the fuzzer draws float problems;
 * rank=4; k=0; an empty range). */
int iohw_fuzz_bounds_parse(const char *filter, iohw_fuzz_bounds *b,
                           iohw_error *err);
/* 1 when v lies in range g. */
int iohw_fuzz_range_holds(const iohw_fuzz_range *g, int64_t v);

/* iohw_fuzz_draw inside the bounds (NULL: none); 0, or -1 when no draw
 * in many tries fits them (the bounds contradict each other, as g=2 with
 * ci=3, or the problems they allow are too large for a quick run). */
int iohw_fuzz_draw_within(iohw_rng *rng, const iohw_fuzz_bounds *b,
                          iohw_desc *d);

/* Runs the fuzzer; 0 when it ran to a limit (whatever it found), -1 on an
 * error that stops it (backend cannot be loaded, DIR cannot be written,
 * bad filter). */
int iohw_fuzz(const iohw_fuzz_options *o, iohw_fuzz_report *out,
              iohw_error *err);
void iohw_fuzz_report_free(iohw_fuzz_report *r);

#endif
