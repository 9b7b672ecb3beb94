/*
 * cli/cmd_run.c - `iohw run --backend LIB.so SUITE_OR_FILE ...`: runs cases
 * against a backend in isolated worker processes and reports (harness/run.h).
 */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/filter.h"
#include "harness/run.h"
#include "reports/reports.h"

/* A numeric macro as a string literal, for the help text. */
#define NUMBER_(x) #x
#define NUMBER(x) NUMBER_(x)

const char iohw_cli_run_help[] =
    "Usage: iohw run --backend LIB.so SUITE_OR_FILE... [OPTIONS]\n"
    "       iohw run --list SUITE_OR_FILE... [--filter EXPR] [--shard I/N]\n"
    "\n"
    "Runs every selected case against the backend LIB.so (a shared object\n"
    "implementing the iohw backend ABI) and judges its output against the\n"
    "oracle's.  SUITE_OR_FILE is a case file or a suite directory (its *.h5\n"
    "files, in name order).\n"
    "\n"
    "Each case runs in a worker process (--jobs of them) that loads the backend\n"
    "itself.  The output y lies between inaccessible guard pages (its last byte\n"
    "touches the upper one) and starts filled with a signalling-NaN sentinel;\n"
    "x, w and bias are read-only.  A worker that dies (signal or exit) makes\n"
    "its case CRASH, a backend call that outlives --timeout makes it TIMEOUT;\n"
    "either way a fresh worker takes over and the run goes on.\n"
    "\n"
    "Options:\n"
    "  --backend LIB.so    the backend to test (required, except with --list)\n"
    "  --filter EXPR       select cases: comma-separated conditions, all of\n"
    "                      which must hold: KEY OP VALUE with OP one of\n"
    "                      = != < <= > >= (numeric keys rank, n, ci, co, g, and\n"
    "                      per axis, largest over the axes: k, s, d, pb, pe, op,\n"
    "                      in, out; string keys dt, xl, wl, fill), tag=NAME,\n"
    "                      tag!=NAME, id=GLOB, or a bare GLOB on the case id.\n"
    "                      Example: 'rank=3,g>1,tag=dilated'\n"
    "  --shard I/N         run only the I-th of N disjoint shards (by a stable\n"
    "                      hash of the case id; 1 <= I <= N)\n"
    "  --jobs N            worker processes (default: the number of cores; at\n"
    "                      most " NUMBER(IOHW_JOBS_MAX) ")\n"
    "  --timeout S         seconds one backend call (supports() or run()) may\n"
    "                      take before its worker is killed: TIMEOUT; 0 = no\n"
    "                      limit.  Default: 10 s plus one second per ten\n"
    "                      million multiply-adds of the case (n*ci*in * co/g*k:\n"
    "                      every input element times the weights of its\n"
    "                      group), so a 2-GMAC case gets 210 s\n"
    "  --breaker N         after N cases of one class (rank and dtype) end in\n"
    "                      TIMEOUT, do not run the class's remaining cases:\n"
    "                      they become TIMEOUT \"not run: N cases of this class\n"
    "                      (rank 3, f32) timed out\" (default "
    NUMBER(IOHW_RUN_BREAKER) "; 0 = off)\n"
    "  --memory-limit MB   address-space limit (RLIMIT_AS) of each worker, so a\n"
    "                      runaway backend cannot take the machine (default\n"
    "                      " NUMBER(IOHW_RUN_MEMORY_LIMIT_MB) "; 0 = no limit); not enforced when iohw is\n"
    "                      built with AddressSanitizer (which reserves\n"
    "                      terabytes of address space)\n"
    "  --journal F         append every result to F as it arrives, one JSON\n"
    "                      object per line (F is truncated unless --resume)\n"
    "  --resume            keep the results already in the journal and run only\n"
    "                      the other cases (a line cut short is ignored)\n"
    "  --list              print the selected cases (id and descriptor) and exit\n"
    "  --adapt-layout      when the backend does not claim a case, ask it for\n"
    "                      the same problem in other data and weight layouts\n"
    "                      (most common first) and run the case re-expressed\n"
    "                      in the first pair it claims; the result's message\n"
    "                      says which.  Without it such cases are UNSUPPORTED\n"
    "  --subnormals MODE   ieee (default): results must match the IEEE oracle;\n"
    "                      flush[:DTYPES] (e.g. flush:bf16,f32; all dtypes\n"
    "                      without a list): the backend declares that it\n"
    "                      flushes subnormal inputs and results to zero in\n"
    "                      those dtypes (as x86 bf16 instructions do), so an\n"
    "                      output that differs from the oracle only by that\n"
    "                      passes, with the note \"" IOHW_RESULT_NOTE_FLUSHED "\"\n"
    "                      in its message and in the summary\n"
    "  --no-diagnose       do not re-run the oracle under classic\n"
    "                      misinterpretations to name the bug behind a FAIL\n"
    "  --allow-empty       exit 0 even when no case was compared with the\n"
    "                      oracle (every case UNSUPPORTED, or none selected)\n"
    "  --quiet             no progress output (failure blocks and the summary\n"
    "                      are still printed)\n"
    "  --junit F           write JUnit XML to F (one testsuite per category)\n"
    "  --json F            write the JSON report to F (docs/REPORT_FORMAT.md;\n"
    "                      'iohw report merge|diff' read it)\n"
    "  --html F            write a self-contained HTML report to F\n"
    "  --markdown F        write a short Markdown summary to F (for CI job\n"
    "                      summaries)\n"
    "  --baseline F        known failures, one 'CASE_ID_OR_GLOB  reason' per\n"
    "                      line, or a JSON report standing for its failing\n"
    "                      cases ('iohw report baseline'): matching FAIL,\n"
    "                      ERROR, CRASH, TIMEOUT and INVALID cases become\n"
    "                      WAIVED (the failure blocks printed as cases arrive\n"
    "                      still show them); entries that match nothing are\n"
    "                      reported as stale\n"
    "  -h, --help          this text\n"
    "\n"
    "Output: progress on stderr (a bar with counts and ETA on a terminal, a\n"
    "plain line every 5% or 10 s otherwise); on stdout a block for every FAIL,\n"
    "ERROR, CRASH, TIMEOUT or INVALID case (message, diagnosis, the first\n"
    "mismatching points as n c d h w expected got diff bound, and a __REPRO:\n"
    "line with the command that runs just that case), then a table by status\n"
    "and a table by tag.\n"
    "\n"
    "Statuses: PASS; FAIL (output beyond the tolerance, or never written);\n"
    "UNSUPPORTED (the backend does not claim the case: skipped); ERROR (run()\n"
    "failed on a case supports() claimed, or supports() itself returned an\n"
    "error); CRASH (the worker died: signal,\n"
    "exit, a write to an input or out of bounds); TIMEOUT; INVALID (a bad case\n"
    "file: the other cases still run).\n"
    "\n"
    "Exit status: 0 when no case is FAIL, ERROR, CRASH, TIMEOUT or INVALID\n"
    "(after the baseline) and some case was compared with the oracle; 1 when\n"
    "some case is, or when nothing was tested (unless --allow-empty); 2 on\n"
    "bad usage or when the run cannot go on (the backend cannot be loaded, an\n"
    "input is missing, the journal, the baseline or a report cannot be read\n"
    "or written).  The summary ends with how many cases were compared.\n"
    "\n"
    "Examples:\n"
    "  iohw run --backend build/backends/libiohw_reference.so suite/\n"
    "  iohw run --backend ./libmine.so suite/ --filter 'dt=f16,g>1' --jobs 4\n"
    "  iohw run --backend ./libmine.so suite/ --journal run.jsonl --resume\n"
    "  iohw run --backend ./libmine.so suite/ --baseline known.txt \\\n"
    "      --junit junit.xml --json run.json --html run.html\n";

/* --junit, --json, --html, --markdown, --baseline: 1 when argv[*i] is one
 * of them, 0 when not, -1 after a usage message. */
static int report_option(int argc, char **argv, int *i, iohw_report_options *ro,
                         const char **baseline)
{
    static const char *const names[] = {"--junit", "--json", "--html", "--markdown",
                                        "--baseline"};
    const char **slots[] = {&ro->junit, &ro->json, &ro->html, &ro->markdown, baseline};
    for (int k = 0; k < 5; k++) {
        const char *v = NULL;
        int m = iohw_cli_option("run", argc, argv, i, names[k], NULL, &v);
        if (m != 0) {
            if (m > 0)
                *slots[k] = v;
            return m;
        }
    }
    return 0;
}

static int parse_int(const char *text, long long lo, long long hi,
                     long long *v)
{
    char *end = NULL;
    long long x = strtoll(text, &end, 10);
    if (text[0] == '\0' || end == NULL || *end != '\0' || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

/* Parses the options into o and the flags; returns 0, 1 after --help, or
 * IOHW_EXIT_USAGE after a usage message. */
static int parse_args(int argc, char **argv, iohw_run_options *o,
                      const char **inputs, int *list, iohw_report_options *ro,
                      const char **baseline)
{
    const char *v = NULL;
    long long n;
    iohw_error err = {{0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int k;
        if (iohw_cli_is_help(a)) {
            fputs(iohw_cli_run_help, stdout);
            return 1;
        }
        if ((k = iohw_cli_option("run", argc, argv, &i, "--backend", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            o->backend = v;
        } else if ((k = iohw_cli_option("run", argc, argv, &i, "--filter", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            o->filter = v;
        } else if ((k = iohw_cli_option("run", argc, argv, &i, "--jobs", "-j", &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            if (parse_int(v, 1, IOHW_JOBS_MAX, &n) != 0)
                return iohw_cli_usage("run", "--jobs '%s': expected an integer "
                                      "from 1 to %d", v, IOHW_JOBS_MAX);
            o->jobs = (int)n;
        } else if ((k = iohw_cli_option("run", argc, argv, &i, "--shard", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            if (iohw_shard_parse(v, &o->shard_index, &o->shard_count, &err) != 0)
                return iohw_cli_usage("run", "--shard: %s", err.msg);
        } else if ((k = iohw_cli_option("run", argc, argv, &i, "--timeout", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            char *end = NULL;
            double t = strtod(v, &end);
            if (v[0] == '\0' || *end != '\0' || !(t >= 0) || isinf(t))
                return iohw_cli_usage("run", "--timeout '%s': expected a number "
                                      "of seconds >= 0", v);
            o->timeout = t;
            o->timeout_scaled = 0;
        } else if ((k = iohw_cli_option("run", argc, argv, &i, "--memory-limit", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            if (parse_int(v, 0, (long long)1 << 40, &n) != 0)
                return iohw_cli_usage("run", "--memory-limit '%s': expected a "
                                      "number of megabytes (0: no limit)", v);
            o->memory_limit_mb = n;
        } else if ((k = iohw_cli_option("run", argc, argv, &i, "--breaker", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            if (parse_int(v, 0, 1000000, &n) != 0)
                return iohw_cli_usage("run", "--breaker '%s': expected a number "
                                      "of TIMEOUTs (0: off)", v);
            o->breaker = (int)n;
        } else if ((k = iohw_cli_option("run", argc, argv, &i, "--subnormals", NULL, &v)) != 0) {
            if (k < 0 || iohw_subnormals_parse(v, &o->subnormals_flush, &err) != 0)
                return k < 0 ? IOHW_EXIT_USAGE : iohw_cli_usage("run", "--subnormals %s", err.msg);
        } else if ((k = iohw_cli_option("run", argc, argv, &i, "--journal", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            o->journal = v;
        } else if ((k = report_option(argc, argv, &i, ro, baseline)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
        } else if (strcmp(a, "--resume") == 0) {
            o->resume = 1;
        } else if (strcmp(a, "--list") == 0) {
            *list = 1;
        } else if (strcmp(a, "--no-diagnose") == 0) {
            o->diagnose = 0;
        } else if (strcmp(a, "--allow-empty") == 0) {
            o->allow_empty = 1;
        } else if (strcmp(a, "--adapt-layout") == 0) {
            o->adapt_layout = 1;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->progress = -1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return iohw_cli_usage("run", "unknown option '%s'", a);
        } else {
            inputs[o->ninputs++] = a;
        }
    }
    return 0;
}

int iohw_cli_run(int argc, char **argv)
{
    iohw_run_options o;
    iohw_run_options_init(&o);
    o.memory_limit_mb = -1;  /* not given: the default below */
    o.progress = isatty(2) ? 1 : 0;
    o.failure_blocks = 1;
    int list = 0;
    iohw_report_options ro;
    memset(&ro, 0, sizeof ro);
    const char *baseline = NULL;
    iohw_baseline bl = {0};
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    if (inputs == NULL) {
        iohw_cli_error("run: out of memory");
        return IOHW_EXIT_USAGE;
    }
    o.inputs = inputs;

    int rc = parse_args(argc, argv, &o, inputs, &list, &ro, &baseline);
    if (rc != 0) {
        free(inputs);
        return rc == 1 ? IOHW_EXIT_OK : rc;
    }
    if (o.ninputs == 0)
        rc = iohw_cli_usage("run", "no suite directory or case file given");
    else if (!list && o.backend == NULL)
        rc = iohw_cli_usage("run", "--backend LIB.so is required");
    else if (o.resume && o.journal == NULL)
        rc = iohw_cli_usage("run", "--resume needs --journal FILE");
    if (rc != 0) {
        free(inputs);
        return rc;
    }
    int memory_limit_given = o.memory_limit_mb >= 0;
    if (!memory_limit_given)
        o.memory_limit_mb = IOHW_RUN_MEMORY_LIMIT_MB;
    if (memory_limit_given && o.memory_limit_mb > 0 &&
        !iohw_run_memory_limit_works())
        iohw_cli_error("run: --memory-limit is not enforced in this build "
                       "(AddressSanitizer)");

    iohw_error err = {{0}};
    if (list) {
        int64_t n = iohw_run_list(&o, stdout, &err);
        free(inputs);
        if (n < 0) {
            iohw_cli_error("run: %s", err.msg);
            return IOHW_EXIT_USAGE;
        }
        if (n == 0)
            iohw_cli_error("run: no case selected");
        return IOHW_EXIT_OK;
    }

    /* A bad baseline stops the run before it starts. */
    if (baseline != NULL && iohw_baseline_load(baseline, &bl, &err) != 0) {
        free(inputs);
        iohw_cli_error("run: %s", err.msg);
        return IOHW_EXIT_USAGE;
    }
    iohw_run_results res;
    ro.start_time = (int64_t)time(NULL);
    if (iohw_run(&o, &res, &err) != 0) {
        free(inputs);
        iohw_baseline_free(&bl);
        iohw_cli_error("run: %s", err.msg);
        return IOHW_EXIT_USAGE;
    }
    if (res.count == 0)
        iohw_cli_error("run: no case selected%s", o.allow_empty ? "" :
                       " (nothing was tested; --allow-empty accepts that)");
    if (baseline != NULL) {
        iohw_baseline_apply(&bl, &res);
        iohw_baseline_print_stale(&bl, stderr);
        ro.baseline = &bl;
    }
    iohw_run_summary(&res, stdout);
    fflush(stdout);
    rc = iohw_run_exit_code(&res);

    /* The reports, with what the run was asked to do. */
    ro.backend_path = o.backend;
    ro.inputs = o.inputs, ro.ninputs = o.ninputs;
    ro.filter = o.filter;
    ro.shard_index = o.shard_index, ro.shard_count = o.shard_count;
    ro.jobs = o.jobs > 0 ? o.jobs : iohw_cli_default_threads();
    ro.timeout = o.timeout;
    if (iohw_reports_write(&res, &ro, &err) != 0) {
        iohw_cli_error("run: %s", err.msg);
        rc = IOHW_EXIT_USAGE;
    }
    iohw_run_results_free(&res);
    iohw_baseline_free(&bl);
    free(inputs);
    return rc;
}
