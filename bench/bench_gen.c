/*
 * bench/bench_gen.c - suite generation throughput per profile: planning
 * time, then writing (fills, oracle, HDF5) in cases/s and MB/s.
 *
 *   bench_gen [--skip-full] [--threads N] [--dir DIR] [PROFILE ...]
 *
 * Profiles default to smoke, ci and full (--skip-full leaves full out: it
 * writes about a gigabyte and takes a while).  Each suite is written into a
 * fresh directory under DIR (default $TMPDIR or /tmp) and removed
 * afterwards.  --threads defaults to the number of online CPUs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "generators/suite.h"

/* Removes the suite's files and the directory. */
static void remove_suite(const iohw_plan *plan, const char *dir)
{
    char path[4200];
    for (int k = 0; k < plan->nfiles; k++)
        if (snprintf(path, sizeof path, "%.4000s/%s", dir, plan->files[k]) < (int)sizeof path)
            unlink(path);
    if (snprintf(path, sizeof path, "%.4000s/manifest.txt", dir) < (int)sizeof path)
        unlink(path);
    rmdir(dir);
}

static int bench_profile(const char *profile, const char *base, int threads)
{
    iohw_plan plan;
    iohw_suite_report r;
    iohw_error e;
    char dir[4096];

    const double t0 = bench_now();
    if (iohw_plan_profile(profile, 1, &plan, &e) != 0) {
        fprintf(stderr, "bench_gen: %s\n", e.msg);
        return -1;
    }
    const double plan_s = bench_now() - t0;
    snprintf(dir, sizeof dir, "%.3900s/iohw-bench-gen-%.16s-%d", base, profile, (int)getpid());
    if (iohw_suite_write(&plan, dir, threads, NULL, &r, &e) != 0) {
        fprintf(stderr, "bench_gen: %s\n", e.msg);
        remove_suite(&plan, dir);
        iohw_plan_free(&plan);
        return -1;
    }
    const double secs = r.seconds > 0 ? r.seconds : 1e-9;
    printf("%-6s %7lld cases %9.1f MB  plan %6.2f s  write %7.2f s  %8.0f cases/s "
           "%7.1f MB/s  coverage %lld/%lld\n",
           profile, (long long)r.cases, (double)r.bytes / 1e6, plan_s, r.seconds,
           (double)r.cases / secs, (double)r.bytes / 1e6 / secs,
           (long long)plan.pairs_covered, (long long)plan.pairs_coexisting);
    fflush(stdout);
    remove_suite(&plan, dir);
    iohw_plan_free(&plan);
    return 0;
}

int main(int argc, char **argv)
{
    const char *profiles[8];
    int nprofiles = 0, skip_full = 0;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    const char *base = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--skip-full") == 0) {
            skip_full = 1;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            char *end = NULL;
            errno = 0;
            threads = strtol(argv[++i], &end, 10);
            if (*end != '\0' || errno != 0 || threads < 1 || threads > 256) {
                fprintf(stderr, "bench_gen: --threads '%s': expected 1 to 256\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            base = argv[++i];
        } else if (argv[i][0] != '-' && nprofiles < 8) {
            profiles[nprofiles++] = argv[i];
        } else {
            fprintf(stderr, "usage: bench_gen [--skip-full] [--threads N] [--dir DIR] "
                            "[PROFILE ...]\n");
            return 2;
        }
    }
    if (nprofiles == 0) {
        const char *const *names = iohw_profile_names();
        for (int k = 0; names[k] != NULL && nprofiles < 8; k++)
            if (!(skip_full && strcmp(names[k], "full") == 0))
                profiles[nprofiles++] = names[k];
    }
    if (threads < 1)
        threads = 1;

    printf("suite generation, %ld thread%s, into %s\n", threads, threads == 1 ? "" : "s", base);
    for (int k = 0; k < nprofiles; k++)
        if (bench_profile(profiles[k], base, (int)threads) != 0)
            return 1;
    return 0;
}
