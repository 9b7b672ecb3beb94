/*
 * results/result.h - the outcome of running one case against a backend.
 *
 * One status vocabulary for the whole project (specification section 7),
 * generated from one table so that names, meanings and "counts as a failure"
 * never drift.  Reports map these to their own formats in one place each.
 */
#ifndef IOHW_RESULT_H
#define IOHW_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "oracle/error.h"
#include "results/text.h"

/* XX(NAME, bad, meaning): bad = 1 when the status makes `iohw run` exit 1. */
#define IOHW_RESULT_STATUS_MAP(XX)                                            \
    XX(PASS, 0, "the output matches the oracle")                              \
    XX(FAIL, 1, "the output differs from the oracle beyond the tolerance")    \
    XX(UNSUPPORTED, 0, "the backend does not claim the case (skipped)")       \
    XX(ERROR, 1, "the backend returned an error on a case it claimed")        \
    XX(CRASH, 1, "the backend's process died (signal or exit)")               \
    XX(TIMEOUT, 1, "the backend did not finish within the time limit")        \
    XX(INVALID, 1, "the case file is bad")                                    \
    XX(WAIVED, 0, "a known failure listed in the baseline")

typedef enum iohw_result_status {
#define IOHW_XX(name, bad, meaning) IOHW_RESULT_##name,
    IOHW_RESULT_STATUS_MAP(IOHW_XX)
#undef IOHW_XX
    IOHW_RESULT_STATUS_COUNT
} iohw_result_status;

/* "PASS", "FAIL", ...; "?" outside the enum. */
const char *iohw_result_status_name(iohw_result_status s);
/* A sentence saying what the status means. */
const char *iohw_result_status_meaning(iohw_result_status s);
/* 1 for FAIL, ERROR, CRASH, TIMEOUT, INVALID. */
int iohw_result_status_bad(iohw_result_status s);
/* Parses a status name (upper case); 0 or -1. */
int iohw_result_status_parse(const char *name, iohw_result_status *s);

/* The start of the message of a case that passed only under a declared
 * subnormal flush (`iohw run --subnormals flush`, specification section
 * 3.4); reports count and show such cases. */
#define IOHW_RESULT_NOTE_FLUSHED "subnormals flushed (declared)"
/* The bit of dtype dt in a set of dtypes whose subnormals a backend
 * declares flushed (iohw_run_options.subnormals_flush). */
#define IOHW_SUBNORMALS_FLUSH_BIT(dt) (1u << (unsigned)(dt))

/* The start of the message of a quantized case that passed only under a
 * declared rounding (`iohw run --rounding MODE`, specification section
 * 11.6): its output differs from the case's by one at exact ties, as the
 * declared mode rounds them.  Reports count and show such cases. */
#define IOHW_RESULT_NOTE_ROUNDING "rounding declared"


#define IOHW_RESULT_POINTS 8
/* Bins per axis of iohw_result.errmap. */
#define IOHW_RESULT_ERRMAP 16

/* One mismatching output element, with its semantic coordinates
 * (n, c, d, h, w; spatial axes the rank lacks are 0). */
typedef struct iohw_point {
    int64_t index;      /* element index in the data layout's memory */
    int64_t coord[5];   /* n, c (output channel), d, h, w */
    double expected;    /* y_f64 */
    double got;         /* the backend's value */
    double bound;       /* the allowed |got - expected| */
} iohw_point;

/* A value: copied by assignment, sent through a pipe field by field
 * (sandbox/channel.c), held by journals as JSON lines.  Its texts are kept
 * texts (results/text.h): any length, never freed, never NULL once the
 * result is made by iohw_result_init; set them with iohw_text_keep or
 * iohw_text_fmt. */
typedef struct iohw_result {
    const char *case_id;
    const char *file;         /* the case file */
    const char *descriptor;
    const char *tags;
    iohw_result_status status;
    const char *message;      /* why: error text, signal, unsupported reason */
    const char *diagnosis;    /* e.g. "matches the oracle with weight I and O
                                 exchanged"; empty when none matched */
    int exact;                /* 1 when the case demanded bit equality */
    int64_t elements;         /* output elements compared */
    int64_t mismatches;       /* elements outside the tolerance */
    int64_t unwritten;        /* elements still holding the sentinel */
    double worst_ratio;       /* worst |got - expected| / (u * err_bound);
                                 +inf when a NaN/Inf rule is broken */
    double seconds;           /* wall time of the backend's run() */
    int npoints;
    iohw_point points[IOHW_RESULT_POINTS];
    /* Appended (reports): a coarse map of where the mismatches sit, for the
     * HTML report's heat map.  Bin (i, j) counts the mismatching elements
     * with h * IOHW_RESULT_ERRMAP / O_h == i and w * IOHW_RESULT_ERRMAP / O_w
     * == j (O_h, O_w: output height and width; rank 1 has h = 0 and O_h = 1),
     * summed over n, c and d, saturating at 255.  All zero when not filled
     * in; readers then fall back to the points. */
    uint8_t errmap[IOHW_RESULT_ERRMAP * IOHW_RESULT_ERRMAP];
    /* Appended (trust): what the backend did to its process during this
     * case that did not change the verdict ("run() changed the
     * floating-point environment: MXCSR 0x1f80 -> 0xdfc0 (restored)"),
     * separated by "; "; empty when nothing was seen. */
    const char *warnings;
    /* Appended (speed): the timing of a performance run (`iohw run
     * --repeat N`, docs/REPORT_FORMAT.md "speed"); all 0 in other runs and
     * when run() did not return IOHW_OK.  Never part of a verdict. */
    int repeat;               /* run() calls timed (N); 0: not timed */
    double time_ms;           /* their median (seconds holds it too) */
    double time_min_ms;       /* the fastest */
    double gmacs;             /* multiply-adds / time_ms, in 1e9 per s */
    double ref_time_ms;       /* the bundled reference's median on the same
                                 case in the same worker; 0: not timed */
    double ratio;             /* ref_time_ms / time_ms: the backend's speed
                                 over the reference's; 0 when unknown */
    /* Appended (backward directions, specification section 13): the
     * case's direction by benchdnn's name, "BWD_D", "BWD_W" or "BWD_WB";
     * "" for a forward case. */
    char direction[8];
} iohw_result;

/* The longest case id, in bytes (specification section 4: 1 to 127
 * letters, digits, '.', '_', '-'); a record with a longer id is not one
 * iohw wrote, and its decoder refuses it. */
#define IOHW_RESULT_ID_MAX 127

/* r with every number 0 and every text "". */
void iohw_result_init(iohw_result *r);

/* --- the repro command ----------------------------------------------------
 *
 * The one-line command that reproduces a result, printed after every bad
 * result (`__REPRO:`) and written into the reports:
 *
 *   iohw run --backend LIB FILE --filter 'id=CASE' [OPTIONS]
 *
 * OPTIONS are the options of the run that change a case's outcome, so that
 * the command gives the same status: --adapt-layout (also when the result's
 * message shows that the case was run in adapted layouts), a --timeout that
 * is not the scaled default, a --memory-limit that is not the default, a
 * --subnormals that is not ieee, a --rounding.  An
 * option that changes an outcome in the future gets a member here and a
 * line in iohw_repro_format (result.c); iohw_repro_options_of_run (run.h)
 * fills them from a run's options. */

/* The beginning of the message of a case run in adapted layouts
 * ("run with layouts NWC/IOW (adapted from NCW/OIW)..."). */
#define IOHW_REPRO_ADAPTED "run with layouts "

typedef struct iohw_repro_options {
    const char *backend;      /* NULL: "LIB" */
    int adapt_layout;         /* --adapt-layout */
    double timeout;           /* --timeout S when timeout_fixed */
    int timeout_fixed;
    int64_t memory_limit_mb;  /* --memory-limit MB when >= 0; -1: the
                                 default (no option) */
    unsigned subnormals_flush; /* --subnormals flush:... when not 0 */
    int32_t rounding;         /* --rounding MODE when not 0 (IOHW_ROUND_*) */
} iohw_repro_options;

/* Options holding only the backend. */
void iohw_repro_options_backend(const char *backend, iohw_repro_options *o);

/* The command (paths quoted for the shell when needed; without --filter
 * for an entry standing for a whole unreadable file).  o may be NULL (no
 * options).  Returns the length, or -1 when buf (size n) is too small. */
int iohw_repro_format(const iohw_repro_options *o, const iohw_result *r,
                      char *buf, int n);

/* The same with only the backend (and --adapt-layout when the result's
 * message shows adapted layouts). */
int iohw_repro_command(const char *backend, const iohw_result *r, char *buf,
                       int n);

/* 1 when r is a PASS under a declared subnormal flush (its message holds
 * IOHW_RESULT_NOTE_FLUSHED, after an adapted-layout note if any). */
int iohw_result_flushed(const iohw_result *r);

/* 1 when r is a PASS under a declared rounding (its message holds
 * IOHW_RESULT_NOTE_ROUNDING, after an adapted-layout note if any). */
int iohw_result_rounded(const iohw_result *r);

/* The worst error of a compared result in words: "worst error 3.2
 * u*err_bound"; when the ratio is infinite, what made it so, read from its
 * first mismatches: elements never written, a non-finite value ("got inf
 * where 2 is expected"), or the largest absolute error where exactly 0 is
 * expected (err_bound 0: an exact case's one-hot data, say). */
void iohw_result_worst_error(const iohw_result *r, char *buf, size_t n);

/* Every dtype's IOHW_SUBNORMALS_FLUSH_BIT. */
#define IOHW_SUBNORMALS_FLUSH_ALL                                           \
    (IOHW_SUBNORMALS_FLUSH_BIT(IOHW_F32) | IOHW_SUBNORMALS_FLUSH_BIT(IOHW_F64) | \
     IOHW_SUBNORMALS_FLUSH_BIT(IOHW_F16) | IOHW_SUBNORMALS_FLUSH_BIT(IOHW_BF16))

/* Parses the value of --subnormals: "ieee" (0), "flush" (every dtype) or
 * "flush:DTYPES" (comma-separated dtype names, e.g. "flush:bf16,f32").
 * 0, or -1 with the reason naming the bad part. */
int iohw_subnormals_parse(const char *text, unsigned *mask, iohw_error *err);

/* The value of --subnormals for mask: "ieee", "flush" or "flush:f32,bf16"
 * (dtypes in code order), cut to buf (size n). */
void iohw_subnormals_format(unsigned mask, char *buf, size_t n);

#endif
