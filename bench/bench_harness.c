/*
 * bench/bench_harness.c - the harness's own cost per case, with isolation on.
 *
 * Writes N small cases into a scratch file, runs them through `iohw run`'s
 * worker path (iohw_run: a forked verifier reads the case and writes its
 * tensors into shared memory, its worker maps them between guard pages and
 * calls supports/run, the verifier compares) against the reference backend,
 * and reports per case the wall time from handing the case to a verifier to its
 * result MINUS the backend's own run() time (the result's seconds field):
 * median, mean, 90th percentile and maximum, plus the run's total.  The
 * target is a median below 2 ms.
 *
 * Usage: bench_harness [--cases N] [--jobs J] [--backend LIB.so]
 *   default: 200 cases, 1 job, the reference backend built next to this
 *   program (../backends/libiohw_reference.so).
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cases.h"
#include "bench_clock.h"
#include "harness/run.h"

int main(int argc, char **argv)
{
    int n = 200, jobs = 1;
    char backend[1024] = "";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
            n = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
            jobs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            snprintf(backend, sizeof backend, "%s", argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--cases N] [--jobs J] [--backend LIB.so]\n",
                    argv[0]);
            return 2;
        }
    }
    if (n < 1 || jobs < 1) {
        fprintf(stderr, "bench_harness: --cases and --jobs must be >= 1\n");
        return 2;
    }
    if (backend[0] == '\0') {
        char exe[900];
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (k <= 0) {
            fprintf(stderr, "bench_harness: give --backend LIB.so\n");
            return 2;
        }
        exe[k] = '\0';
        snprintf(backend, sizeof backend, "%s/../backends/libiohw_reference.so",
                 dirname(exe));
    }

    /* The cases. */
    char dir[] = "/tmp/iohw-bench-harness-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("bench_harness: mkdtemp");
        return 2;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/cases.h5", dir);
    iohw_error err = {{0}};
    if (bench_write_cases(path, n, &err) != 0) {
        fprintf(stderr, "bench_harness: %s\n", err.msg);
        return 2;
    }

    /* The run. */
    const char *inputs[1] = {path};
    iohw_run_options o;
    memset(&o, 0, sizeof o);
    o.backend = backend;
    o.inputs = inputs;
    o.ninputs = 1;
    o.shard_index = o.shard_count = 1;
    o.jobs = jobs;
    o.timeout = 60;
    o.diagnose = 1;
    o.progress = -1;
    iohw_run_results res;
    int rc = iohw_run(&o, &res, &err);
    unlink(path);
    rmdir(dir);
    if (rc != 0) {
        fprintf(stderr, "bench_harness: %s\n", err.msg);
        return 2;
    }

    /* Overhead per case: wall time minus the backend's run(). */
    double *over = malloc((size_t)res.count * sizeof *over);
    double sum = 0.0, backend_sum = 0.0;
    int64_t passed = 0;
    if (over == NULL)
        return 2;
    for (int64_t i = 0; i < res.count; i++) {
        over[i] = res.wall[i] - res.items[i].seconds;
        sum += over[i];
        backend_sum += res.items[i].seconds;
        passed += res.items[i].status == IOHW_RESULT_PASS;
    }
    qsort(over, (size_t)res.count, sizeof *over, bench_cmp_double);
    int64_t m = res.count;
    double median = m % 2 ? over[m / 2] : 0.5 * (over[m / 2 - 1] + over[m / 2]);
    printf("bench_harness: %lld cases, %d job(s), backend %s (%s)\n", (long long)m,
           jobs, res.backend_name, backend);
    printf("  passed                  %lld / %lld\n", (long long)passed, (long long)m);
    printf("  overhead per case       median %.3f ms  mean %.3f ms  p90 %.3f ms  "
           "max %.3f ms\n", median * 1e3, sum / (double)m * 1e3,
           over[(m * 9) / 10 < m ? (m * 9) / 10 : m - 1] * 1e3, over[m - 1] * 1e3);
    printf("  backend run() per case  mean %.3f ms\n", backend_sum / (double)m * 1e3);
    printf("  whole run               %.3f s (%.3f ms per case, worker start-up "
           "included)\n", res.seconds, res.seconds / (double)m * 1e3);
    printf("  target                  median < 2 ms: %s\n", median < 2e-3 ? "met" : "NOT met");
    free(over);
    iohw_run_results_free(&res);
    return 0;
}
