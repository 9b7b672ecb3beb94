/*
 * bench/bench_shrink.c - what `iohw shrink` costs per failure.
 *
 * For each bundled seeded fault (backends/faults/, built next to this
 * program) a sizeable case that fails against it is shrunk
 * (explore/shrink.h) and one line is printed: the fault, the original and
 * minimal status, steps kept, backend runs, wall time and the minimal
 * descriptor.  The totals follow.
 *
 * Usage: bench_shrink [--backends DIR] [--max-calls N]
 *   default: ../backends next to this program, IOHW_SHRINK_MAX_CALLS.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generators/generators.h"
#include "explore/shrink.h"
#include "oracle/descriptor.h"

/* The faults and a case each fails on. */
#define BIG "n=2 ci=4 co=6 g=2 in=4x5 k=3x3 s=2x2 d=1x2 pad=1:0x0:1 op=1x1 " \
            "bias=1 dt=f32 xl=NHWC fill=normal seed=5"
static const struct {
    const char *fault, *desc;
} faults[] = {
    {"io_swap", BIG},
    {"no_flip", BIG},
    {"group_interleave", BIG},
    {"op_ignored", "n=2 ci=4 co=6 g=2 in=4x5 k=3x3 s=2x2 pad=1x0 op=1x1 "
                   "bias=1 dt=f32 xl=NHWC seed=5"},
    {"dilation_ignored", BIG},
    {"asym_pad_swapped", BIG},
    {"bias_per_group", BIG},
    {"crash", "n=3 ci=6 co=4 g=2 in=3x4x5 k=2x3x2 s=1x2x1 d=2x1x1 pad=0x1x0 "
              "bias=1 dt=f32 xl=NDHWC wl=OIDHW seed=2"},
    {"unwritten", BIG},
    {"oob_write", BIG},
};
#define NFAULTS (sizeof faults / sizeof faults[0])

static int write_case(const char *desc, const char *path, iohw_error *err)
{
    iohw_desc d;
    iohw_case c;
    if (iohw_desc_parse(desc, &d, err) != 0 ||
        iohw_make_case(&d, "big", NULL, 1, &c, err) != 0)
        return -1;
    const iohw_case *one = &c;
    int rc = iohw_shrink_write(path, &one, 1, err);
    iohw_case_free(&c);
    return rc;
}

static int default_dir(char *buf, size_t n)
{
    char exe[900];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return -1;
    exe[k] = '\0';
    snprintf(buf, n, "%s/../backends", dirname(exe));
    return 0;
}

int main(int argc, char **argv)
{
    char dir[1024] = "", tmp[] = "/tmp/iohw-bench-shrink-XXXXXX";
    int max_calls = IOHW_SHRINK_MAX_CALLS;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backends") == 0 && i + 1 < argc) {
            snprintf(dir, sizeof dir, "%s", argv[++i]);
        } else if (strcmp(argv[i], "--max-calls") == 0 && i + 1 < argc) {
            max_calls = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--backends DIR] [--max-calls N]\n", argv[0]);
            return 2;
        }
    }
    if ((dir[0] == '\0' && default_dir(dir, sizeof dir) != 0) ||
        mkdtemp(tmp) == NULL) {
        fprintf(stderr, "bench_shrink: give --backends DIR\n");
        return 2;
    }

    int total_steps = 0, total_calls = 0, done = 0;
    double total_s = 0.0;
    printf("%-18s %-7s %5s %6s %8s  %s\n", "fault", "status", "steps", "calls",
           "seconds", "minimal problem");
    for (size_t i = 0; i < NFAULTS; i++) {
        char backend[1200], file[600];
        iohw_shrink_options o;
        iohw_shrink_result r;
        iohw_error err = {{0}};
        snprintf(backend, sizeof backend, "%s/libiohw_fault_%s.so", dir,
                 faults[i].fault);
        snprintf(file, sizeof file, "%s/%s.h5", tmp, faults[i].fault);
        iohw_shrink_options_init(&o);
        o.backend = backend;
        o.max_calls = max_calls;
        o.tmpdir = tmp;
        if (write_case(faults[i].desc, file, &err) != 0 ||
            iohw_shrink_case(&o, file, "big", &r, &err) != 0) {
            printf("%-18s %s\n", faults[i].fault, err.msg);
            unlink(file);
            continue;
        }
        printf("%-18s %-7s %5d %6d %8.2f  %s\n", faults[i].fault,
               iohw_result_status_name(r.minimal.status), r.steps, r.calls,
               r.seconds, r.minimal_case.descriptor);
        fflush(stdout);
        total_steps += r.steps, total_calls += r.calls, total_s += r.seconds;
        done++;
        iohw_shrink_result_free(&r);
        unlink(file);
    }
    rmdir(tmp);
    if (done > 0)
        printf("mean per failure over %d faults: %.1f steps, %.1f backend runs, "
               "%.2f s\n", done, (double)total_steps / done,
               (double)total_calls / done, total_s / done);
    return done == (int)NFAULTS ? 0 : 1;
}
