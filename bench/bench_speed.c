/*
 * bench/bench_speed.c - what `iohw run --repeat N` costs and how honest its
 * ratio is, in ratios only.
 *
 * Writes N small cases into a scratch file (those of bench_harness) and runs them against the
 * reference backend (by default) four times: an ordinary run, --repeat 1
 * --no-speed-reference, --repeat 1, and --repeat 5.  Prints
 *   - the harness's cost per case of each timed run over the ordinary
 *     run's (median of the per-case wall time minus the time of its
 *     run() calls, and of the reference's), and of the whole run;
 *   - the median ratio of a --repeat 5 run of the reference backend
 *     (libiohw_reference.so's speed over the in-worker reference's): the
 *     same computation on both sides, so the figure shows the bias of the
 *     side-by-side measurement (1 is none).
 *
 * Usage: bench_speed [--cases N] [--backend LIB.so]
 *   default: 200 cases, the reference backend built next to this program.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cases.h"
#include "bench_clock.h"
#include "harness/run.h"
#include "results/speed.h"

/* The median harness cost per case: wall time minus the calls timed. */
static double median_overhead(const iohw_run_results *r)
{
    double *v = malloc((size_t)r->count * sizeof *v);
    if (v == NULL || r->count == 0) {
        free(v);
        return 0;
    }
    for (int64_t i = 0; i < r->count; i++) {
        const iohw_result *x = &r->items[i];
        int calls = x->repeat > 0 ? x->repeat : 1;
        v[i] = r->wall[i] - calls * (x->seconds + x->ref_time_ms * 1e-3);
    }
    qsort(v, (size_t)r->count, sizeof *v, bench_cmp_double);
    double m = r->count % 2 ? v[r->count / 2]
                            : 0.5 * (v[r->count / 2 - 1] + v[r->count / 2]);
    free(v);
    return m;
}

static int run(const char *backend, const char *path, int repeat, int ref,
               iohw_run_results *res)
{
    const char *inputs[1] = {path};
    iohw_run_options o;
    iohw_run_options_init(&o);
    o.backend = backend;
    o.inputs = inputs;
    o.ninputs = 1;
    o.jobs = 1;
    o.progress = IOHW_PROGRESS_NONE;
    o.repeat = repeat;
    o.speed_reference = ref;
    iohw_error err = {{0}};
    if (iohw_run(&o, res, &err) != 0) {
        fprintf(stderr, "bench_speed: %s\n", err.msg);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int n = 200;
    char backend[1024] = "";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
            n = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            snprintf(backend, sizeof backend, "%s", argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--cases N] [--backend LIB.so]\n", argv[0]);
            return 2;
        }
    }
    if (n < 1)
        return fprintf(stderr, "bench_speed: --cases must be >= 1\n"), 2;
    if (backend[0] == '\0') {
        char exe[900];
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (k <= 0)
            return fprintf(stderr, "bench_speed: give --backend LIB.so\n"), 2;
        exe[k] = '\0';
        snprintf(backend, sizeof backend, "%s/../backends/libiohw_reference.so",
                 dirname(exe));
    }
    char dir[] = "/tmp/iohw-bench-speed-XXXXXX", path[256];
    if (mkdtemp(dir) == NULL)
        return perror("bench_speed: mkdtemp"), 2;
    snprintf(path, sizeof path, "%s/cases.h5", dir);
    iohw_error err = {{0}};
    if (bench_write_cases(path, n, &err) != 0) {
        fprintf(stderr, "bench_speed: %s\n", err.msg);
        return 2;
    }

    static const struct { const char *name; int repeat, ref; } runs[] = {
        {"ordinary run", 0, 0},
        {"--repeat 1 --no-speed-reference", 1, 0},
        {"--repeat 1", 1, 1},
        {"--repeat 5", 5, 1},
    };
    iohw_run_results res[4];
    int got = 0;
    for (; got < 4; got++)
        if (run(backend, path, runs[got].repeat, runs[got].ref, &res[got]) != 0)
            break;
    unlink(path);
    rmdir(dir);
    if (got < 4)
        return 2;
    printf("bench_speed: %d cases, 1 job, backend %s\n", n, res[0].backend_name);
    double base = median_overhead(&res[0]);
    for (int k = 1; k < 4; k++)
        printf("  %-34s harness cost per case %.2fx, whole run %.2fx the "
               "ordinary run's\n", runs[k].name, median_overhead(&res[k]) / base,
               res[k].seconds / res[0].seconds);
    iohw_speed s;
    if (iohw_speed_build(&res[3], &s) == 0) {
        printf("  median ratio with --repeat 5, libiohw_reference.so's speed "
               "over the in-worker reference's: %.3f (1: no bias)\n",
               s.all.ratio);
        iohw_speed_free(&s);
    }
    for (int k = 0; k < 4; k++)
        iohw_run_results_free(&res[k]);
    return 0;
}
