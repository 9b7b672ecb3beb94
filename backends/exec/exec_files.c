/*
 * backends/exec/exec_files.c - the two files of the exec protocol
 * (docs/EXEC_PROTOCOL.md).
 *
 * IN.h5 is an ordinary case file (cases/case.h writer, schema 1) holding one
 * case, EXEC_CASE_ID: every attribute of the problem, x, w and bias; fill
 * "user", seed 0, the descriptor and tags derived from the problem,
 * terms_max.  The writer insists on complete cases, so y, y_f64 and
 * err_bound are there too, as placeholders full of NaN: a program reads
 * exactly what `iohw oracle` reads (IOHW_READ_USER) and ignores them.
 *
 * OUT.h5 holds the answer: a root attribute `unsupported` (a string, the
 * reason), or the result y as a root dataset /y, or as /cases/<id>/y (a
 * case file, such as `iohw oracle IN.h5 -o OUT.h5` writes; <id> is the
 * case's id, or any id when /cases holds one case).  y
 * has the case's y shape (data layout order, C = C_out) and the stored
 * type of the case dtype (bf16: uint16 with encoding = "bf16").  The cases
 * module reads it (cases/answer.h).
 */
#include "backends/exec/exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/answer.h"
#include "cases/case.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

int iohw__exec_write_input(const char *path, const iohw_problem *p,
                           const void *x, const void *w, const void *bias,
                           iohw_error *err)
{
    const size_t es = iohw_dtype_size(p->dtype);
    const int64_t ny = iohw_problem_y_count(p);
    char desc[IOHW_DESC_MAX], tags[512];
    void *zx = NULL, *zw = NULL, *zb = NULL;
    iohw_case c;
    int rc = -1;

    /* The case: the problem, its inputs, NaN placeholders for outputs. */
    memset(&c, 0, sizeof c);
    strcpy(c.id, EXEC_CASE_ID);
    c.p = *p;
    strcpy(c.fill, "user");
    if (iohw_desc_format_problem(p, "user", 0, desc, sizeof desc) < 0)
        desc[0] = '\0';
    if (iohw_problem_tags(p, "user", tags, sizeof tags) < 0)
        tags[0] = '\0';
    c.descriptor = desc;
    c.tags = tags;
    c.terms_max = iohw_oracle_terms_max(p);
    if (x == NULL) {
        zx = calloc((size_t)iohw_problem_x_count(p), es);
        zw = calloc((size_t)iohw_problem_w_count(p), es);
        zb = p->has_bias ? calloc((size_t)p->out_channels, es) : NULL;
        x = zx;
        w = zw;
        bias = zb;
    }
    c.x = (void *)(uintptr_t)x;
    c.w = (void *)(uintptr_t)w;
    c.bias = p->has_bias ? (void *)(uintptr_t)bias : NULL;
    c.y = malloc((size_t)ny * es);
    c.y_f64 = malloc((size_t)ny * sizeof(double));
    c.err_bound = malloc((size_t)ny * sizeof(double));
    if (c.terms_max < 0 || x == NULL || w == NULL ||
        (p->has_bias && bias == NULL) || c.y == NULL || c.y_f64 == NULL ||
        c.err_bound == NULL) {
        iohw_error_set(err, "out of memory writing %s", path);
        goto done;
    }
    for (int64_t i = 0; i < ny; i++) {
        iohw_dtype_store(p->dtype, c.y, (size_t)i, NAN);
        c.y_f64[i] = NAN;
        c.err_bound[i] = NAN;
    }

    /* The file. */
    iohw_case_file *f = iohw_case_file_create(path, err);
    if (f == NULL)
        goto done;
    if (iohw_case_file_write(f, &c, err) != 0) {
        iohw_case_file_close(f, NULL);
        goto done;
    }
    rc = iohw_case_file_close(f, err);
done:
    free(c.y);
    free(c.y_f64);
    free(c.err_bound);
    free(zx);
    free(zw);
    free(zb);
    return rc;
}

int iohw__exec_read_output(const char *path, const iohw_problem *p,
                           int need_y, void *y, iohw_error *err)
{
    if (access(path, F_OK) != 0) {
        if (!need_y)
            return 0;
        return iohw_error_set(err, "the program wrote no %s", path);
    }
    char *why = NULL;
    int rc = iohw_answer_read(path, p, EXEC_CASE_ID, need_y, y, &why, err);
    if (rc == 1)
        iohw_error_set(err, "the program does not claim this problem: %s",
                       why[0] != '\0' ? why : "(no reason given)");
    free(why);
    return rc;
}
