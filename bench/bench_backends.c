/*
 * bench/bench_backends.c - the oracle beside the library adapters, on the
 * same few problems in one run: time per problem (median of the runs) and
 * each library's speed as a ratio to the oracle.
 *
 * Every backend is loaded through the loader (sandbox/loader.h), as `iohw
 * run` would: the reference backend (the oracle, one thread), libtorch,
 * oneDNN and XNNPACK (each skipped when its adapter was not built, and "-"
 * where it does not claim a problem).  Every timed output is also judged
 * against the oracle (judge/compare.c); a FAIL or ERROR is printed in
 * place of the time.  The adapters run their libraries on one thread, so
 * the ratios compare single-threaded code.
 *
 * Usage: bench_backends [--reps N] [--backends DIR]
 *   default: 5 runs per problem and backend (after one warm-up run), the
 *   backends built next to this program (../backends).
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "cases/case.h"
#include "generators/generators.h"
#include "judge/compare.h"
#include "judge/judge.h"
#include "sandbox/loader.h"
#include "sandbox/worker.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

#define NBACKENDS 4
#define MAX_REPS 100

static const char *const BACKEND_NAMES[NBACKENDS] = {
    "iohw_reference", "iohw_torch", "iohw_onednn", "iohw_xnnpack",
};
static const char *const BACKEND_LABELS[NBACKENDS] = {
    "oracle", "libtorch", "oneDNN", "XNNPACK",
};

/* f32 problems of common shapes: upsampling by 2 (NCHW and NHWC),
 * depthwise, dilated, 1-d and 3-d. */
static const char *const PROBLEMS[] = {
    "n=1 ci=64 co=32 in=32x32 k=4 s=2 pad=1 bias=1",
    "n=1 ci=64 co=32 in=32x32 k=4 s=2 pad=1 bias=1 xl=NHWC wl=OHWI",
    "n=1 ci=32 co=32 g=32 in=32x32 k=3 s=2 pad=1 op=1 xl=NHWC",
    "n=1 ci=8 co=8 in=48x48 k=3 d=2 pad=2 bias=1 xl=NHWC",
    "n=8 ci=64 co=64 in=128 k=4 s=2 pad=1 bias=1",
    "n=1 ci=16 co=16 in=12x12x12 k=3 s=2 pad=1 op=1 bias=1",
};

/* One cell of the table: the median time in ms, or why there is none. */
typedef struct cell {
    double ms;        /* < 0: no time */
    char text[32];    /* "-", "FAIL", "ERROR" when ms < 0 */
} cell;

/* Times backend lb on case c: a warm-up run that is judged, then reps
 * timed runs. */
static cell time_backend(const iohw_loaded_backend *lb, const iohw_case *c,
                         int reps)
{
    const iohw_problem *p = &c->p;
    const size_t es = iohw_dtype_size(p->dtype);
    const size_t ny = (size_t)iohw_problem_y_count(p);
    double t[MAX_REPS];
    unsigned char sent[8];
    cell out = {-1.0, "-"};

    if (lb->table->supports(lb->ctx, p) != IOHW_OK)
        return out;
    unsigned char *y = malloc(ny * es);
    if (y == NULL) {
        snprintf(out.text, sizeof out.text, "no memory");
        return out;
    }

    /* Warm-up and judgement. */
    iohw_worker_sentinel((int)p->dtype, sent);
    for (size_t i = 0; i < ny; i++)
        memcpy(y + i * es, sent, es);
    if (lb->table->run(lb->ctx, p, c->x, c->w, c->bias, y) != IOHW_OK) {
        snprintf(out.text, sizeof out.text, "ERROR");
        fprintf(stderr, "bench_backends: %s: %s\n", lb->table->name,
                iohw_backend_last_error(lb));
        free(y);
        return out;
    }
    iohw_result r;
    iohw_result_init(&r);
    iohw_compare(c, y, sent, &r);
    if (r.status != IOHW_RESULT_PASS) {
        snprintf(out.text, sizeof out.text, "FAIL");
        free(y);
        return out;
    }

    /* Timed runs. */
    for (int k = 0; k < reps; k++) {
        double t0 = bench_now();
        lb->table->run(lb->ctx, p, c->x, c->w, c->bias, y);
        t[k] = bench_now() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
    out.ms = 1e3 * t[reps / 2];
    free(y);
    return out;
}

int main(int argc, char **argv)
{
    int reps = 5;
    char dir[1024] = "";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--backends") == 0 && i + 1 < argc) {
            snprintf(dir, sizeof dir, "%s", argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--reps N] [--backends DIR]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "bench_backends: --reps must be 1 to %d\n", MAX_REPS);
        return 2;
    }
    if (dir[0] == '\0') {
        char self[1024];
        snprintf(self, sizeof self, "%s", argv[0]);
        snprintf(dir, sizeof dir, "%s/../backends", dirname(self));
    }

    /* The backends. */
    iohw_loaded_backend lb[NBACKENDS];
    int loaded[NBACKENDS];
    for (int b = 0; b < NBACKENDS; b++) {
        char path[1200];
        iohw_error err;
        snprintf(path, sizeof path, "%s/lib%s.so", dir, BACKEND_NAMES[b]);
        loaded[b] = access(path, F_OK) == 0 &&
                    iohw_backend_load(path, &lb[b], &err) == 0;
        if (loaded[b])
            printf("%-9s %s\n", BACKEND_LABELS[b], lb[b].table->version);
        else
            printf("%-9s not available (%s)\n", BACKEND_LABELS[b], path);
    }
    if (!loaded[0]) {
        fprintf(stderr, "bench_backends: the reference backend is needed\n");
        return 2;
    }
    printf("\nmedian of %d runs, ms (ratio = oracle time / library time)\n",
           reps);
    printf("%-62s", "problem");
    for (int b = 0; b < NBACKENDS; b++)
        printf(" %18s", BACKEND_LABELS[b]);
    printf("\n");

    /* The problems. */
    for (size_t i = 0; i < sizeof PROBLEMS / sizeof PROBLEMS[0]; i++) {
        iohw_desc d;
        iohw_case c;
        iohw_error err;
        if (iohw_desc_parse(PROBLEMS[i], &d, &err) != 0 ||
            iohw_make_case(&d, "bench", NULL, 1, &c, &err) != 0) {
            fprintf(stderr, "bench_backends: '%s': %s\n", PROBLEMS[i],
                    err.msg);
            return 1;
        }
        printf("%-62s", PROBLEMS[i]);
        fflush(stdout);
        double oracle_ms = -1.0;
        for (int b = 0; b < NBACKENDS; b++) {
            char text[40];
            cell e = {-1.0, "n/a"};
            if (loaded[b])
                e = time_backend(&lb[b], &c, reps);
            if (b == 0)
                oracle_ms = e.ms;
            if (e.ms < 0)
                snprintf(text, sizeof text, "%s", e.text);
            else if (b == 0 || oracle_ms <= 0)
                snprintf(text, sizeof text, "%.3f", e.ms);
            else
                snprintf(text, sizeof text, "%.3f (%.1fx)", e.ms,
                         oracle_ms / e.ms);
            printf(" %18s", text);
            fflush(stdout);
        }
        printf("\n");
        iohw_case_free(&c);
    }
    for (int b = 0; b < NBACKENDS; b++)
        if (loaded[b])
            iohw_backend_unload(&lb[b]);
    return 0;
}
