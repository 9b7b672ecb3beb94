/*
 * cli/cmd_show.c - `iohw show FILE[:case_id] ...`: prints cases in a form a
 * person can read: attributes, dataset shapes and layouts, the first values
 * and simple statistics of every tensor.
 */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

#define SHOW_FIRST 8

const char iohw_cli_show_help[] =
    "Usage: iohw show FILE[:CASE_ID] [FILE[:CASE_ID] ...]\n"
    "\n"
    "Prints every case of FILE, or only CASE_ID: its id, descriptor and tags,\n"
    "the problem's attributes, the shape and layout of every dataset, terms_max,\n"
    "and for x, w, bias, y, y_f64 and err_bound the first 8 elements (in memory\n"
    "order) with min, max, mean |.| (over finite values) and NaN and Inf counts.\n"
    "A case without outputs (a user file before 'iohw oracle') is shown\n"
    "without them.\n"
    "\n"
    "Options:\n"
    "  FILE[:CASE_ID]   a case file, optionally one case of it (required;\n"
    "                   default: every case)\n"
    "  -h, --help       this text\n"
    "\n"
    "Exit status: 0 when everything was shown, 2 when a file, a case id or a\n"
    "case was bad (the message names it).\n"
    "\n"
    "Example:\n"
    "  iohw show case.h5\n"
    "  iohw show case.h5:problem.0\n";

static void print_axes(const char *name, const int64_t *v, uint32_t rank)
{
    printf("  %-15s", name);
    for (uint32_t a = 0; a < rank && a < 3; a++)
        printf("%s%lld", a > 0 ? "x" : "", (long long)v[a]);
    printf("\n");
}

/* Prints "name [d0, d1, ...] LAYOUT type". */
static void print_shape(const char *name, const iohw_layout_map *m,
                        const char *type)
{
    char dims[128] = "";
    size_t len = 0;
    for (int a = 0; a < m->ndim && len < sizeof dims; a++)
        len += (size_t)snprintf(dims + len, sizeof dims - len, "%s%lld",
                                a > 0 ? ", " : "", (long long)m->shape[a]);
    printf("    %-10s [%s]  %s  %s\n", name, dims, m->letters, type);
}

/* First values and statistics of a tensor of n elements of dt. */
static void print_values(const char *name, iohw_dtype dt, const void *base,
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
    printf("  %-15s%s (x, y)   weight %s\n", "layouts", p->data_layout, p->weight_layout);
    printf("  %-15s%s\n", "dtype", tname);
    printf("  %-15s%s\n", "bias", p->has_bias ? "yes" : "no");
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
    printf("  datasets\n");
    print_shape("x", &mx, tname);
    print_shape("w", &mw, tname);
    if (p->has_bias)
        printf("    %-10s [%lld]  C  %s\n", "bias", (long long)p->out_channels, tname);
    if (has_outputs) {
        print_shape("y", &my, tname);
        print_shape("y_f64", &my, "f64");
        print_shape("err_bound", &my, "f64");
    }

    /* Values. */
    printf("  values (first %d in memory order; statistics over all)\n", SHOW_FIRST);
    print_values("x", p->dtype, c->x, mx.count, digits);
    print_values("w", p->dtype, c->w, mw.count, digits);
    if (p->has_bias && c->bias != NULL)
        print_values("bias", p->dtype, c->bias, p->out_channels, digits);
    if (has_outputs) {
        print_values("y", p->dtype, c->y, my.count, digits);
        print_values("y_f64", IOHW_F64, c->y_f64, my.count, 17);
        print_values("err_bound", IOHW_F64, c->err_bound, my.count, 6);
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
        has_outputs = c.y != NULL && c.y_f64 != NULL && c.err_bound != NULL;
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
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return iohw_cli_usage("show", "unknown option '%s'", argv[i]);
        nargs++;
    }
    if (nargs == 0)
        return iohw_cli_usage("show", "missing FILE[:CASE_ID]");
    for (int i = 1; i < argc; i++) {
        fflush(stdout);
        if (show_arg(argv[i], &first) != 0)
            status = IOHW_EXIT_USAGE;
    }
    return status;
}
