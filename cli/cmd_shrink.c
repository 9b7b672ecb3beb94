/*
 * cli/cmd_shrink.c - `iohw shrink --backend LIB.so FILE --id CASE`: reduce
 * a failing case to a minimal one that fails the same way
 * (explore/shrink.h), and `iohw run --shrink`'s pass over a run's failures:
 * one case per group of failures of the verdict, so one cause gives one
 * minimal case.
 */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run.h"
#include "explore/shrink.h"
#include "judge/verdict.h"

#define NUMBER_(x) #x
#define NUMBER(x) NUMBER_(x)

const char iohw_cli_shrink_help[] =
    "Usage: iohw shrink --backend LIB.so FILE [--id CASE] [-o OUT.h5] [OPTIONS]\n"
    "\n"
    "Reduces a case that fails against LIB.so to a minimal case that still\n"
    "fails the same way: the same status (FAIL, ERROR, CRASH or TIMEOUT) and,\n"
    "when the failure had a diagnosis, one that still names every misreading\n"
    "the original's named.  Greedy, as the shrinking of property-based\n"
    "testing: reductions are tried in order (lower rank, fewer batch items,\n"
    "groups and channels per group, no bias, default layouts, no framework\n"
    "convention, smaller input size, kernel, stride, dilation, pads and\n"
    "output_padding on each axis),\n"
    "the first candidate that still fails is kept, and the reductions go on\n"
    "until a whole round keeps nothing; then a one-hot x and a one-hot w are\n"
    "tried (fill 'onehot'; a backward case's inputs: dy and w, or x and dy).  Each candidate is generated with the case's fill\n"
    "and seed, computed by the oracle and run in an isolated worker as\n"
    "'iohw run' does, so a crash or a hang costs only that candidate.\n"
    "\n"
    "Prints each kept step, then the original and minimal descriptors, the\n"
    "steps, backend runs and time, and a __REPRO: line; writes the minimal\n"
    "case (id CASE-min) to OUT.h5, a case file 'iohw run' takes.\n"
    "\n"
    "Options:\n"
    "  --backend LIB.so   the backend (required)\n"
    "  --id CASE          the case to shrink (may be left out when FILE holds\n"
    "                     one case)\n"
    "  -o, --output F     where to write the minimal case (default\n"
    "                     CASE-min.h5 in the current folder)\n"
    "  --max-calls N      at most N backend runs, the original's included\n"
    "                     (default " NUMBER(IOHW_SHRINK_MAX_CALLS) "); the smallest case found by then is kept\n"
    "  --timeout S        seconds per backend call (default: the scaled limit\n"
    "                     of 'iohw run'); a small one makes a TIMEOUT shrink\n"
    "                     faster\n"
    "  --memory-limit MB  per worker, as 'iohw run'\n"
    "  --adapt-layout     as 'iohw run --adapt-layout'\n"
    "  --quiet            do not print the steps as they are kept\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 when the case was shrunk (or was already minimal) and\n"
    "written; 2 on bad usage, when the case cannot be read or run, or when it\n"
    "does not fail (a PASS or UNSUPPORTED case is refused).\n"
    "\n"
    "Example:\n"
    "  iohw shrink --backend ./libmine.so suite/rank2.h5 --id r2-0042 -o min.h5\n";

static int parse_number(const char *v, double lo, double hi, double *out)
{
    char *end = NULL;
    double x = strtod(v, &end);
    if (v[0] == '\0' || *end != '\0' || !(x >= lo && x <= hi) || isinf(x))
        return -1;
    *out = x;
    return 0;
}

/* Parses the options; returns 0, 1 after --help, or IOHW_EXIT_USAGE. */
static int parse_args(int argc, char **argv, iohw_shrink_options *o,
                      const char **file, const char **id, const char **out)
{
    const char *v = NULL;
    double x;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int k;
        if (iohw_cli_is_help(a)) {
            fputs(iohw_cli_shrink_help, stdout);
            return 1;
        }
        if ((k = iohw_cli_option("shrink", argc, argv, &i, "--backend", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            o->backend = v;
        } else if ((k = iohw_cli_option("shrink", argc, argv, &i, "--id", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            *id = v;
        } else if ((k = iohw_cli_option("shrink", argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            *out = v;
        } else if ((k = iohw_cli_option("shrink", argc, argv, &i, "--max-calls", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            if (parse_number(v, 1, 1000000, &x) != 0 || x != floor(x))
                return iohw_cli_usage("shrink", "--max-calls '%s': expected an "
                                      "integer from 1 to 1000000", v);
            o->max_calls = (int)x;
        } else if ((k = iohw_cli_option("shrink", argc, argv, &i, "--timeout", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            if (parse_number(v, 0, 1e9, &o->timeout) != 0)
                return iohw_cli_usage("shrink", "--timeout '%s': expected a "
                                      "number of seconds >= 0", v);
        } else if ((k = iohw_cli_option("shrink", argc, argv, &i, "--memory-limit", NULL, &v)) != 0) {
            if (k < 0)
                return IOHW_EXIT_USAGE;
            if (parse_number(v, 0, 1099511627776.0, &x) != 0 || x != floor(x))
                return iohw_cli_usage("shrink", "--memory-limit '%s': expected a "
                                      "number of megabytes (0: no limit)", v);
            o->memory_limit_mb = (int64_t)x;
        } else if (strcmp(a, "--adapt-layout") == 0) {
            o->adapt_layout = 1;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->log = NULL;
        } else if (a[0] == '-' && a[1] != '\0') {
            return iohw_cli_unknown_option("shrink", a, iohw_cli_shrink_help);
        } else if (*file != NULL) {
            return iohw_cli_usage("shrink", "one case file expected, got '%s' "
                                  "and '%s'", *file, a);
        } else {
            *file = a;
        }
    }
    return 0;
}

/* The only case of a file, for a missing --id; NULL after a message. */
static char *only_case(const char *file)
{
    iohw_error err = {{0}};
    char *id = NULL;
    iohw_case_file *f = iohw_case_file_open(file, &err);
    if (f == NULL) {
        iohw_cli_error("shrink: %s", err.msg);
        return NULL;
    }
    if (iohw_case_file_count(f) == 1)
        id = strdup(iohw_case_file_id(f, 0));
    else
        iohw_cli_usage("shrink", "%s holds %d cases: name one with --id", file,
                       iohw_case_file_count(f));
    iohw_case_file_close(f, NULL);
    return id;
}

int iohw_cli_shrink(int argc, char **argv)
{
    iohw_shrink_options o;
    const char *file = NULL, *id = NULL, *out = NULL;
    char *owned_id = NULL, path[4200];
    iohw_shrink_result r;
    iohw_error err = {{0}};

    iohw_shrink_options_init(&o);
    o.log = stdout;
    int rc = parse_args(argc, argv, &o, &file, &id, &out);
    if (rc != 0)
        return rc == 1 ? IOHW_EXIT_OK : rc;
    if (o.backend == NULL)
        return iohw_cli_usage("shrink", "--backend LIB.so is required");
    if (file == NULL)
        return iohw_cli_usage("shrink", "no case file given");
    if (id == NULL && (id = owned_id = only_case(file)) == NULL)
        return IOHW_EXIT_USAGE;
    if (out == NULL) {
        snprintf(path, sizeof path, "%s-min.h5", id);
        out = path;
    }
    if (iohw_shrink_case(&o, file, id, &r, &err) != 0) {
        iohw_cli_error("shrink: %s", err.msg);
        free(owned_id);
        return IOHW_EXIT_USAGE;
    }
    const iohw_case *one = &r.minimal_case;
    rc = IOHW_EXIT_OK;
    if (iohw_shrink_write(out, &one, 1, &err) != 0) {
        iohw_cli_error("shrink: %s", err.msg);
        out = NULL;
        rc = IOHW_EXIT_USAGE;
    }
    iohw_shrink_print(&r, &o, out, stdout);
    iohw_shrink_result_free(&r);
    free(owned_id);
    return rc;
}

void iohw_cli_shrink_path(const char *dir, const char *near, char *buf, size_t n)
{
    char folder[4096];
    iohw_cli_folder_of(near, folder, sizeof folder);
    snprintf(buf, n, "%s/shrunk.h5", dir != NULL ? dir : folder);
}

/* The case --shrink starts from for each group of failures (judge/
 * verdict.h: one cause, one group): the group's smallest; none (-1) for a
 * group of INVALID files, which cannot be shrunk. */
static int64_t group_case(const iohw_run_results *res, const iohw_verdict_group *g)
{
    return res->items[g->smallest].status == IOHW_RESULT_INVALID ? -1 : g->smallest;
}

int iohw_cli_shrink_failures(const iohw_run_options *run,
                             const iohw_run_results *res, const char *dir,
                             const char *near)
{
    char path[4200];
    iohw_shrink_options o;
    iohw_verdict v;
    iohw_error err = {{0}};
    int n = 0, bad = 0;

    iohw_shrink_options_init(&o);
    o.backend = run->backend;
    o.adapt_layout = run->adapt_layout;
    o.timeout = run->timeout_scaled ? 0 : run->timeout;
    o.memory_limit_mb = run->memory_limit_mb;
    iohw_cli_shrink_path(dir, near, path, sizeof path);
    if (iohw_verdict_build(res, &v) != 0) {
        iohw_cli_error("run: --shrink: out of memory");
        return -1;
    }
    iohw_shrink_result *found = calloc((size_t)v.count + 1, sizeof *found);
    const iohw_case **cases = calloc((size_t)v.count + 1, sizeof *cases);
    if (found == NULL || cases == NULL) {
        free(found);
        free(cases);
        iohw_verdict_free(&v);
        iohw_cli_error("run: --shrink: out of memory");
        return -1;
    }
    for (int k = 0; k < v.count; k++) {
        int64_t i = group_case(res, &v.groups[k]);
        if (i < 0)
            continue;
        if (iohw_shrink_result_of(&o, &res->items[i], &found[n], &err) != 0) {
            iohw_cli_error("run: --shrink: %s", err.msg);
            bad = 1;
            continue;
        }
        cases[n] = &found[n].minimal_case;
        n++;
    }
    iohw_verdict_free(&v);
    /* Each outcome names the file only once the file is written. */
    int written = n > 0 && iohw_shrink_write(path, cases, n, &err) == 0;
    if (n > 0 && !written) {
        iohw_cli_error("run: --shrink: %s", err.msg);
        bad = 1;
    }
    for (int i = 0; i < n; i++) {
        iohw_shrink_print(&found[i], &o, written ? path : NULL, stdout);
        iohw_shrink_result_free(&found[i]);
    }
    if (written)
        printf("%d minimal case%s written to %s\n", n, n == 1 ? "" : "s", path);
    free(found);
    free(cases);
    return bad ? -1 : 0;
}
