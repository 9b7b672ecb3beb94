/*
 * cli/cmd_oracle.c - `iohw oracle IN.h5 -o OUT.h5`: completes user-supplied
 * cases (attributes and x, w, bias; a backward case's dy and x or w) with
 * the oracle's outputs.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "sandbox/guard.h"
#include "oracle/oracle.h"

const char iohw_cli_oracle_help[] =
    "Usage: iohw oracle IN.h5 -o OUT.h5 [--threads N] [--definition]\n"
    "\n"
    "Completes user-supplied cases.  Reads every case of IN.h5 (its attributes\n"
    "and x, w and bias; out_size, terms_max, fill, seed, tags, descriptor and\n"
    "the outputs may be absent), runs the oracle and writes every case to\n"
    "OUT.h5 with y, y_f64, err_bound and terms_max.  A case that is missing a\n"
    "fill gets fill 'user'; a missing descriptor and tags are derived from the\n"
    "problem.  A bad case is reported on stderr (file, case and reason) and\n"
    "skipped; the others are still written, and the exit status is then 2.\n"
    "Prints one line per case written.  IN.h5 is first read in a child\n"
    "process with a time limit (5 s and 1 s per MiB of the file, at most\n"
    "60 s; or IOHW_READ_TIMEOUT seconds) and a memory limit (4096 MB): a file\n"
    "that crashes the HDF5 library, makes it loop or asks for more memory is\n"
    "reported as by 'iohw run'.\n"
    "\n"
    "Options:\n"
    "  IN.h5               the input case file (required)\n"
    "  -o, --output FILE   the completed case file (required; must not be\n"
    "                      IN.h5).  Written under a temporary name and renamed\n"
    "                      into place when complete: an existing FILE is\n"
    "                      replaced only by a finished run\n"
    "  --threads N         oracle threads (default: the number of online CPUs)\n"
    "  --definition        compute with the oracle's definition instead of its\n"
    "                      tuned kernel (same bits; see 'iohw help gen')\n"
    "  -h, --help          this text\n"
    "\n"
    "The schema of case files is section 4 of the specification: a group\n"
    "/cases/<id> per case with attributes rank, batch, in_channels,\n"
    "out_channels, groups, in_size, kernel, stride, dilation, pad_begin,\n"
    "pad_end, output_padding, data_layout, weight_layout, dtype, has_bias\n"
    "(optionally convention, auto_pad and out_shape: a framework convention,\n"
    "section 12, which must resolve to the pads given) and datasets x, w (and\n"
    "bias) in those layouts.  A backward case (attribute direction 1 or 2,\n"
    "section 13) holds dy and w (BWD_D) or x and dy (BWD_W) instead and is\n"
    "completed with its direction's outputs: dx, dx_f64, dx_err_bound, or\n"
    "dw, dw_f64, dw_err_bound and, with has_bias, db, db_f64, db_err_bound.\n"
    "\n"
    "Example:\n"
    "  iohw oracle mine.h5 -o mine_complete.h5\n"
    "  iohw show mine_complete.h5\n";

/* 1 when a and b name the same existing file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return 1;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Reads every case of the input in a guarded child (sandbox/guard.h) first:
 * a file that crashes libhdf5, makes it loop or asks for more memory than
 * a case may use is reported as `iohw run` reports it and nothing is
 * written.  A file the child read whole reads the same way again here. */
static int read_all_cases(void *arg, int fd)
{
    (void)fd;
    iohw_error e;
    iohw_case_file *f = iohw_case_file_open(arg, &e);
    if (f == NULL)
        return 0;  /* reported by the real open */
    for (int j = 0; j < iohw_case_file_count(f); j++) {
        iohw_case c;
        if (iohw_case_file_read(f, iohw_case_file_id(f, j),
                                IOHW_READ_USER | IOHW_READ_INPUTS, &c, &e) == 0)
            iohw_case_free(&c);
    }
    iohw_case_file_close(f, NULL);
    return 0;
}

static int input_reads_safely(const char *in)
{
    iohw_guard_limits lim = iohw_guard_read_limits(in);
    iohw_guard_outcome out;
    iohw_error e = {{0}};
    if (iohw_guard_run(read_all_cases, (void *)in, in, &lim, &out, &e) != 0) {
        iohw_cli_error("oracle: %s", e.msg);
        return 0;
    }
    int ok = iohw_guard_ok(&out);
    if (!ok) {
        char why[IOHW_ERROR_MAX];
        iohw_guard_describe(&out, &lim, in, why, sizeof why);
        iohw_cli_error("oracle: %s; nothing written", why);
    }
    iohw_guard_outcome_free(&out);
    return ok;
}

/* What the command line asks for. */
typedef struct oracle_args {
    const char *in;
    const char *out;
    int threads;
} oracle_args;

/* Parses the arguments into a; 0, 1 after --help, or IOHW_EXIT_USAGE after
 * a usage message. */
static int parse_args(int argc, char **argv, oracle_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (iohw_cli_is_help(argv[i])) {
            fputs(iohw_cli_oracle_help, stdout);
            return 1;
        }
        if ((r = iohw_cli_option("oracle", argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0)
                return IOHW_EXIT_USAGE;
            a->out = v;
        } else if ((r = iohw_cli_option("oracle", argc, argv, &i, "--threads", NULL, &v)) != 0) {
            if (r < 0 || iohw_cli_parse_threads("oracle", v, &a->threads) != 0)
                return IOHW_EXIT_USAGE;
        } else if (strcmp(argv[i], "--definition") == 0) {
            setenv(IOHW_ORACLE_ENV, "definition", 1);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return iohw_cli_unknown_option("oracle", argv[i], iohw_cli_oracle_help);
        } else if (a->in == NULL) {
            a->in = argv[i];
        } else {
            return iohw_cli_usage("oracle", "unexpected argument '%s' (one input file only)",
                                  argv[i]);
        }
    }
    if (a->in == NULL)
        return iohw_cli_usage("oracle", "missing the input file IN.h5");
    if (a->out == NULL)
        return iohw_cli_usage("oracle", "missing -o OUT.h5");
    if (same_file(a->in, a->out))
        return iohw_cli_usage("oracle", "-o '%s' is the input file; write to another file",
                              a->out);
    return 0;
}

/* A backward case (specification section 13): the oracle of its
 * direction on dy and x (BWD_W) or w (BWD_D) fills y, y_f64 and err_bound
 * (dx, or dw followed by db) and terms_max; a missing fill, descriptor or
 * tags as iohw_complete_case gives them.  On failure c is left as it was. */
static int complete_backward(iohw_case *c, int threads, iohw_error *err)
{
    char text[IOHW_DESC_MAX];
    char *descriptor = NULL, *tags = NULL;
    iohw_problem p = c->p;
    iohw_oracle_result r = {0};
    if (iohw_problem_finish(&p, err) != 0)
        return iohw_error_prefix(err, "case '%s'", c->id);
    const char *fill = c->fill[0] != '\0' ? c->fill : "user";
    if ((c->descriptor == NULL || c->descriptor[0] == '\0') &&
        (iohw_desc_format_problem(&p, fill, c->seed, text, sizeof text) < 0 ||
         (descriptor = strdup(text)) == NULL))
        return iohw_error_set(err, "case '%s': no descriptor (longer than %d "
                              "bytes, or out of memory)", c->id, IOHW_DESC_MAX);
    if ((c->tags == NULL || c->tags[0] == '\0') &&
        (iohw_problem_tags(&p, fill, text, sizeof text) < 0 ||
         (tags = strdup(text)) == NULL)) {
        free(descriptor);
        return iohw_error_set(err, "case '%s': no tags (longer than %d bytes, "
                              "or out of memory)", c->id, IOHW_DESC_MAX);
    }
    const iohw_oracle_inputs in = {c->x, c->w, NULL, c->dy};
    if (iohw_oracle_run_inputs(&p, &in, IOHW_ORACLE_FROM_ENV, threads, &r,
                               err) != 0) {
        free(descriptor);
        free(tags);
        return iohw_error_prefix(err, "case '%s'", c->id);
    }
    c->p = p;
    free(c->y);
    free(c->y_f64);
    free(c->err_bound);
    c->y = r.y;
    c->y_f64 = r.y_f64;
    c->err_bound = r.err_bound;
    c->terms_max = r.terms_max;
    if (c->fill[0] == '\0')
        memcpy(c->fill, "user", 5);
    if (descriptor != NULL) {
        free(c->descriptor);
        c->descriptor = descriptor;
    }
    if (tags != NULL) {
        free(c->tags);
        c->tags = tags;
    }
    return 0;
}

/* Completes every case of fin into fout; a bad one is reported, counted in
 * *bad and skipped.  0, or -1 when fout itself failed (nothing more can be
 * written). */
static int complete_cases(const oracle_args *a, iohw_case_file *fin, iohw_case_file *fout,
                          int *written, int *bad)
{
    iohw_error e;
    const int count = iohw_case_file_count(fin);
    for (int j = 0; j < count; j++) {
        const char *id = iohw_case_file_id(fin, j);
        iohw_case c;
        if (iohw_case_file_read(fin, id, IOHW_READ_USER | IOHW_READ_INPUTS, &c, &e) != 0) {
            iohw_cli_error("oracle: %s", e.msg);
            (*bad)++;
            continue;
        }
        const int done = iohw_problem_is_backward(&c.p)
                             ? complete_backward(&c, a->threads, &e)
                             : iohw_complete_case(&c, a->threads, &e);
        if (done != 0) {
            iohw_cli_error("oracle: %s: %s", a->in, e.msg);
            iohw_case_free(&c);
            (*bad)++;
            continue;
        }
        if (iohw_case_file_write(fout, &c, &e) != 0) {
            iohw_cli_error("oracle: %s", e.msg);
            iohw_case_free(&c);
            return -1;
        }
        printf("%s:%s  %s\n", a->out, c.id, c.descriptor);
        (*written)++;
        iohw_case_free(&c);
    }
    return 0;
}

int iohw_cli_oracle(int argc, char **argv)
{
    oracle_args a = {NULL, NULL, iohw_cli_default_threads()};
    iohw_case_file *fin = NULL;
    iohw_case_file *fout = NULL;
    iohw_error e;
    int bad = 0;
    int written = 0;

    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc == 1 ? IOHW_EXIT_OK : rc;

    /* Open the input first: a missing or bad input writes nothing. */
    if (!input_reads_safely(a.in))
        return IOHW_EXIT_USAGE;
    fin = iohw_case_file_open(a.in, &e);
    if (fin == NULL) {
        iohw_cli_error("oracle: %s", e.msg);
        return IOHW_EXIT_USAGE;
    }
    fout = iohw_case_file_create(a.out, &e);
    if (fout == NULL) {
        iohw_cli_error("oracle: %s", e.msg);
        iohw_case_file_close(fin, NULL);
        return IOHW_EXIT_USAGE;
    }

    const int count = iohw_case_file_count(fin);
    rc = complete_cases(&a, fin, fout, &written, &bad);
    iohw_case_file_close(fin, NULL);
    if (rc != 0 || (written == 0 && bad > 0)) {
        /* Nothing completed, or the output failed: an existing output
         * stays as it was. */
        iohw_case_file_abandon(fout);
        if (rc == 0)
            iohw_cli_error("oracle: none of the %d cases of %s could be completed; %s "
                           "not written", count, a.in, a.out);
        return IOHW_EXIT_USAGE;
    }
    if (iohw_case_file_close(fout, &e) != 0) {
        iohw_cli_error("oracle: %s", e.msg);
        return IOHW_EXIT_USAGE;
    }
    if (bad > 0) {
        iohw_cli_error("oracle: %d of %d cases of %s could not be completed; %d written to %s",
                       bad, count, a.in, written, a.out);
        return IOHW_EXIT_USAGE;
    }
    return IOHW_EXIT_OK;
}
