/*
 * cli/cmd_report.c - `iohw report merge|diff`: working with JSON reports
 * (docs/REPORT_FORMAT.md) after the runs that wrote them.
 *
 *   iohw report merge A.json B.json ... -o ALL.json [--junit F] [--html F]
 *                     [--markdown F]
 *   iohw report diff OLD.json NEW.json [--factor F] [--floor R]
 *   iohw report baseline REPORT.json [-o F]
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "cases/atomic.h"
#include "reports/reports.h"

const char iohw_cli_report_help[] =
    "Usage: iohw report merge REPORT.json [REPORT.json ...] -o OUT.json\n"
    "                         [--junit F] [--html F] [--markdown F]\n"
    "       iohw report diff OLD.json NEW.json [--factor F] [--floor R]\n"
    "       iohw report baseline REPORT.json [-o BASELINE.txt]\n"
    "\n"
    "Works with the JSON reports 'iohw run --json F' writes\n"
    "(docs/REPORT_FORMAT.md).\n"
    "\n"
    "merge: unites the cases of several reports - the shards of one suite run\n"
    "  with --shard I/N, or a run and a re-run of some of its cases - and writes\n"
    "  the result as JSON (and, on request, JUnit, HTML and Markdown).  A case\n"
    "  (file, id) in several reports keeps the one of the report given last.\n"
    "  The reports must come from one backend (name and version).  Baseline\n"
    "  entries are stale only when they matched in no report.  One report\n"
    "  re-renders it in other formats.\n"
    "\n"
    "diff: compares two runs case by case (by file name and id) and prints new\n"
    "  failures (bad in NEW, not bad or absent in OLD), fixed cases (bad in OLD,\n"
    "  passing, unsupported or waived in NEW), failures whose status changed,\n"
    "  failing cases NEW no longer runs, and cases whose worst error ratio\n"
    "  (in units of u*err_bound) changed by more than a factor.\n"
    "\n"
    "baseline: writes a baseline file (stdout without -o) with one entry per\n"
    "  FAIL, ERROR, CRASH, TIMEOUT or INVALID case of the report, its reason\n"
    "  the status and message.  'iohw run --baseline F' then fails only on new\n"
    "  failures and reports fixed ones as stale entries.  (--baseline also\n"
    "  takes a JSON report directly.)\n"
    "\n"
    "Options:\n"
    "  -o, --output F   merge: the merged JSON report (required; - for stdout);\n"
    "                   baseline: the baseline file (default stdout)\n"
    "  --junit F        merge: also write JUnit XML\n"
    "  --html F         merge: also write the HTML report\n"
    "  --markdown F     merge: also write the Markdown summary\n"
    "  --check          merge: judge the merged run as 'iohw run' judges one:\n"
    "                   exit 1 when a case is FAIL, ERROR, CRASH, TIMEOUT or\n"
    "                   INVALID (after the baseline), or when no case was\n"
    "                   compared with the oracle (the shards of a narrow\n"
    "                   backend run with --allow-empty; the whole run must\n"
    "                   compare something)\n"
    "  --allow-empty    merge --check: a run that compared nothing passes\n"
    "  --factor F       diff: ratio change that counts (default 4; > 1)\n"
    "  --floor R        diff: ratios below R count as R (default 1), so that\n"
    "                   rounding noise does not show as a change\n"
    "  -h, --help       this text\n"
    "\n"
    "Exit status: merge and baseline 0 (merge --check: 1 as above), or 2\n"
    "when a report cannot be read or written.\n"
    "diff 0 when NEW has no new failure, 1 when it has, 2 on a bad report.\n"
    "\n"
    "Example:\n"
    "  iohw run --backend libx.so suite --shard 1/2 --json s1.json\n"
    "  iohw run --backend libx.so suite --shard 2/2 --json s2.json\n"
    "  iohw report merge s1.json s2.json -o all.json --html all.html\n"
    "  iohw report diff yesterday.json all.json\n";

/* merge --check and --allow-empty, as bits. */
#define CHECK 1
#define CHECK_ALLOW_EMPTY 2

/* merge --check: the exit status of the merged run, with a line saying
 * how many cases were compared. */
static int check_merged(iohw_run_results *r, int check)
{
    r->allow_empty = (check & CHECK_ALLOW_EMPTY) != 0;
    int64_t compared = iohw_run_compared(r);
    int status = iohw_run_exit_code(r);
    fprintf(stderr, "iohw: report merge --check: %lld of %lld cases compared with the "
            "oracle: %s\n", (long long)compared, (long long)r->count,
            status == 0 ? "OK" : compared == 0 ? "FAILED: nothing was tested"
            : "FAILED");
    return status;
}

/* The options of `report merge` into out_opt, the reports into paths.  0,
 * or IOHW_EXIT_USAGE after a usage message. */
static int parse_merge_args(int argc, char **argv, iohw_report_options *out_opt,
                            const char **paths, int *npaths, int *check)
{
    const char *cmd = "report merge";
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if ((m = iohw_cli_option(cmd, argc, argv, &i, "--output", "-o", &v)) != 0)
            out_opt->json = v;
        else if ((m = iohw_cli_option(cmd, argc, argv, &i, "--junit", NULL, &v)) != 0)
            out_opt->junit = v;
        else if ((m = iohw_cli_option(cmd, argc, argv, &i, "--html", NULL, &v)) != 0)
            out_opt->html = v;
        else if ((m = iohw_cli_option(cmd, argc, argv, &i, "--markdown", NULL, &v)) != 0)
            out_opt->markdown = v;
        else if (strcmp(argv[i], "--check") == 0)
            *check |= CHECK;
        else if (strcmp(argv[i], "--allow-empty") == 0)
            *check |= CHECK_ALLOW_EMPTY;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return iohw_cli_unknown_option(cmd, argv[i], iohw_cli_report_help);
        else
            paths[(*npaths)++] = argv[i];
        if (m < 0)
            return IOHW_EXIT_USAGE;
    }
    if (*npaths == 0 || out_opt->json == NULL)
        return iohw_cli_usage(cmd, *npaths == 0 ? "no report to merge"
                                               : "missing -o OUT.json");
    return 0;
}

/* Reads every report, merges them and writes the merged reports; the exit
 * status. */
static int merge_reports(const char **paths, int npaths, const iohw_report_options *out_opt,
                         int check)
{
    const char *cmd = "report merge";
    iohw_report *reps = calloc((size_t)npaths, sizeof *reps);
    const iohw_report **in = calloc((size_t)npaths, sizeof *in);
    iohw_report merged = {0};
    iohw_error err = {{0}};
    int nread = 0, status = IOHW_EXIT_USAGE;
    if (reps == NULL || in == NULL) {
        iohw_cli_error("%s: out of memory", cmd);
        goto done;
    }
    for (; nread < npaths; nread++) {
        if (iohw_report_read(paths[nread], &reps[nread], &err) != 0) {
            iohw_cli_error("%s: %s", cmd, err.msg);
            goto done;
        }
        in[nread] = &reps[nread];
    }
    int64_t replaced = 0;
    if (iohw_report_merge(in, npaths, &merged, &replaced, &err) != 0) {
        iohw_cli_error("%s: %s", cmd, err.msg);
        goto done;
    }
    iohw_report_options o = merged.options;
    o.json = out_opt->json, o.junit = out_opt->junit;
    o.html = out_opt->html, o.markdown = out_opt->markdown;
    o.sources = paths, o.nsources = npaths;
    if (iohw_reports_write(&merged.results, &o, &err) != 0) {
        iohw_cli_error("%s: %s", cmd, err.msg);
        goto done;
    }
    fprintf(stderr, "iohw: merged %d reports: %lld cases", npaths,
            (long long)merged.results.count);
    if (replaced > 0)
        fprintf(stderr, " (%lld given more than once: the last report's kept)",
                (long long)replaced);
    fputc('\n', stderr);
    iohw_baseline_print_stale(merged.options.baseline, stderr);
    status = check != 0 ? check_merged(&merged.results, check) : IOHW_EXIT_OK;
done:
    for (int i = 0; i < nread; i++)
        iohw_report_free(&reps[i]);
    iohw_report_free(&merged);
    free(reps);
    free(in);
    return status;
}

static int cmd_merge(int argc, char **argv)
{
    iohw_report_options out_opt = {0};
    const char **paths = calloc((size_t)argc, sizeof *paths);
    int npaths = 0, check = 0;
    if (paths == NULL) {
        iohw_cli_error("report merge: out of memory");
        return IOHW_EXIT_USAGE;
    }
    int status = parse_merge_args(argc, argv, &out_opt, paths, &npaths, &check);
    if (status == 0)
        status = merge_reports(paths, npaths, &out_opt, check);
    free(paths);
    return status;
}

static int parse_positive(const char *cmd, const char *opt, const char *text,
                          double min, double *out)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (text[0] == '\0' || *end != '\0' || !(v >= min) || v > 1e300) {
        iohw_cli_usage(cmd, "%s '%s': expected a number >= %g", opt, text, min);
        return -1;
    }
    *out = v;
    return 0;
}

static int cmd_diff(int argc, char **argv)
{
    const char *cmd = "report diff";
    const char *paths[2];
    int npaths = 0;
    double factor = 4, floor = 1;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if ((m = iohw_cli_option(cmd, argc, argv, &i, "--factor", NULL, &v)) != 0) {
            if (m < 0 || parse_positive(cmd, "--factor", v, 1.000001, &factor) != 0)
                return IOHW_EXIT_USAGE;
        } else if ((m = iohw_cli_option(cmd, argc, argv, &i, "--floor", NULL, &v)) != 0) {
            if (m < 0 || parse_positive(cmd, "--floor", v, 0, &floor) != 0)
                return IOHW_EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return iohw_cli_unknown_option(cmd, argv[i], iohw_cli_report_help);
        } else if (npaths == 2) {
            return iohw_cli_usage(cmd, "expected two reports, OLD and NEW");
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (npaths != 2)
        return iohw_cli_usage(cmd, "expected two reports, OLD and NEW");

    iohw_report old_rep, new_rep;
    iohw_error err = {{0}};
    if (iohw_report_read(paths[0], &old_rep, &err) != 0) {
        iohw_cli_error("%s: %s", cmd, err.msg);
        return IOHW_EXIT_USAGE;
    }
    if (iohw_report_read(paths[1], &new_rep, &err) != 0) {
        iohw_cli_error("%s: %s", cmd, err.msg);
        iohw_report_free(&old_rep);
        return IOHW_EXIT_USAGE;
    }
    iohw_diff_counts counts;
    iohw_report_diff(&old_rep, &new_rep, factor, floor, stdout, &counts);
    iohw_report_free(&old_rep);
    iohw_report_free(&new_rep);
    return counts.new_failures > 0 ? 1 : IOHW_EXIT_OK;
}

static int cmd_baseline(int argc, char **argv)
{
    const char *cmd = "report baseline";
    const char *path = NULL, *output = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m = iohw_cli_option(cmd, argc, argv, &i, "--output", "-o", &v);
        if (m < 0)
            return IOHW_EXIT_USAGE;
        if (m > 0)
            output = v;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return iohw_cli_unknown_option(cmd, argv[i], iohw_cli_report_help);
        else if (path != NULL)
            return iohw_cli_usage(cmd, "expected one report");
        else
            path = argv[i];
    }
    if (path == NULL)
        return iohw_cli_usage(cmd, "expected one report");

    iohw_report rep;
    iohw_baseline b;
    iohw_error err = {{0}};
    if (iohw_report_read(path, &rep, &err) != 0 ||
        iohw_baseline_from_report(&rep, path, &b, &err) != 0) {
        iohw_cli_error("%s: %s", cmd, err.msg);
        iohw_report_free(&rep);
        return IOHW_EXIT_USAGE;
    }
    iohw_report_free(&rep);
    /* A file is written under a temporary name and renamed into place. */
    char tmp[4200];
    int to_stdout = output == NULL || strcmp(output, "-") == 0;
    FILE *f = to_stdout ? stdout : iohw_atomic_fopen(output, tmp, sizeof tmp, NULL);
    int ok = f != NULL && iohw_baseline_write(f, &b) == 0;
    if (f != NULL && !to_stdout && iohw_atomic_fclose(f, ok, tmp, output, NULL) != 0)
        ok = 0;
    iohw_baseline_free(&b);
    if (!ok) {
        iohw_cli_error("%s: cannot write %s", cmd, output != NULL ? output : "stdout");
        return IOHW_EXIT_USAGE;
    }
    return IOHW_EXIT_OK;
}

int iohw_cli_report(int argc, char **argv)
{
    if (argc < 2)
        return iohw_cli_usage("report", "expected merge, diff or baseline");
    if (iohw_cli_is_help(argv[1])) {
        fputs(iohw_cli_report_help, stdout);
        return IOHW_EXIT_OK;
    }
    for (int i = 2; i < argc; i++) {
        if (iohw_cli_is_help(argv[i])) {
            fputs(iohw_cli_report_help, stdout);
            return IOHW_EXIT_OK;
        }
    }
    if (strcmp(argv[1], "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    if (strcmp(argv[1], "diff") == 0)
        return cmd_diff(argc - 1, argv + 1);
    if (strcmp(argv[1], "baseline") == 0)
        return cmd_baseline(argc - 1, argv + 1);
    return iohw_cli_usage("report", "unknown action '%s' (expected merge, diff or baseline)",
                          argv[1]);
}
