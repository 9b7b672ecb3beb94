/*
 * cli/cmd_show.c - `iohw show FILE[:case_id] ...`: prints cases in a form a
 * person can read: attributes, dataset shapes and layouts, the first values
 * and simple statistics of every tensor.  `iohw show DIR` summarizes a
 * suite directory instead: its cases counted by file, rank, dtype, fill and
 * tag.
 */
#include "cli/cli.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/case.h"
#include "cli/show.h"
#include "cli/show_as.h"
#include "sandbox/guard.h"
#include "oracle/convention.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

#define SHOW_FIRST IOHW__SHOW_FIRST

const char iohw_cli_show_help[] =
    "Usage: iohw show FILE[:CASE_ID] [FILE[:CASE_ID] ...]\n"
    "       iohw show DIR\n"
    "       iohw show --as FORMAT FILE[:CASE_ID] [-o DIR]\n"
    "\n"
    "Prints every case of FILE, or only CASE_ID: its id, descriptor and tags,\n"
    "the problem's attributes, the shape and layout of every dataset, terms_max,\n"
    "and for x, w, bias, y, y_f64 and err_bound the first 8 elements (in memory\n"
    "order) with min, max, mean |.| (over finite values) and NaN and Inf counts.\n"
    "A backward case (specification section 13) gets a line 'direction' and\n"
    "shows its direction's tensors: dy and w, then dx, dx_f64, dx_err_bound\n"
    "(BWD_D), or x and dy, then dw..., and db... with a bias (BWD_W).\n"
    "A case without outputs (a user file before 'iohw oracle') is shown\n"
    "without them.\n"
    "\n"
    "For a directory (a suite written by 'iohw gen --profile'), prints a\n"
    "summary instead: the number of cases and bytes, then the cases counted by\n"
    "file, rank, dtype, fill and tag, read from the *.h5 files' attributes, and\n"
    "whether manifest.txt lists as many.\n"
    "\n"
    "Options:\n"
    "  FILE[:CASE_ID]   a case file, optionally one case of it (required;\n"
    "                   default: every case)\n"
    "  DIR              a suite directory\n"
    "  --as FORMAT      hand one case back in another tool's language:\n"
    "                   onnx (with -o DIR: a node-test folder, model.onnx and\n"
    "                   test_data_set_0/*.pb), torch (a PyTorch snippet),\n"
    "                   benchdnn (oneDNN benchdnn's command line; not for\n"
    "                   quantized cases: specification section 14)\n"
    "  -h, --help       this text\n"
    "\n"
    "Each FILE or DIR is read in a child process with a time limit (5 s and\n"
    "1 s per MiB read, at most 60 s; or IOHW_READ_TIMEOUT seconds) and a\n"
    "memory limit (4096 MB), so a file that\n"
    "crashes the HDF5 library, makes it loop or asks for more memory is\n"
    "reported, as by 'iohw run', and the other arguments are still shown.\n"
    "\n"
    "Exit status: 0 when everything was shown, 2 when a file, a case id or a\n"
    "case was bad (the message names it).\n"
    "\n"
    "Example:\n"
    "  iohw show case.h5\n"
    "  iohw show case.h5:problem.0\n"
    "  iohw show suite/\n"
    "  iohw show --as torch case.h5:problem.0 > repro.py\n";

static void print_axes(const char *name, const int64_t *v, uint32_t rank)
{
    printf("  %-15s", name);
    for (uint32_t a = 0; a < rank && a < 3; a++)
        printf("%s%lld", a > 0 ? "x" : "", (long long)v[a]);
    printf("\n");
}

void iohw__show_shape(const char *name, const iohw_layout_map *m,
                      const char *type)
{
    char dims[128] = "";
    size_t len = 0;
    for (int a = 0; a < m->ndim && len < sizeof dims; a++)
        len += (size_t)snprintf(dims + len, sizeof dims - len, "%s%lld",
                                a > 0 ? ", " : "", (long long)m->shape[a]);
    printf("    %-10s [%s]  %s  %s\n", name, dims, m->letters, type);
}

void iohw__show_values(const char *name, iohw_dtype dt, const void *base,
                       int64_t n, int digits)
{
    int64_t nan = 0, inf = 0, finite = 0;
    double lo = INFINITY, hi = -INFINITY, sum_abs = 0.0;

    printf("    %-10s", name);
    for (int64_t i = 0; i < n && i < SHOW_FIRST; i++) {
        double v = iohw_dtype_load(dt, base, (size_t)i);
        printf(" %.*g", digits, v);
    }
    printf("%s\n", n > SHOW_FIRST ? " ..." : "");
    for (int64_t i = 0; i < n; i++) {
        double v = iohw_dtype_load(dt, base, (size_t)i);
        if (isnan(v)) {
            nan++;
        } else if (isinf(v)) {
            inf++;
        } else {
            finite++;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            sum_abs += fabs(v);
        }
    }
    if (finite > 0)
        printf("    %-10s min %.6g  max %.6g  mean|.| %.6g  nan %lld  inf %lld"
               "  (%lld elements)\n", "", lo, hi, sum_abs / (double)finite,
               (long long)nan, (long long)inf, (long long)n);
    else
        printf("    %-10s no finite values  nan %lld  inf %lld  (%lld elements)\n", "",
               (long long)nan, (long long)inf, (long long)n);
}

/* A quantized case's datasets and values (specification section 11.4). */
static void show_quant(const iohw_case *c, const iohw_layout_map *mx,
                       const iohw_layout_map *mw, const iohw_layout_map *my,
                       int has_outputs)
{
    const iohw_problem *p = &c->p;
    const iohw_dtype wd = iohw_problem_w_dtype(p), yd = iohw_problem_y_dtype(p);
    const int64_t n = iohw_quant_requant_count(p);
    const int fixed = p->m_form == IOHW_QM_FIXED;
    printf("  datasets\n");
    iohw__show_shape("x", mx, iohw_dtype_name(p->dtype));
    iohw__show_shape("w", mw, iohw_dtype_name(wd));
    if (p->has_bias)
        printf("    %-10s [%lld]  C  s32\n", "bias", (long long)p->out_channels);
    if (n > 0)
        printf("    %-10s [%lld]  %s\n", fixed ? "multiplier" : "s_w", (long long)n,
               fixed ? "s32, and shift [n] s32" : "f32");
    if (has_outputs)
        iohw__show_shape("y", my, iohw_dtype_name(yd));
    printf("  values (first %d in memory order; statistics over all)\n", SHOW_FIRST);
    iohw__show_values("x", p->dtype, c->x, mx->count, 9);
    iohw__show_values("w", wd, c->w, mw->count, 9);
    if (p->has_bias && c->bias != NULL)
        iohw__show_values("bias", IOHW_S32, c->bias, p->out_channels, 10);
    if (n > 0 && c->requant != NULL && fixed) {
        iohw__show_values("multiplier", IOHW_S32, c->requant, n, 10);
        iohw__show_values("shift", IOHW_S32, (const int32_t *)c->requant + n, n, 10);
    } else if (n > 0 && c->requant != NULL) {
        iohw__show_values("s_w", IOHW_F32, c->requant, n, 9);
    }
    if (has_outputs && c->y != NULL)
        iohw__show_values("y", yd, c->y, my->count, 10);
}

static void show_case(const iohw_case *c, int has_outputs)
{
    const iohw_problem *p = &c->p;
    const char *tname = iohw_dtype_name(p->dtype);
    const int digits = p->dtype == IOHW_F64 ? 17 : 9;
    iohw_layout_map mx, mw, my;

    /* Identity and attributes. */
    printf("case %s\n", c->id);
    printf("  %-15s%s\n", "descriptor", c->descriptor != NULL ? c->descriptor : "(none)");
    printf("  %-15s%s\n", "tags", c->tags != NULL ? c->tags : "(none)");
    printf("  %-15s%u\n", "rank", (unsigned)p->rank);
    printf("  %-15s%lld\n", "batch", (long long)p->batch);
    printf("  %-15sin %lld, out %lld, groups %lld (per group: %lld in, %lld out)\n",
           "channels", (long long)p->in_channels, (long long)p->out_channels,
           (long long)p->groups, (long long)(p->in_channels / p->groups),
           (long long)(p->out_channels / p->groups));
    print_axes("in_size", p->in_size, p->rank);
    print_axes("kernel", p->kernel, p->rank);
    print_axes("stride", p->stride, p->rank);
    print_axes("dilation", p->dilation, p->rank);
    print_axes("pad_begin", p->pad_begin, p->rank);
    print_axes("pad_end", p->pad_end, p->rank);
    print_axes("output_padding", p->output_padding, p->rank);
    print_axes("out_size", p->out_size, p->rank);
    if (p->convention != IOHW_CONV_NONE) {
        printf("  %-15s%s", "convention", iohw_convention_name(p->convention));
        if (p->auto_pad != IOHW_AUTO_PAD_NONE)
            printf(" auto_pad=%s", iohw_auto_pad_name(p->auto_pad));
        if (p->out_shape[0] > 0)
            for (uint32_t a = 0; a < p->rank && a < 3; a++)
                printf("%s%lld", a == 0 ? " out=" : "x", (long long)p->out_shape[a]);
        printf(" (specification section 12)\n");
    }
    printf("  %-15s%s (x, y)   weight %s\n", "layouts", p->data_layout, p->weight_layout);
    printf("  %-15s%s\n", "dtype", tname);
    printf("  %-15s%s\n", "bias", p->has_bias ? "yes" : "no");
    iohw__show_direction(p);
    printf("  %-15s%s, seed %llu\n", "fill", c->fill[0] != '\0' ? c->fill : "(none)",
           (unsigned long long)c->seed);
    if (has_outputs)
        printf("  %-15s%lld\n", "terms_max", (long long)c->terms_max);
    else
        printf("  %-15s(absent: the file has no outputs; run 'iohw oracle')\n", "terms_max");

    /* Datasets. */
    if (iohw_layout_data_map(p, 0, &mx, NULL) != 0 || iohw_layout_weight_map(p, &mw, NULL) != 0
        || iohw_layout_data_map(p, 1, &my, NULL) != 0)
        return;
    if (iohw_problem_is_quant(p)) {
        show_quant(c, &mx, &mw, &my, has_outputs);
        return;
    }
    if (iohw_problem_is_backward(p)) {
        iohw__show_backward(c, has_outputs);  /* show_backward.c */
        return;
    }
    printf("  datasets\n");
    iohw__show_shape("x", &mx, tname);
    iohw__show_shape("w", &mw, tname);
    if (p->has_bias)
        printf("    %-10s [%lld]  C  %s\n", "bias", (long long)p->out_channels, tname);
    if (has_outputs) {
        iohw__show_shape("y", &my, tname);
        iohw__show_shape("y_f64", &my, "f64");
        iohw__show_shape("err_bound", &my, "f64");
    }

    /* Values. */
    printf("  values (first %d in memory order; statistics over all)\n", SHOW_FIRST);
    iohw__show_values("x", p->dtype, c->x, mx.count, digits);
    iohw__show_values("w", p->dtype, c->w, mw.count, digits);
    if (p->has_bias && c->bias != NULL)
        iohw__show_values("bias", p->dtype, c->bias, p->out_channels, digits);
    if (has_outputs) {
        iohw__show_values("y", p->dtype, c->y, my.count, digits);
        iohw__show_values("y_f64", IOHW_F64, c->y_f64, my.count, 17);
        iohw__show_values("err_bound", IOHW_F64, c->err_bound, my.count, 6);
    }
}

/* Reads one case (with outputs, or a user case without) and shows it. */
static int show_one(iohw_case_file *f, const char *id)
{
    iohw_case c;
    iohw_error e, e_user;
    int has_outputs = 1;

    if (iohw_case_file_read(f, id, IOHW_READ_ALL, &c, &e) != 0) {
        if (iohw_case_file_read(f, id, IOHW_READ_USER | IOHW_READ_INPUTS, &c, &e_user) != 0) {
            iohw_cli_error("show: %s", e.msg);
            return -1;
        }
        has_outputs = c.y != NULL && (iohw_problem_is_quant(&c.p)
                                      || (c.y_f64 != NULL && c.err_bound != NULL));
    }
    show_case(&c, has_outputs);
    iohw_case_free(&c);
    return 0;
}

/* Shows FILE or FILE:CASE_ID. */
static int show_arg(const char *arg, int *first)
{
    char *path = NULL;
    const char *id = NULL;
    iohw_error e;
    int rc = 0;

    /* A path that exists is a file even if it contains ':'. */
    path = malloc(strlen(arg) + 1);
    if (path == NULL) {
        iohw_cli_error("show: out of memory");
        return -1;
    }
    strcpy(path, arg);
    char *colon = strrchr(path, ':');
    if (access(arg, F_OK) != 0 && colon != NULL) {
        *colon = '\0';
        id = colon + 1;
    }

    iohw_case_file *f = iohw_case_file_open(path, &e);
    if (f == NULL) {
        iohw_cli_error("show: %s", e.msg);
        free(path);
        return -1;
    }
    const int count = iohw_case_file_count(f);
    if (id != NULL) {
        int found = 0;
        for (int j = 0; j < count && !found; j++)
            found = strcmp(iohw_case_file_id(f, j), id) == 0;
        if (!found) {
            char known[256] = "";
            size_t len = 0;
            for (int j = 0; j < count && j < 5 && len < sizeof known; j++)
                len += (size_t)snprintf(known + len, sizeof known - len, "%s%s",
                                        j > 0 ? ", " : "", iohw_case_file_id(f, j));
            if (count == 0)
                iohw_cli_error("show: %s has no case '%s' (the file has no cases)", path, id);
            else
                iohw_cli_error("show: %s has no case '%s' (it has %d: %s%s)", path, id, count,
                               known, count > 5 ? ", ..." : "");
            rc = -1;
        } else {
            if (!*first)
                printf("\n");
            *first = 0;
            rc = show_one(f, id);
        }
    } else {
        if (count == 0)
            printf("%s: no cases\n", path);
        for (int j = 0; j < count; j++) {
            if (!*first)
                printf("\n");
            *first = 0;
            if (show_one(f, iohw_case_file_id(f, j)) != 0)
                rc = -1;
        }
    }
    iohw_case_file_close(f, NULL);
    free(path);
    return rc;
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One argument, shown by a guarded child (sandbox/guard.h): a file that
 * crashes libhdf5, makes it loop or asks for more memory than a case may
 * use ends with a message, not with `iohw show`. */
typedef struct show_job {
    const char *arg;
    int first;
} show_job;

static int show_child(void *arg, int fd)
{
    show_job *j = arg;
    int rc = is_directory(j->arg) ? iohw__show_suite(j->arg) : show_arg(j->arg, &j->first);
    fflush(stdout);
    /* Tell the parent whether anything was shown (for the blank lines). */
    (void)!write(fd, j->first ? "0" : "1", 1);
    return rc != 0 ? 1 : 0;
}

/* The guarded reader's limits for FILE[:CASE_ID] or DIR (show_arg's
 * reading of the argument). */
static iohw_guard_limits read_limits(const char *arg)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", arg);
    char *colon = strrchr(path, ':');
    if (access(arg, F_OK) != 0 && colon != NULL)
        *colon = '\0';
    return iohw_guard_read_limits(path);
}

static int show_guarded(const char *arg, int *first)
{
    show_job job = {arg, *first};
    iohw_guard_limits lim = read_limits(arg);
    iohw_guard_outcome out;
    iohw_error e = {{0}};
    if (is_directory(arg) && !*first)
        printf("\n");
    if (is_directory(arg))
        job.first = 0;
    if (iohw_guard_run(show_child, &job, arg, &lim, &out, &e) != 0) {
        iohw_cli_error("show: %s", e.msg);
        return -1;
    }
    int rc = 0;
    if (out.output_len > 0 && out.output[0] == '1')
        *first = 0;
    if (out.end == IOHW_GUARD_SIGNALED && out.signal == SIGPIPE) {
        /* Whoever read the output stopped reading (`| head`): nothing is
         * wrong with the file; stop as a filter does. */
        iohw_guard_outcome_free(&out);
        signal(SIGPIPE, SIG_DFL);
        raise(SIGPIPE);
        return -1;
    }
    if (out.end != IOHW_GUARD_EXITED || out.output_len == 0) {
        char why[IOHW_ERROR_MAX];
        fflush(stdout);
        iohw_guard_describe(&out, &lim, arg, why, sizeof why);
        iohw_cli_error("show: %s", why);
        rc = -1;
    } else if (out.code != 0) {
        rc = -1;
    }
    iohw_guard_outcome_free(&out);
    return rc;
}

int iohw_cli_show(int argc, char **argv)
{
    int nargs = 0;
    int first = 1;
    int status = IOHW_EXIT_OK;

    for (int i = 1; i < argc; i++) {
        if (iohw_cli_is_help(argv[i])) {
            fputs(iohw_cli_show_help, stdout);
            return IOHW_EXIT_OK;
        }
        if (strncmp(argv[i], "--as", 4) == 0 && (argv[i][4] == '\0' || argv[i][4] == '='))
            return iohw__show_as(argc, argv);
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return iohw_cli_unknown_option("show", argv[i], iohw_cli_show_help);
        nargs++;
    }
    if (nargs == 0)
        return iohw_cli_usage("show", "missing FILE[:CASE_ID] or DIR");
    for (int i = 1; i < argc; i++) {
        fflush(stdout);
        if (show_guarded(argv[i], &first) != 0)
            status = IOHW_EXIT_USAGE;
    }
    return status;
}
