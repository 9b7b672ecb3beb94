/*
 * harness/console.h - what `iohw run` prints while it runs: a progress bar
 * (on a terminal) or plain periodic lines, blocks of bad results, and at
 * the end the verdict and the summary tables (iohw_run_summary in run.h).
 * Of the blocks, the first of each group of failures (judge/verdict.h) is
 * printed and then at most `show` more; a last line says how many were held
 * back and that the reports keep them.
 *
 * Progress goes to one stream (stderr), blocks and tables to another
 * (stdout); the bar is erased before a block is printed and drawn again
 * after, so the two never mix on one line.  Plain lines (a stream that is
 * not a terminal) come once a minute and once at the end: a short run
 * writes one.
 */
#ifndef IOHW_CONSOLE_H
#define IOHW_CONSOLE_H

#include <stdint.h>
#include <stdio.h>

#include "results/result.h"
#include "harness/run.h"

/* Progress modes: IOHW_PROGRESS_* of harness/run.h. */

typedef struct iohw_console {
    int mode;            /* IOHW_PROGRESS_* */
    int blocks;          /* print blocks of bad results (see show) */
    const char *backend; /* for the __REPRO line */
    FILE *prog, *out;
    int64_t total;       /* cases in the run */
    int64_t done;        /* results so far, journal ones included */
    int64_t fresh;       /* results produced by this run (for the ETA) */
    int64_t counts[IOHW_RESULT_STATUS_COUNT];
    int64_t t0_ns, last_ns, last_line_ns;
    int64_t last_line_done;
    int bar_shown;
    /* Appended: the run's options for the __REPRO line; NULL: the backend
     * alone.  Set after iohw_console_start. */
    const iohw_repro_options *repro;
    /* Appended: blocks beyond the first of each group of failures
     * (judge/verdict.h): at most `show` more in all (< 0: every block;
     * iohw_console_start sets IOHW_RUN_SHOW); the groups seen, the blocks
     * printed beyond their first, and the blocks held back. */
    int show;
    char (*groups)[600];
    int ngroups, groups_cap;
    int64_t extra, held;
} iohw_console;

void iohw_console_start(iohw_console *c, int mode, int blocks,
                        const char *backend, int64_t total, FILE *prog,
                        FILE *out);
/* Counts a result (fresh = 1 when this run produced it), prints its block
 * when it is bad, refreshes the progress when it is due. */
void iohw_console_add(iohw_console *c, const iohw_result *r, int fresh);
/* Refreshes the progress when it is due (call it while waiting). */
void iohw_console_tick(iohw_console *c);
/* Erases the bar, or prints the last plain line; says how many blocks were
 * held back. */
void iohw_console_finish(iohw_console *c);

/* The block of one bad result. */
void iohw_console_block(FILE *out, const char *backend, const iohw_result *r);
/* The same with the run's options in its __REPRO line. */
void iohw_console_block_repro(FILE *out, const iohw_repro_options *o,
                              const iohw_result *r);

#endif
