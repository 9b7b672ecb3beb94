/*
 * cli/cmd_fuzz.c - `iohw fuzz --backend LIB.so -o DIR`: random edge-biased
 * problems against a backend until a limit, each new failure shrunk
 * (explore/fuzz.h).
 */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore/fuzz.h"
#include "harness/run.h"

#define NUMBER_(x) #x
#define NUMBER(x) NUMBER_(x)

const char iohw_cli_fuzz_help[] =
    "Usage: iohw fuzz --backend LIB.so -o DIR [--time 10m] [--cases N]\n"
    "                 [--max-failures N] [--seed S] [--filter EXPR] [OPTIONS]\n"
    "\n"
    "Keeps looking after the suites pass: draws valid problems at random,\n"
    "biased towards the edges where kernels break (size-1 axes, stride larger\n"
    "than the kernel, pads beyond the kernel's reach, output_padding at and\n"
    "past its limit, depthwise and grouped problems, channel counts and widths\n"
    "just past blocks of 8, 16 and 32, every dtype, the special-value fill;\n"
    "some stated in a framework's convention: auto_pad=, out=, conv=),\n"
    "runs them in batches of " NUMBER(IOHW_FUZZ_BATCH) ", each case in an isolated worker as 'iohw run'\n"
    "does, and sorts the failures into classes: the same status and a\n"
    "diagnosis naming a misreading in common with the class's first failure.\n"
    "The first failure of each class is shrunk ('iohw help shrink'); later\n"
    "ones are counted, so one bug is reported once.  A TIMEOUT or CRASH is\n"
    "run once more before it is shrunk: one that passes then is reported as\n"
    "flaky (a loaded machine, a race), not shrunk and not a failure.  The\n"
    "same seed draws the same problems.\n"
    "\n"
    "Writes DIR/regressions.h5 (the minimal case of each class, ids fuzz-001,\n"
    "..., a case file 'iohw run' takes) and DIR/report.txt (the counts, and\n"
    "per class the first and the minimal problem with a __REPRO: line).\n"
    "Progress on stderr after each batch: cases run by status, failure\n"
    "classes, time left.\n"
    "\n"
    "Options:\n"
    "  --backend LIB.so    the backend (required)\n"
    "  -o, --output DIR    the output folder (required; made when missing)\n"
    "  --time T            stop after T: seconds, or with a unit s, m or h\n"
    "                      (default 10m; 0: no time limit).  Checked between\n"
    "                      batches and between a shrink's runs (a shrink\n"
    "                      keeps the smallest case found by then); the last\n"
    "                      batches are cut to the time left, so the run ends\n"
    "                      within one case's run (one --timeout) of T\n"
    "  --cases N           stop after N cases run (default: no limit)\n"
    "  --max-failures N    stop after N failure classes (default "
    NUMBER(IOHW_FUZZ_MAX_FAILURES) "; 0: no\n"
    "                      limit)\n"
    "  --seed S            the seed of the draws (default 1)\n"
    "  --filter EXPR       draw only problems the filter selects (the\n"
    "                      expressions of 'iohw run --filter'): rank, n, ci,\n"
    "                      co, g, k, s, d, pb, pe, op, in, dt, fill, xl, wl and\n"
    "                      dir are drawn inside it (backward problems only when\n"
    "                      a dir= asks: dir=bwd, bwd_d, bwd_w, bwd_wb), out, tag\n"
    "                      and id are checked on each draw; a condition no\n"
    "                      drawn problem can meet (dt=s8, rank=4) is refused\n"
    "                      by name\n"
    "                      (e.g. 'rank=2,dt=f32,k=1,s=1': 1x1 kernels)\n"
    "  --jobs N            worker processes per batch (default: one per core)\n"
    "  --timeout S         seconds per backend call (default: the scaled limit\n"
    "                      of 'iohw run')\n"
    "  --max-calls N       backend runs per shrink (default "
    NUMBER(IOHW_SHRINK_MAX_CALLS) ")\n"
    "  --quiet             no progress output\n"
    "  -h, --help          this text\n"
    "\n"
    "Exit status: 0 when no case failed (flaky ones aside), 1 when some did,\n"
    "2 on bad usage or when the fuzzer cannot go on (the backend cannot be\n"
    "loaded, DIR cannot be written, a filter no drawn problem can satisfy).\n"
    "\n"
    "Example:\n"
    "  iohw fuzz --backend ./libmine.so --time 30m -o fuzz-out\n";

/* "90", "90s", "10m", "1h" -> seconds; -1 when not a duration. */
static double parse_duration(const char *v)
{
    char *end = NULL;
    double x = strtod(v, &end);
    if (v[0] == '\0' || end == v || !(x >= 0) || isinf(x))
        return -1;
    if (*end == '\0' || strcmp(end, "s") == 0)
        return x;
    if (strcmp(end, "m") == 0)
        return x * 60;
    if (strcmp(end, "h") == 0)
        return x * 3600;
    return -1;
}

/* An integer in [lo, hi]; 0 or -1. */
static int parse_count(const char *v, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    if (v[0] == '\0' || *end != '\0' || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

/* Options that take a value; 1 when argv[*i] was one, 0 when not, -1
 * after a usage message. */
static int value_option(int argc, char **argv, int *i, iohw_fuzz_options *o)
{
    static const char *const names[] = {"--backend", "--output", "--time",
                                        "--cases", "--max-failures", "--seed",
                                        "--filter", "--jobs", "--timeout",
                                        "--max-calls"};
    const char *v = NULL;
    long long n = 0;
    for (int k = 0; k < 10; k++) {
        int m = iohw_cli_option("fuzz", argc, argv, i, names[k],
                                k == 1 ? "-o" : NULL, &v);
        if (m < 0)
            return -1;
        if (m == 0)
            continue;
        int bad = 0;
        switch (k) {
        case 0: o->backend = v; break;
        case 1: o->out_dir = v; break;
        case 2: bad = (o->time_s = parse_duration(v)) < 0; break;
        case 3: bad = parse_count(v, 1, (long long)1 << 40, &n); o->max_cases = n; break;
        case 4: bad = parse_count(v, 0, 1000000, &n); o->max_failures = (int)n; break;
        case 5: bad = parse_count(v, 0, (long long)(~0ULL >> 1), &n); o->seed = (uint64_t)n; break;
        case 6: o->filter = v; break;
        case 7: bad = parse_count(v, 1, IOHW_JOBS_MAX, &n); o->jobs = (int)n; break;
        case 8: bad = (o->timeout = parse_duration(v)) < 0; break;
        default: bad = parse_count(v, 1, 1000000, &n); o->max_calls = (int)n; break;
        }
        if (bad) {
            iohw_cli_usage("fuzz", "%s '%s': not a valid value", names[k], v);
            return -1;
        }
        return 1;
    }
    return 0;
}

int iohw_cli_fuzz(int argc, char **argv)
{
    iohw_fuzz_options o;
    iohw_fuzz_report r;
    iohw_error err = {{0}};
    iohw_fuzz_options_init(&o);
    o.progress = stderr;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int k;
        if (iohw_cli_is_help(a)) {
            fputs(iohw_cli_fuzz_help, stdout);
            return IOHW_EXIT_OK;
        }
        if ((k = value_option(argc, argv, &i, &o)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o.progress = NULL;
        } else if (a[0] == '-' && a[1] != '\0') {
            return iohw_cli_unknown_option("fuzz", a, iohw_cli_fuzz_help);
        } else {
            return iohw_cli_usage("fuzz", "unexpected argument '%s'", a);
        }
    }
    if (o.backend == NULL)
        return iohw_cli_usage("fuzz", "--backend LIB.so is required");
    if (o.out_dir == NULL)
        return iohw_cli_usage("fuzz", "-o DIR is required");
    if (iohw_fuzz(&o, &r, &err) != 0) {
        iohw_cli_error("fuzz: %s", err.msg);
        return IOHW_EXIT_USAGE;
    }
    int64_t failed = 0;
    for (int s = 0; s < IOHW_RESULT_STATUS_COUNT; s++)
        if (iohw_result_status_bad((iohw_result_status)s))
            failed += r.by_status[s];
    failed -= r.flaky;
    printf("fuzz: %lld cases run in %.1f s (stopped by the %s limit), %lld "
           "failed in %d class%s\n", (long long)r.cases, r.seconds, r.stopped_by,
           (long long)failed, r.nclasses, r.nclasses == 1 ? "" : "es");
    for (int i = 0; i < r.nclasses; i++)
        printf("  %s: %lld case%s%s%s\n", r.classes[i].key,
               (long long)r.classes[i].count, r.classes[i].count == 1 ? "" : "s",
               r.classes[i].shrunk_ok ? ", minimal: " : "",
               r.classes[i].shrunk_ok ? r.classes[i].shrunk.minimal_case.descriptor : "");
    if (r.flaky > 0)
        printf("flaky (passed when run again, not shrunk): %lld\n", (long long)r.flaky);
    for (int64_t i = 0; i < r.flaky && i < IOHW_FUZZ_FLAKY_MAX; i++)
        printf("  %s then %s: %s\n", iohw_result_status_name(r.flaky_cases[i].first.status),
               iohw_result_status_name(r.flaky_cases[i].again),
               r.flaky_cases[i].first.descriptor);
    if (r.regressions[0] != '\0')
        printf("minimal cases: %s\n", r.regressions);
    printf("report: %s\n", r.report);
    iohw_fuzz_report_free(&r);
    return failed > 0 ? 1 : IOHW_EXIT_OK;
}
