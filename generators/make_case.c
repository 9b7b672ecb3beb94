/*
 * generators/make_case.c - complete cases: iohw_make_case (from a parsed
 * descriptor) and iohw_complete_case (a user-supplied case).
 *
 * iohw_make_case(d, id, extra_tags, threads, c):
 *   d           a parsed descriptor (iohw_desc_parse);
 *   id          the case id, valid by iohw_case_id_valid;
 *   extra_tags  NULL, or comma-separated tags appended to the derived ones;
 *   threads     oracle threads (<= 1: the calling thread);
 *   c           zeroed and filled in: problem, id, fill, seed, descriptor
 *               (iohw_desc_format's canonical text), tags, the inputs of
 *               the direction (forward x, w, bias; BWD_D dy, w; BWD_W x,
 *               dy: iohw_fill_direction_inputs) and the oracle's y,
 *               y_f64, err_bound, terms_max (a backward case's: dx, or dw
 *               then db; specification section 13).
 * On failure *c is left freed (all zero).
 *
 * iohw_complete_case(c, threads):
 *   c  a case with its problem (out_size may be missing) and the inputs of
 *      its direction: x, w and (with a bias) bias; BWD_D dy and w; BWD_W x
 *      and dy.  Recomputes out_size, runs the oracle, replaces y, y_f64,
 *      err_bound and terms_max.  A case without a fill gets fill "user"; a
 *      missing descriptor or tag list is derived from the problem.  On
 *      failure the case is left as it was.  An empty descriptor or tag list
 *      (what the reader gives for an absent one) counts as missing.
 */
#include "generators/generators.h"
#include "generators/fill_quant.h"

#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

#define TAGS_MAX 1024

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

/* The derived tags followed by extra (when not NULL or empty), malloc'd. */
static char *make_tags(const iohw_problem *p, const char *fill,
                       const char *extra, iohw_error *err)
{
    char buf[TAGS_MAX];
    int len = iohw_problem_tags(p, fill, buf, sizeof buf);
    if (len < 0) {
        iohw_error_set(err, "tags: the derived tags exceed %d bytes", TAGS_MAX);
        return NULL;
    }
    size_t n_extra = (extra != NULL) ? strlen(extra) : 0;
    char *t = malloc((size_t)len + n_extra + 2);
    if (t == NULL) {
        iohw_error_set(err, "tags: out of memory");
        return NULL;
    }
    memcpy(t, buf, (size_t)len + 1);
    if (n_extra > 0) {
        if (len > 0)
            t[len++] = ',';
        memcpy(t + len, extra, n_extra + 1);
    }
    return t;
}

/* Runs the oracle on the inputs of c and moves the outputs into c. */
static int run_oracle(iohw_case *c, const iohw_problem *p, int threads,
                      iohw_error *err)
{
    iohw_oracle_result r;
    memset(&r, 0, sizeof r);
    if (iohw_problem_is_quant(p))
        return iohw__quant_outputs(c, p, err);
    /* Any direction (specification section 13): a backward case's output
     * is dx, or dw then db. */
    const iohw_oracle_inputs in = {c->x, c->w, c->bias, c->dy};
    if (iohw_oracle_run_inputs(p, &in, IOHW_ORACLE_FROM_ENV, threads, &r, err) != 0)
        return -1;
    free(c->y);
    free(c->y_f64);
    free(c->err_bound);
    c->y = r.y;
    c->y_f64 = r.y_f64;
    c->err_bound = r.err_bound;
    c->terms_max = r.terms_max;
    return 0;
}

/* The input buffers of c's direction: forward x, w (and bias); BWD_D dy
 * and w; BWD_W x and dy. */
static int alloc_inputs(iohw_case *c, iohw_error *err)
{
    const iohw_problem *p = &c->p;
    const size_t es = iohw_dtype_size(p->dtype);
    const int back = iohw_problem_is_backward(p);
    const int64_t nx = p->direction == IOHW_DIR_BWD_D ? 0 : iohw_problem_x_count(p);
    const int64_t nw = p->direction == IOHW_DIR_BWD_W ? 0 : iohw_problem_w_count(p);
    const int64_t nb = back ? 0 : iohw_problem_bias_count(p);
    const int64_t ny = back ? iohw_problem_dy_count(p) : 0;
    c->x = nx > 0 ? malloc((size_t)nx * es) : NULL;
    c->w = nw > 0 ? malloc((size_t)nw * es) : NULL;
    c->bias = nb > 0 ? malloc((size_t)nb * es) : NULL;
    c->dy = ny > 0 ? malloc((size_t)ny * es) : NULL;
    if ((nx > 0 && c->x == NULL) || (nw > 0 && c->w == NULL) || (nb > 0 && c->bias == NULL)
        || (ny > 0 && c->dy == NULL))
        return iohw_error_set(err, "out of memory for the inputs");
    return 0;
}

/* The case's descriptor: its problem p, with the lists d states (sw, qmul,
 * qshift: specification section 11.4), so that it generates the case again. */
static int format_stated(const iohw_desc *d, const iohw_problem *p, char *buf, size_t n)
{
    if (d->n_sw == 0 && d->n_qmul == 0 && d->n_qshift == 0)
        return iohw_desc_format_problem(p, d->fill, d->seed, buf, n);
    iohw_desc *shown = malloc(sizeof *shown);
    if (shown == NULL)
        return -1;
    *shown = *d;
    shown->p = *p;
    const int len = iohw_desc_format(shown, buf, n);
    free(shown);
    return len;
}

int iohw_make_case(const iohw_desc *d, const char *id, const char *extra_tags,
                   int threads, iohw_case *c, iohw_error *err)
{
    char text[IOHW_DESC_MAX];

    /* Test the arguments. */
    if (c == NULL)
        return iohw_error_set(err, "make case: argument c is NULL");
    memset(c, 0, sizeof *c);
    if (d == NULL)
        return iohw_error_set(err, "make case: argument d is NULL");
    if (id == NULL)
        return iohw_error_set(err, "make case: argument id is NULL");
    if (strlen(id) >= IOHW_CASE_ID_MAX || !iohw_case_id_valid(id))
        return iohw_error_set(err, "make case: invalid case id '%s' (letters, digits, "
                              "'.', '_', '-', at most %d characters)", id,
                              IOHW_CASE_ID_MAX - 1);
    if (strlen(d->fill) >= sizeof c->fill)
        return iohw_error_set(err, "make case '%s': fill name too long", id);
    if (iohw_problem_validate(&d->p, err) != 0)
        return iohw_error_prefix(err, "make case '%s'", id);

    /* Identity of the case. */
    strcpy(c->id, id);
    c->p = d->p;
    strcpy(c->fill, d->fill);
    c->seed = d->seed;
    const int quant = iohw_problem_is_quant(&c->p);
    if (quant && iohw__quant_inputs(c, d, err) != 0) {
        iohw_error_prefix(err, "make case '%s'", id);
        goto fail;
    }
    if (format_stated(d, &c->p, text, sizeof text) < 0) {
        iohw_error_set(err, "make case '%s': descriptor longer than %d bytes", id,
                       IOHW_DESC_MAX);
        goto fail;
    }
    c->descriptor = dup_string(text);
    c->tags = make_tags(&c->p, c->fill, extra_tags, err);
    if (c->descriptor == NULL || c->tags == NULL) {
        if (c->tags != NULL)
            iohw_error_set(err, "out of memory");
        iohw_error_prefix(err, "make case '%s'", id);
        goto fail;
    }

    /* Inputs (a quantized case's are filled): those of the direction. */
    if (quant)
        goto outputs;
    if (alloc_inputs(c, err) != 0
        || iohw_fill_direction_inputs(&c->p, c->fill, c->seed, c->x, c->w, c->bias, c->dy,
                                      err) != 0) {
        iohw_error_prefix(err, "make case '%s'", id);
        goto fail;
    }

    /* Outputs. */
outputs:
    if (run_oracle(c, &c->p, threads, err) != 0) {
        iohw_error_prefix(err, "make case '%s'", id);
        goto fail;
    }
    return 0;

fail:
    iohw_case_free(c);
    return -1;
}

int iohw_complete_case(iohw_case *c, int threads, iohw_error *err)
{
    char text[IOHW_DESC_MAX];
    char *descriptor = NULL;
    char *tags = NULL;
    const char *fill;
    iohw_problem p;

    /* Test the arguments. */
    if (c == NULL)
        return iohw_error_set(err, "complete case: argument c is NULL");
    const char *id = c->id[0] != '\0' ? c->id : "(no id)";
    p = c->p;
    if (iohw_problem_finish(&p, err) != 0)
        return iohw_error_prefix(err, "case '%s'", id);
    if (c->x == NULL && p.direction != IOHW_DIR_BWD_D)
        return iohw_error_set(err, "case '%s': x is missing", id);
    if (c->w == NULL && p.direction != IOHW_DIR_BWD_W)
        return iohw_error_set(err, "case '%s': w is missing", id);
    if (c->dy == NULL && iohw_problem_is_backward(&p))
        return iohw_error_set(err, "case '%s': dy is missing (%s reads dy)", id,
                              iohw_direction_name(&p));
    if (p.has_bias && c->bias == NULL && !iohw_problem_is_backward(&p))
        return iohw_error_set(err, "case '%s': has_bias is 1 but bias is missing", id);
    fill = c->fill[0] != '\0' ? c->fill : "user";

    /* Descriptor and tags where missing. */
    if (c->descriptor == NULL || c->descriptor[0] == '\0') {
        if (iohw_desc_format_problem(&p, fill, c->seed, text, sizeof text) < 0)
            return iohw_error_set(err, "case '%s': descriptor longer than %d bytes",
                                  id, IOHW_DESC_MAX);
        descriptor = dup_string(text);
        if (descriptor == NULL)
            return iohw_error_set(err, "case '%s': out of memory", id);
    }
    if (c->tags == NULL || c->tags[0] == '\0') {
        tags = make_tags(&p, fill, NULL, err);
        if (tags == NULL) {
            free(descriptor);
            return iohw_error_prefix(err, "case '%s'", id);
        }
    }

    /* Outputs. */
    if (run_oracle(c, &p, threads, err) != 0) {
        free(descriptor);
        free(tags);
        return iohw_error_prefix(err, "case '%s'", id);
    }
    c->p = p;
    if (c->fill[0] == '\0')
        strcpy(c->fill, "user");
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
