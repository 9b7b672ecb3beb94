/*
 * cli/cmd_run.c - `iohw run --backend LIB.so SUITE_OR_FILE ...`: runs cases
 * against a backend in isolated worker processes and reports (harness/run.h).
 */
#include "cli/cli.h"
#include "cli/claim.h"
#include "cli/shard_env.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/filter.h"
#include "harness/run.h"
#include "oracle/quant_problem.h"
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
    "                      hash of the case id; 1 <= I <= N).  Without it,\n"
    "                      the shard comes from the CI engine's variables,\n"
    "                      the first set of: Bazel's TEST_SHARD_INDEX/\n"
    "                      TEST_TOTAL_SHARDS (0-based; TEST_SHARD_STATUS_FILE\n"
    "                      is touched), gtest's GTEST_SHARD_INDEX/\n"
    "                      GTEST_TOTAL_SHARDS (0-based), GitLab's\n"
    "                      CI_NODE_INDEX/CI_NODE_TOTAL (1-based), Kubernetes'\n"
    "                      JOB_COMPLETION_INDEX (0-based) with the total from\n"
    "                      --shard-total, else IOHW_SHARD_TOTAL, Slurm's\n"
    "                      SLURM_ARRAY_TASK_ID of an array MIN-MAX[:STEP]\n"
    "                      (SLURM_ARRAY_TASK_COUNT or _MIN/_MAX/_STEP give\n"
    "                      the shard); one line on stderr says which.  A malformed or inconsistent\n"
    "                      variable is a usage error.  See docs/CI.md\n"
    "  --shard-total N     the number of shards of a Kubernetes Indexed Job\n"
    "                      (its JOB_COMPLETION_INDEX gives the index)\n"
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
    "                      terabytes of address space); programs of the exec\n"
    "                      backend are held to it in resident memory instead\n"
    "  --journal F         append every result to F as it arrives, one JSON\n"
    "                      object per line (F is truncated unless --resume)\n"
    "  --resume            keep the results already in the journal and run only\n"
    "                      the other cases (a line cut short is ignored)\n"
    "  --list              print the selected cases (id and descriptor) and exit\n"
    "  --isolate           a fresh worker process (the backend loaded anew) for\n"
    "                      every case, so that what a case did to the process\n"
    "                      (a heap it overflowed and did not die of) cannot\n"
    "                      crash a later one; costs the backend's start-up per\n"
    "                      case.  Without it a worker runs case after case and\n"
    "                      is replaced only after a CRASH or TIMEOUT\n"
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
    "  --rounding MODE     half_even, half_away, half_up or gemmlowp: the\n"
    "                      rounding the backend's quantized requantization\n"
    "                      uses (SPEC section 11.6).  A quantized case asking\n"
    "                      for another mode (gemmlowp: only a fixed-form one)\n"
    "                      is computed again under MODE; an output equal to\n"
    "                      that, differing from the case's only by one at\n"
    "                      ties, passes with the note \"" IOHW_RESULT_NOTE_ROUNDING "\"\n"
    "                      saying how many elements differ (summary and\n"
    "                      reports count them); any other difference is a\n"
    "                      FAIL as without the option\n"
    "  --no-diagnose       do not re-run the oracle under classic\n"
    "                      misinterpretations to name the bug behind a FAIL\n"
    "  --allow-empty       exit 0 even when no case was compared with the\n"
    "                      oracle (every case UNSUPPORTED, or none selected)\n"
    "  --shrink[=DIR]      after the run, shrink one failure per group of the\n"
    "                      verdict (one cause, one case: the group's smallest\n"
    "                      FAIL, ERROR, CRASH or TIMEOUT) to a minimal case\n"
    "                      failing the same way ('iohw help shrink') and\n"
    "                      write them to\n"
    "                      DIR/shrunk.h5 (default: the folder of the --json,\n"
    "                      --html or --junit report, else the current one)\n"
    "  --claim-coverage    after the run, learn what the backend claims (its\n"
    "                      supports() asked over the suites' factor space, in\n"
    "                      a child process, as 'iohw gen --for-backend') and\n"
    "                      report the claimed-pair coverage: of the factor-\n"
    "                      value pairs it claims, how many the cases it\n"
    "                      claimed hold (summary, JSON, HTML, Markdown)\n"
    "  --show N            failure blocks: the first of each group of failures,\n"
    "                      then at most N more (default 10; -1: all); the\n"
    "                      reports keep every one\n"
    "  --tags              the summary's table by tag, printed on any run,\n"
    "                      lists every tag (by default the table comes only\n"
    "                      on a failed run without --quiet, with only the\n"
    "                      tags with a case not PASS)\n"
    "  --repeat N          a performance run, as benchdnn's performance mode:\n"
    "                      call run() N times on each claimed case (1 to\n"
    "                      " NUMBER(IOHW_RUN_REPEAT_MAX) "; the first call's output is judged, a later\n"
    "                      output that differs is a warning) and record the\n"
    "                      median and fastest time of the call alone, the\n"
    "                      GMAC/s and the ratio to the bundled reference\n"
    "                      (the oracle as libiohw_reference.so runs it,\n"
    "                      timed N times on the same case in the same\n"
    "                      worker); the summary and the reports then show a\n"
    "                      speed part (per class: time, median GMAC/s and\n"
    "                      ratio; the slowest cases).  Statuses and the exit\n"
    "                      status are those of a run without it.  Run with\n"
    "                      --jobs 1 on a quiet machine for figures to compare\n"
    "  --no-speed-reference  with --repeat, do not time the reference (no\n"
    "                      ratio; the run takes less time)\n"
    "  --quiet             no progress output and no table by tag (failure\n"
    "                      blocks and the rest of the summary are still\n"
    "                      printed)\n"
    "  --junit F           write JUnit XML to F (one testsuite per category);\n"
    "                      default: Bazel's XML_OUTPUT_FILE when it is set\n"
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
    "Before the first case runs, every file the run will write (the journal,\n"
    "the reports, DIR/shrunk.h5) is checked: missing folders are made, as\n"
    "mkdir -p does, and a path that still cannot be written stops the run at\n"
    "once (exit status 2) with a message naming it.\n"
    "\n"
    "Output: progress on stderr (a bar with counts and ETA on a terminal; a\n"
    "plain line a minute and one at the end otherwise); on stdout a block for\n"
    "FAIL, ERROR, CRASH, TIMEOUT or INVALID cases (message, diagnosis, the\n"
    "first mismatching points as n c d h w expected got diff bound, and a\n"
    "__REPRO: line with the command that runs just that case; see --show),\n"
    "then a table by status, a table by tag (see --tags), and the verdict\n"
    "last: the failures grouped by diagnosis, largest group first, each with\n"
    "its meaning and its smallest case; the count of cases compared, with\n"
    "advice when more than half are UNSUPPORTED ('iohw gen --for-backend'\n"
    "writes a suite inside what the backend claims); and a closing line, OK\n"
    "or FAILED with the verdict's headline.\n"
    "\n"
    "Statuses: PASS; FAIL (output beyond the tolerance, or never written; a\n"
    "quantized case (dtype s8 or u8) must match exactly, any element off by one\n"
    "is a FAIL); UNSUPPORTED (the backend does not claim the case: skipped; a\n"
    "quantized case also when the backend has no run_quant); ERROR (run()\n"
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

/* What the command line asks for. */
typedef struct run_args {
    iohw_run_options o;       /* o.inputs: the operands, in order */
    iohw_report_options ro;
    const char *baseline;     /* --baseline F, or NULL */
    int list;                 /* --list */
    int memory_limit_given;   /* --memory-limit */
    int shard_given;          /* --shard */
    int shard_total;          /* --shard-total N, or 0 */
    int shrink;               /* --shrink: shrink each failure after the
                                 run (explore/shrink.h) */
    const char *shrink_dir;   /* where it writes them, or NULL */
    int claim_coverage;       /* --claim-coverage: the claimed-pair
                                 coverage after the run (cli/claim.h) */
} run_args;

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

/*
 * The options.  Each has a setter that takes its value (NULL for a flag)
 * and returns 0, or IOHW_EXIT_USAGE after a usage message.  A new option is
 * a setter and one line in OPTIONS (and its lines in the help text above).
 */
typedef int (*option_setter)(run_args *a, const char *v);

static int set_jobs(run_args *a, const char *v)
{
    long long n;
    if (parse_int(v, 1, IOHW_JOBS_MAX, &n) != 0)
        return iohw_cli_usage("run", "--jobs '%s': expected an integer "
                              "from 1 to %d", v, IOHW_JOBS_MAX);
    a->o.jobs = (int)n;
    return 0;
}

static int set_shard(run_args *a, const char *v)
{
    iohw_error err = {{0}};
    if (iohw_shard_parse(v, &a->o.shard_index, &a->o.shard_count, &err) != 0)
        return iohw_cli_usage("run", "--shard: %s", err.msg);
    a->shard_given = 1;
    return 0;
}

static int set_shard_total(run_args *a, const char *v)
{
    long long n;
    if (parse_int(v, 1, IOHW_SHARD_ENV_MAX, &n) != 0)
        return iohw_cli_usage("run", "--shard-total '%s': expected an integer "
                              "from 1 to %d", v, IOHW_SHARD_ENV_MAX);
    a->shard_total = (int)n;
    return 0;
}

static int set_timeout(run_args *a, const char *v)
{
    char *end = NULL;
    double t = strtod(v, &end);
    if (v[0] == '\0' || *end != '\0' || !(t >= 0) || isinf(t))
        return iohw_cli_usage("run", "--timeout '%s': expected a number "
                              "of seconds >= 0", v);
    a->o.timeout = t;
    a->o.timeout_scaled = 0;
    return 0;
}

static int set_memory_limit(run_args *a, const char *v)
{
    long long n;
    if (parse_int(v, 0, (long long)1 << 40, &n) != 0)
        return iohw_cli_usage("run", "--memory-limit '%s': expected a "
                              "number of megabytes (0: no limit)", v);
    a->o.memory_limit_mb = n;
    a->memory_limit_given = 1;
    return 0;
}

static int set_show(run_args *a, const char *v)
{
    long long n;
    if (parse_int(v, -1, 1000000000, &n) != 0)
        return iohw_cli_usage("run", "--show '%s': expected a number of "
                              "failure blocks (-1: all)", v);
    a->o.show = (int)n;
    return 0;
}

static int set_breaker(run_args *a, const char *v)
{
    long long n;
    if (parse_int(v, 0, 1000000, &n) != 0)
        return iohw_cli_usage("run", "--breaker '%s': expected a number "
                              "of TIMEOUTs (0: off)", v);
    a->o.breaker = (int)n;
    return 0;
}

static int set_repeat(run_args *a, const char *v)
{
    long long n;
    if (parse_int(v, 1, IOHW_RUN_REPEAT_MAX, &n) != 0)
        return iohw_cli_usage("run", "--repeat '%s': expected a number of "
                              "calls from 1 to %d", v, IOHW_RUN_REPEAT_MAX);
    a->o.repeat = (int)n;
    return 0;
}

/* Options whose value is a name or a path, kept as given. */
static int set_backend(run_args *a, const char *v) { a->o.backend = v; return 0; }
static int set_filter(run_args *a, const char *v) { a->o.filter = v; return 0; }
static int set_journal(run_args *a, const char *v) { a->o.journal = v; return 0; }
static int set_junit(run_args *a, const char *v) { a->ro.junit = v; return 0; }
static int set_json(run_args *a, const char *v) { a->ro.json = v; return 0; }
static int set_html(run_args *a, const char *v) { a->ro.html = v; return 0; }
static int set_markdown(run_args *a, const char *v) { a->ro.markdown = v; return 0; }
static int set_baseline(run_args *a, const char *v) { a->baseline = v; return 0; }

/* Flags (v is NULL). */
static int set_resume(run_args *a, const char *v) { (void)v; a->o.resume = 1; return 0; }
static int set_list(run_args *a, const char *v) { (void)v; a->list = 1; return 0; }
static int set_no_diagnose(run_args *a, const char *v) { (void)v; a->o.diagnose = 0; return 0; }
static int set_allow_empty(run_args *a, const char *v) { (void)v; a->o.allow_empty = 1; return 0; }
static int set_all_tags(run_args *a, const char *v) { (void)v; a->o.all_tags = 1; return 0; }
static int set_adapt_layout(run_args *a, const char *v) { (void)v; a->o.adapt_layout = 1; return 0; }
static int set_isolate(run_args *a, const char *v) { (void)v; a->o.isolate = 1; return 0; }
static int set_quiet(run_args *a, const char *v)
{
    (void)v;
    a->o.progress = IOHW_PROGRESS_NONE;
    a->o.quiet = 1;
    return 0;
}
static int set_no_speed_reference(run_args *a, const char *v) { (void)v; a->o.speed_reference = 0; return 0; }
static int set_claim_coverage(run_args *a, const char *v) { (void)v; a->claim_coverage = 1; return 0; }
static int set_subnormals(run_args *a, const char *v)
{
    iohw_error err = {{0}};
    if (iohw_subnormals_parse(v, &a->o.subnormals_flush, &err) != 0)
        return iohw_cli_usage("run", "--subnormals %s", err.msg);
    return 0;
}
static int set_rounding(run_args *a, const char *v)
{
    if (iohw_quant_rounding_parse(v, &a->o.rounding) != 0)
        return iohw_cli_usage("run", "--rounding '%s': expected half_even, half_away, "
                              "half_up or gemmlowp", v);
    return 0;
}
static int set_shrink(run_args *a, const char *v) { a->shrink = 1; a->shrink_dir = v; return 0; }

#define OPTIONAL_VALUE 2

static const struct run_option {
    const char *name;
    const char *short_name;  /* or NULL */
    int takes_value;         /* 1: --name V or --name=V; 0: a flag;
                                OPTIONAL_VALUE: --name or --name=V */
    option_setter set;
} OPTIONS[] = {
    {"--backend", NULL, 1, set_backend},
    {"--filter", NULL, 1, set_filter},
    {"--jobs", "-j", 1, set_jobs},
    {"--shard", NULL, 1, set_shard},
    {"--shard-total", NULL, 1, set_shard_total},
    {"--timeout", NULL, 1, set_timeout},
    {"--memory-limit", NULL, 1, set_memory_limit},
    {"--breaker", NULL, 1, set_breaker},
    {"--show", NULL, 1, set_show},
    {"--subnormals", NULL, 1, set_subnormals},
    {"--rounding", NULL, 1, set_rounding},
    {"--repeat", NULL, 1, set_repeat},
    {"--no-speed-reference", NULL, 0, set_no_speed_reference},
    {"--journal", NULL, 1, set_journal},
    {"--junit", NULL, 1, set_junit},
    {"--json", NULL, 1, set_json},
    {"--html", NULL, 1, set_html},
    {"--markdown", NULL, 1, set_markdown},
    {"--baseline", NULL, 1, set_baseline},
    {"--resume", NULL, 0, set_resume},
    {"--list", NULL, 0, set_list},
    {"--no-diagnose", NULL, 0, set_no_diagnose},
    {"--allow-empty", NULL, 0, set_allow_empty},
    {"--tags", NULL, 0, set_all_tags},
    {"--adapt-layout", NULL, 0, set_adapt_layout},
    {"--isolate", NULL, 0, set_isolate},
    {"--quiet", "-q", 0, set_quiet},
    {"--claim-coverage", NULL, 0, set_claim_coverage},
    {"--shrink", NULL, OPTIONAL_VALUE, set_shrink},
};

#define NOT_AN_OPTION (-1)

/* Applies argv[*i] when it is one of OPTIONS (advancing *i past a separate
 * value): 0, IOHW_EXIT_USAGE after a usage message, or NOT_AN_OPTION. */
static int apply_option(int argc, char **argv, int *i, run_args *a)
{
    const char *arg = argv[*i];
    for (size_t k = 0; k < sizeof OPTIONS / sizeof OPTIONS[0]; k++) {
        const struct run_option *opt = &OPTIONS[k];
        const char *v = NULL;
        int m;
        size_t n = strlen(opt->name);
        if (opt->takes_value == OPTIONAL_VALUE && strncmp(arg, opt->name, n) == 0
            && arg[n] == '=')
            m = 1, v = arg + n + 1;
        else if (opt->takes_value == 1)
            m = iohw_cli_option("run", argc, argv, i, opt->name, opt->short_name, &v);
        else
            m = strcmp(arg, opt->name) == 0
                || (opt->short_name != NULL && strcmp(arg, opt->short_name) == 0);
        if (m < 0)
            return IOHW_EXIT_USAGE;
        if (m > 0)
            return opt->set(a, v);
    }
    return NOT_AN_OPTION;
}

/* Parses the arguments into a, the operands into inputs; returns 0, 1
 * after --help, or IOHW_EXIT_USAGE after a usage message. */
static int parse_args(int argc, char **argv, run_args *a, const char **inputs)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (iohw_cli_is_help(arg)) {
            fputs(iohw_cli_run_help, stdout);
            return 1;
        }
        int rc = apply_option(argc, argv, &i, a);
        if (rc == NOT_AN_OPTION && arg[0] == '-' && arg[1] != '\0')
            return iohw_cli_unknown_option("run", arg, iohw_cli_run_help);
        if (rc == NOT_AN_OPTION)
            inputs[a->o.ninputs++] = arg;
        else if (rc != 0)
            return rc;
    }
    return 0;
}

/* The options that need one another.  0, or IOHW_EXIT_USAGE after a usage
 * message. */
static int check_args(const run_args *a)
{
    const iohw_run_options *o = &a->o;
    if (o->ninputs == 0)
        return iohw_cli_usage("run", "no suite directory or case file given");
    if (!a->list && o->backend == NULL)
        return iohw_cli_usage("run", "--backend LIB.so is required");
    if (o->resume && o->journal == NULL)
        return iohw_cli_usage("run", "--resume needs --journal FILE");
    if (a->memory_limit_given && o->memory_limit_mb > 0 &&
        !iohw_run_memory_limit_works())
        iohw_cli_error("run: --memory-limit is not enforced in this build "
                       "(AddressSanitizer)");
    return 0;
}

/* --list: prints the selected cases. */
static int list_cases(const run_args *a)
{
    iohw_error err = {{0}};
    int64_t n = iohw_run_list(&a->o, stdout, &err);
    if (n < 0) {
        iohw_cli_error("run: %s", err.msg);
        return IOHW_EXIT_USAGE;
    }
    if (n == 0) {
        iohw_cli_unknown_tags(a->o.filter, a->o.inputs, a->o.ninputs);
        iohw_cli_error("run: no case selected");
    }
    return IOHW_EXIT_OK;
}

/* Writes the reports asked for, with what the run was asked to do. */
static int write_reports(run_args *a, const iohw_run_results *res)
{
    const iohw_run_options *o = &a->o;
    iohw_report_options *ro = &a->ro;
    iohw_error err = {{0}};
    ro->backend_path = o->backend;
    ro->inputs = o->inputs, ro->ninputs = o->ninputs;
    ro->filter = o->filter;
    ro->shard_index = o->shard_index, ro->shard_count = o->shard_count;
    ro->jobs = o->jobs > 0 ? o->jobs : iohw_cli_default_threads();
    ro->timeout = o->timeout;
    if (iohw_reports_write(res, ro, &err) != 0) {
        iohw_cli_error("run: %s", err.msg);
        return -1;
    }
    return 0;
}

/* The report whose folder --shrink without DIR writes into, or NULL. */
static const char *shrink_near(const run_args *a)
{
    return a->ro.json ? a->ro.json : a->ro.html ? a->ro.html : a->ro.junit;
}

/* Every file the run will write can be written (missing folders are
 * made): 0, or -1 after a message naming the path. */
static int check_outputs(const run_args *a)
{
    char shrunk[4200];
    iohw_cli_shrink_path(a->shrink_dir, shrink_near(a), shrunk, sizeof shrunk);
    if (iohw_cli_writable_file("the journal", a->o.journal) != 0
        || iohw_cli_writable_file("the JUnit report", a->ro.junit) != 0
        || iohw_cli_writable_file("the JSON report", a->ro.json) != 0
        || iohw_cli_writable_file("the HTML report", a->ro.html) != 0
        || iohw_cli_writable_file("the Markdown report", a->ro.markdown) != 0
        || iohw_cli_writable_file("the shrunk cases", a->shrink ? shrunk : NULL) != 0)
        return -1;
    return 0;
}

/* Runs the cases, applies the baseline, prints the summary and writes the
 * reports; returns the exit status. */
static int run_cases(run_args *a)
{
    iohw_baseline bl = {0};
    iohw_error err = {{0}};

    /* A bad baseline stops the run before it starts. */
    if (a->baseline != NULL && iohw_baseline_load(a->baseline, &bl, &err) != 0) {
        iohw_cli_error("run: %s", err.msg);
        return IOHW_EXIT_USAGE;
    }
    if (check_outputs(a) != 0) {
        iohw_baseline_free(&bl);
        return IOHW_EXIT_USAGE;
    }
    iohw_run_results res;
    a->ro.start_time = (int64_t)time(NULL);
    if (iohw_run(&a->o, &res, &err) != 0) {
        iohw_baseline_free(&bl);
        iohw_cli_error("run: %s", err.msg);
        return IOHW_EXIT_USAGE;
    }
    if (res.count == 0 && iohw_cli_unknown_tags(a->o.filter, a->o.inputs, a->o.ninputs) >= 0)
        iohw_cli_error("run: no case selected%s", a->o.allow_empty ? "" :
                       " (nothing was tested; --allow-empty accepts that)");
    if (a->baseline != NULL) {
        iohw_baseline_apply(&bl, &res);
        iohw_baseline_print_stale(&bl, stderr);
        a->ro.baseline = &bl;
    }
    if (a->claim_coverage && iohw_cli_claim_coverage(a->o.backend, &res, &err) != 0)
        iohw_cli_error("run: --claim-coverage: %s", err.msg);
    iohw_run_summary(&res, stdout);
    fflush(stdout);
    int rc = iohw_run_exit_code(&res);
    if (write_reports(a, &res) != 0)
        rc = IOHW_EXIT_USAGE;
    if (a->shrink && iohw_cli_shrink_failures(&a->o, &res, a->shrink_dir,
                                                shrink_near(a)) != 0)
        rc = IOHW_EXIT_USAGE;
    iohw_run_results_free(&res);
    iohw_baseline_free(&bl);
    return rc;
}

int iohw_cli_run(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    iohw_run_options_init(&a.o);
    a.o.progress = isatty(2) ? IOHW_PROGRESS_BAR : IOHW_PROGRESS_LINES;
    a.o.failure_blocks = 1;
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    if (inputs == NULL) {
        iohw_cli_error("run: out of memory");
        return IOHW_EXIT_USAGE;
    }
    a.o.inputs = inputs;

    int rc = parse_args(argc, argv, &a, inputs);
    if (rc == 1)
        rc = IOHW_EXIT_OK;  /* --help */
    else if (rc == 0 && (rc = check_args(&a)) == 0
             && (rc = iohw_cli_shard_from_env(a.shard_given, a.shard_total, !a.list,
                                              &a.o.shard_index, &a.o.shard_count,
                                              &a.ro.junit)) == 0)
        rc = a.list ? list_cases(&a) : run_cases(&a);
    free(inputs);
    return rc;
}
