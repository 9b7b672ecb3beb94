/*
 * cli/show_as.c - `iohw show --as FORMAT FILE[:CASE]`: one case handed back
 * in another tool's language, through the SHOW_AS table: onnx (a one-node
 * ONNX node-test folder, cli/show_as_onnx.c), torch (a PyTorch snippet,
 * cli/show_as_torch.c), benchdnn (its command line, cli/benchdnn_iohw.c).
 * The tensors are given in the canonical orders of specification section 1
 * whatever the case's layouts, with each output element's tolerance of
 * specification section 3.3.
 */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/benchdnn.h"
#include "cli/show_as.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

typedef struct show_as_row {
    const char *format;
    int (*fn)(const iohw_problem *p, const char *case_id, FILE *out, iohw_error *err);
    int (*fn_case)(const iohw__show_as_case *k, FILE *out, iohw_error *err);
} show_as_row;

static const show_as_row SHOW_AS[] = {
    {"onnx", NULL, iohw__show_as_onnx},
    {"torch", NULL, iohw__show_as_torch},
    {"benchdnn", iohw__show_as_benchdnn, NULL},
};
#define NSHOW_AS (sizeof SHOW_AS / sizeof SHOW_AS[0])

/* n elements of dt in the layout of m, as canonical doubles (malloc'd). */
static double *canonical(const iohw_layout_map *m, iohw_dtype dt, const void *src)
{
    double *d = malloc((size_t)m->count * sizeof *d);
    double *c = malloc((size_t)m->count * sizeof *c);
    if (d == NULL || c == NULL) {
        free(d);
        free(c);
        return NULL;
    }
    iohw_dtype_to_double(dt, src, d, (size_t)m->count);
    iohw_layout_to_canonical(m, sizeof(double), d, c);
    free(d);
    return c;
}

static void free_tensors(iohw__show_as_case *k)
{
    free(k->x);
    free(k->w);
    free(k->bias);
    free(k->y_f64);
    free(k->tol);
}

/* The tolerance of section 3.3: (T + 2)*u*eb + ulp(s)/2, ulp(s) the
 * spacing of dt's numbers at s (the subnormal spacing below the smallest
 * normal); infinite for a non-finite s or eb (the snippet then compares
 * only that the value is the same special). */
static double tolerance(iohw_dtype dt, int64_t T, double eb, double s)
{
    const double u = iohw_dtype_unit_roundoff(dt);
    const int prec = -ilogb(u);  /* 24, 53, 11, 8 bits */
    const double sub = dt == IOHW_F32 ? 0x1p-149 : dt == IOHW_F64 ? 0x1p-1074
                     : dt == IOHW_F16 ? 0x1p-24 : 0x1p-133;
    if (!isfinite(s) || !isfinite(eb))
        return INFINITY;
    double ulp = s != 0 ? ldexp(1.0, ilogb(s) + 1 - prec) : sub;
    if (ulp < sub)
        ulp = sub;
    return (double)(T + 2) * u * eb + ulp / 2;
}

static int tensors(const iohw_case *c, iohw__show_as_case *k, iohw_error *err)
{
    const iohw_problem *p = &c->p;
    const iohw_dtype dt = (iohw_dtype)p->dtype;
    iohw_layout_map mx, mw, my;
    if (!iohw_dtype_is_float(dt) || p->direction != 0)
        return iohw_error_set(err, "case '%s': --as handles forward float cases only", c->id);
    if (c->y == NULL || c->y_f64 == NULL || c->err_bound == NULL)
        return iohw_error_set(err, "case '%s' has no outputs: complete it with 'iohw oracle' "
                              "first", c->id);
    if (iohw_layout_data_map(p, 0, &mx, err) != 0 || iohw_layout_weight_map(p, &mw, err) != 0 ||
        iohw_layout_data_map(p, 1, &my, err) != 0)
        return -1;
    k->nx = mx.count, k->nw = mw.count, k->ny = my.count;
    k->x = canonical(&mx, dt, c->x);
    k->w = canonical(&mw, dt, c->w);
    k->y_f64 = canonical(&my, IOHW_F64, c->y_f64);
    double *eb = canonical(&my, IOHW_F64, c->err_bound);
    double *y = canonical(&my, dt, c->y);
    k->tol = malloc((size_t)my.count * sizeof *k->tol);
    if (p->has_bias && (k->bias = malloc((size_t)p->out_channels * sizeof *k->bias)) != NULL)
        iohw_dtype_to_double(dt, c->bias, k->bias, (size_t)p->out_channels);
    if (k->x == NULL || k->w == NULL || k->y_f64 == NULL || eb == NULL || y == NULL ||
        k->tol == NULL || (p->has_bias && k->bias == NULL)) {
        free(eb);
        free(y);
        return iohw_error_set(err, "out of memory");
    }
    for (int64_t i = 0; i < my.count; i++)
        k->tol[i] = tolerance(dt, c->terms_max, eb[i], y[i]);
    free(eb);
    free(y);
    return 0;
}


/* The case FILE:CASE (or FILE's only case) through row r. */
static int show_as_case(const show_as_row *r, const char *arg, const char *out_dir)
{
    char *path = strdup(arg);
    const char *id = NULL;
    iohw_error e;
    iohw_case c;
    iohw__show_as_case k;
    int rc = -1;
    if (path == NULL)
        return -1;
    char *colon = strrchr(path, ':');
    if (access(arg, F_OK) != 0 && colon != NULL) {
        *colon = '\0';
        id = colon + 1;
    }
    memset(&k, 0, sizeof k);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    if (f != NULL && id == NULL && iohw_case_file_count(f) != 1)
        iohw_error_set(&e, "%s holds %d cases: name one, FILE:CASE_ID", path,
                       iohw_case_file_count(f));
    else if (f != NULL &&
             iohw_case_file_read(f, id != NULL ? id : iohw_case_file_id(f, 0), IOHW_READ_ALL,
                                 &c, &e) == 0) {
        k.c = &c, k.file = path, k.out_dir = out_dir;
        rc = r->fn != NULL ? r->fn(&c.p, c.id, stdout, &e)
                           : tensors(&c, &k, &e) != 0 ? -1 : r->fn_case(&k, stdout, &e);
        free_tensors(&k);
        iohw_case_free(&c);
    }
    if (rc != 0)
        iohw_cli_error("show --as %s: %s", r->format, e.msg);
    if (f != NULL)
        iohw_case_file_close(f, NULL);
    free(path);
    return rc;
}

int iohw__show_as(int argc, char **argv)
{
    const char *format = NULL, *out_dir = NULL, *arg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if ((r = iohw_cli_option("show", argc, argv, &i, "--as", NULL, &v)) != 0) {
            if (r < 0)
                return IOHW_EXIT_USAGE;
            format = v;
        } else if ((r = iohw_cli_option("show", argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0)
                return IOHW_EXIT_USAGE;
            out_dir = v;
        } else if (arg != NULL) {
            return iohw_cli_usage("show", "--as takes one FILE[:CASE_ID]");
        } else {
            arg = argv[i];
        }
    }
    if (arg == NULL)
        return iohw_cli_usage("show", "--as %s: missing FILE[:CASE_ID]", format);
    for (size_t i = 0; i < NSHOW_AS; i++)
        if (strcmp(format, SHOW_AS[i].format) == 0)
            return show_as_case(&SHOW_AS[i], arg, out_dir) == 0 ? IOHW_EXIT_OK
                                                                : IOHW_EXIT_USAGE;
    return iohw_cli_usage("show", "--as '%s': unknown format (onnx, torch, benchdnn)", format);
}
