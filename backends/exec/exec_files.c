/*
 * backends/exec/exec_files.c - the two files of the exec protocol
 * (docs/EXEC_PROTOCOL.md).
 *
 * IN.h5 is an ordinary case file (cases/case.h writer, schema 1) holding one
 * case, EXEC_CASE_ID: every attribute of the problem (the direction among
 * them), the inputs of its direction (forward x, w and bias; BWD_D dy and
 * w; BWD_W x and dy: specification section 13); fill
 * "user", seed 0, the descriptor and tags derived from the problem,
 * terms_max.  The writer insists on complete cases, so y, y_f64 and
 * err_bound (dx, dx_f64, dx_err_bound; dw ... db_err_bound in a backward
 * case) are there too, as placeholders full of NaN: a program reads
 * exactly what `iohw oracle` reads (IOHW_READ_USER) and ignores them.  A
 * quantized case (specification section 11.4) carries the quantization
 * attributes, the requant datasets (s_w, or multiplier and shift) and a y
 * of zeros, with no y_f64 or err_bound.
 *
 * OUT.h5 holds the answer: a root attribute `unsupported` (a string, the
 * reason), or the result y (dx; dw and db) as a root dataset /y, or as
 * /cases/<id>/y (a
 * case file, such as `iohw oracle IN.h5 -o OUT.h5` writes; <id> is the
 * case's id, or any id when /cases holds one case).  y
 * has the case's y shape (data layout order, C = C_out) and the stored
 * type of the case's y dtype (bf16: uint16 with encoding = "bf16"; a
 * quantized case: int8, uint8 or int32).  The cases
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
#include "oracle/quant_problem.h"

/* A query's requant values (specification section 11.4): valid ones, s_w
 * 1 or multiplier 2^30 and shift 0, for every channel; NULL for an s32 y
 * or when memory runs out (*failed set). */
static void *placeholder_requant(const iohw_problem *p, int *failed)
{
    const int64_t n = iohw_quant_requant_count(p);
    if (n == 0)
        return NULL;
    void *r = malloc(iohw_quant_requant_bytes(p));
    *failed = r == NULL;
    for (int64_t i = 0; r != NULL && i < n; i++) {
        if (p->m_form == IOHW_QM_SCALES) {
            ((float *)r)[i] = 1.0f;
        } else {
            ((int32_t *)r)[i] = INT32_C(1) << 30;
            ((int32_t *)r)[n + i] = 0;
        }
    }
    return r;
}

/* The output placeholders: the direction's output (y, dx, or dw and db;
 * NaN, or zeros in a quantized case), its f64 values and bounds (NaN; none
 * in a quantized case).  0, or -1 when memory
 * runs out. */
static int placeholders(const iohw_problem *p, iohw_case *c)
{
    const int64_t ny = iohw_problem_out_count(p);
    const size_t ey = iohw_dtype_size(iohw_problem_y_dtype(p));
    if (iohw_problem_is_quant(p))
        return (c->y = calloc((size_t)ny, ey)) != NULL ? 0 : -1;
    c->y = malloc((size_t)ny * ey);
    c->y_f64 = malloc((size_t)ny * sizeof(double));
    c->err_bound = malloc((size_t)ny * sizeof(double));
    if (c->y == NULL || c->y_f64 == NULL || c->err_bound == NULL)
        return -1;
    for (int64_t i = 0; i < ny; i++) {
        iohw_dtype_store(p->dtype, c->y, (size_t)i, NAN);
        c->y_f64[i] = NAN;
        c->err_bound[i] = NAN;
    }
    return 0;
}

/* The case's inputs from the caller's in0, in1 and bias, by direction
 * (specification section 13): forward x, w, bias; BWD_D dy, w; BWD_W x,
 * dy. */
static void set_inputs(iohw_case *c, const void *in0, const void *in1,
                       const void *bias)
{
    void *a = (void *)(uintptr_t)in0, *b = (void *)(uintptr_t)in1;
    if (c->p.direction == IOHW_DIR_BWD_D) {
        c->dy = a;
        c->w = b;
    } else if (c->p.direction == IOHW_DIR_BWD_W) {
        c->x = a;
        c->dy = b;
    } else {
        c->x = a;
        c->w = b;
        c->bias = c->p.has_bias ? (void *)(uintptr_t)bias : NULL;
    }
}

/* Zeros for a query's inputs, by direction: in0, in1 and (forward) bias;
 * -1 when memory runs out. */
static int query_inputs(const iohw_problem *p, void **in0, void **in1,
                        void **bias)
{
    const size_t ex = iohw_dtype_size(p->dtype);
    const size_t ew = iohw_dtype_size(iohw_problem_w_dtype(p));
    const size_t eb = iohw_dtype_size(iohw_problem_bias_dtype(p));
    int64_t n0 = iohw_problem_x_count(p), n1 = iohw_problem_w_count(p);
    size_t e1 = ew;
    if (p->direction == IOHW_DIR_BWD_D)
        n0 = iohw_problem_dy_count(p);
    if (p->direction == IOHW_DIR_BWD_W) {
        n1 = iohw_problem_dy_count(p);
        e1 = ex;
    }
    *in0 = calloc((size_t)n0, ex);
    *in1 = calloc((size_t)n1, e1);
    *bias = p->has_bias && !iohw_problem_is_backward(p)
                ? calloc((size_t)p->out_channels, eb) : NULL;
    return *in0 == NULL || *in1 == NULL ||
           (p->has_bias && !iohw_problem_is_backward(p) && *bias == NULL)
               ? -1 : 0;
}

int iohw__exec_write_input(const char *path, const iohw_problem *p,
                           const void *in0, const void *in1, const void *bias,
                           const void *requant, iohw_error *err)
{
    char desc[IOHW_DESC_MAX], tags[512];
    void *z0 = NULL, *z1 = NULL, *zb = NULL, *zr = NULL;
    int failed = 0;
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
    if (in0 == NULL) {
        failed = query_inputs(p, &z0, &z1, &zb) != 0;
        zr = placeholder_requant(p, &failed);
        in0 = z0;
        in1 = z1;
        bias = zb;
        requant = zr;
    }
    set_inputs(&c, in0, in1, bias);
    c.requant = (void *)(uintptr_t)requant;
    if (c.terms_max < 0 || failed || in0 == NULL || in1 == NULL ||
        (p->has_bias && !iohw_problem_is_backward(p) && bias == NULL) ||
        placeholders(p, &c) != 0) {
        iohw_error_set(err, "out of memory writing %s", path);
        goto done;
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
    free(z0);
    free(z1);
    free(zb);
    free(zr);
    return rc;
}

int iohw__exec_read_output(const char *path, const iohw_problem *p,
                           int need_y, void *y, char **msg)
{
    if (access(path, F_OK) != 0) {
        if (!need_y)
            return 0;
        return iohw__exec_say(msg, "the program wrote no %s", path);
    }
    char *why = NULL;
    iohw_error e;
    int rc = iohw_answer_read(path, p, EXEC_CASE_ID, need_y, y, &why, &e);
    if (rc == 1)
        iohw__exec_say(msg, "the program does not claim this problem: %s",
                       why != NULL && why[0] != '\0' ? why
                                                     : "(no reason given)");
    else if (rc < 0 || rc == 2) /* 2: y of another shape (section 3.5) */
        iohw__exec_say(msg, "%s", e.msg);
    free(why);
    return rc;
}
