/*
 * cases/case_backward.c - the backward cases of schema 1 (specification
 * sections 4 and 13): the attribute `direction` and the direction's
 * datasets.
 *
 * A backward case's group carries the attribute `direction` (int32: 1
 * BWD_D, 2 BWD_W; absent = 0 = forward, written only when not 0) and
 *   BWD_D: dy (case dtype, data layout, C = C_out), w; outputs dx, dx_f64,
 *          dx_err_bound (data layout, C = C_in);
 *   BWD_W: x, dy; outputs dw, dw_f64, dw_err_bound (weight layout) and,
 *          with has_bias, db, db_f64, db_err_bound ([C_out]).
 * No y, y_f64, err_bound or bias dataset, and not the other direction's
 * input (x in BWD_D, w in BWD_W): a reader refuses each by name.  In
 * memory (cases/case.h) c->dy is the input and c->y, y_f64, err_bound hold
 * iohw_problem_out_count elements: dx, or dw followed by db.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/case_internal.h"
#include "cases/h5util.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

/* The output datasets' names: [BWD_D or BWD_W][value, f64, err_bound]. */
static const char *const OUT_NAMES[2][3] = {
    {"dx", "dx_f64", "dx_err_bound"},
    {"dw", "dw_f64", "dw_err_bound"},
};
static const char *const DB_NAMES[3] = {"db", "db_f64", "db_err_bound"};

int iohw__case_read_direction(hid_t g, iohw_problem *p, iohw_error *err)
{
    int64_t v = 0;
    int has = iohw__h5_has_attr(g, "direction", err);
    if (has < 0)
        return -1;
    if (has && iohw__h5_read_ints(g, "direction", 1, &v, err) != 0)
        return -1;
    if (v < IOHW_DIR_FWD || v > IOHW_DIR_BWD_W)
        return iohw_error_set(err, "attribute 'direction' is %lld; it must "
                              "be 0 (forward), 1 (BWD_D) or 2 (BWD_W)",
                              (long long)v);
    p->direction = (int32_t)v;
    return 0;
}

int iohw__case_write_direction(hid_t g, const iohw_problem *p,
                               iohw_error *err)
{
    if (p->direction == IOHW_DIR_FWD)
        return 0;  /* a forward case's bytes stay as they were */
    return iohw__h5_write_i32(g, "direction", p->direction, err);
}

/* Makes slot s a dataset the case must not hold. */
static void forbid(ds_spec *s, const char *name, const char *why)
{
    s->name = name;
    s->forbidden = 1;
    s->required = 0;
    s->why = why;
}

/* Slot s: a dataset like `like` (required, load) of this shape; the case
 * dtype's when case_dtype is 1 (for messages). */
static void plan_as(ds_spec *s, const ds_spec *like, const char *name,
                    iohw_dtype dt, int case_dtype, int ndim,
                    const int64_t *shape, int64_t count, const char *needs)
{
    s->name = name;
    s->dt = dt;
    s->forbidden = 0;
    s->required = like->required;
    s->load = like->load;
    s->ndim = ndim;
    memcpy(s->shape, shape, (size_t)ndim * sizeof *shape);
    s->count = count;
    if (case_dtype)
        snprintf(s->who, sizeof s->who, "the case dtype %s",
                 iohw_dtype_name(dt));
    else
        snprintf(s->who, sizeof s->who, "this dataset");
    snprintf(s->needs, sizeof s->needs, "%s", needs);
}

int iohw__case_plan_backward(const iohw_case *c, ds_spec *ds, void **tail,
                             iohw_error *err)
{
    const iohw_problem *p = &c->p;
    const int bwd_w = p->direction == IOHW_DIR_BWD_W;
    iohw_layout_map xm, wm, ym;
    if (iohw_layout_data_map(p, 0, &xm, err) != 0 ||
        iohw_layout_weight_map(p, &wm, err) != 0 ||
        iohw_layout_data_map(p, 1, &ym, err) != 0)
        return -1;
    char needs[96];

    /* Inputs: dy, and x (BWD_W) or w (BWD_D). */
    snprintf(needs, sizeof needs, "the data layout '%s' with C = "
             "out_channels", p->data_layout);
    plan_as(&ds[DS_DY], &ds[DS_X], "dy", p->dtype, 1, ym.ndim, ym.shape,
            ym.count, needs);
    ds[DS_DY].dst = (void **)&c->dy;
    if (bwd_w)
        forbid(&ds[DS_W], "w", "in a BWD_W case (its inputs are x and dy)");
    else
        forbid(&ds[DS_X], "x", "in a BWD_D case (its inputs are dy and w)");
    forbid(&ds[DS_BIAS], "bias", "in a backward case (a BWD_W case with "
           "has_bias computes db)");

    /* Outputs: dx or dw in the y slots, db in the tail. */
    const iohw_layout_map *m = bwd_w ? &wm : &xm;
    if (bwd_w)
        snprintf(needs, sizeof needs, "the weight layout '%s'",
                 p->weight_layout);
    else
        snprintf(needs, sizeof needs, "the data layout '%s' with C = "
                 "in_channels", p->data_layout);
    const int64_t cout[1] = {p->out_channels};
    char db_needs[96];
    snprintf(db_needs, sizeof db_needs, "out_channels = %lld",
             (long long)p->out_channels);
    for (int i = 0; i < 3; i++) {
        ds_spec *o = &ds[DS_Y + i];
        plan_as(o, o, OUT_NAMES[bwd_w][i], o->dt, i == 0, m->ndim, m->shape,
                m->count, needs);
        ds_spec *b = &ds[DS_DB + i];
        if (bwd_w && p->has_bias) {
            plan_as(b, o, DB_NAMES[i], o->dt, i == 0, 1, cout, cout[0], db_needs);
            b->dst = &tail[i];
        } else {
            forbid(b, DB_NAMES[i], bwd_w ? "but has_bias is 0"
                   : "in a BWD_D case (its output is dx)");
        }
    }
    const char *why = bwd_w ? "in a backward case (its outputs are dw and db)"
                            : "in a backward case (its output is dx)";
    forbid(&ds[DS_BAN_Y], "y", why);
    forbid(&ds[DS_BAN_Y_F64], "y_f64", why);
    forbid(&ds[DS_BAN_ERR_BOUND], "err_bound", why);
    return 0;
}

int iohw__case_join_backward(const ds_spec *ds, void **tail,
                             iohw_error *err)
{
    if (ds[DS_DB].name == NULL || ds[DS_DB].forbidden)
        return 0;  /* no db in this case: nothing was loaded into tail */
    int rc = 0;
    if (tail[2] != NULL)
        rc = iohw__case_check_err_bound("dataset 'db_err_bound'", tail[2],
                                        ds[DS_DB_ERR_BOUND].count, err);
    for (int i = 0; i < 3; i++) {
        const ds_spec *o = &ds[DS_Y + i], *b = &ds[DS_DB + i];
        void **dst = o->dst;
        if (rc == 0 && (tail[i] != NULL) != (*dst != NULL))
            rc = iohw_error_set(err, "dataset '%s' is present without '%s' "
                                "(dw and db come together)",
                                tail[i] != NULL ? b->name : o->name,
                                tail[i] != NULL ? o->name : b->name);
        if (rc == 0 && tail[i] != NULL) {
            const size_t es = iohw_dtype_size(o->dt);
            const size_t head = (size_t)o->count * es;
            const size_t more = (size_t)b->count * es;
            void *both = realloc(*dst, head + more);
            if (both == NULL) {
                rc = iohw_error_set(err, "out of memory");
            } else {
                memcpy((char *)both + head, tail[i], more);
                *dst = both;
            }
        }
    }
    for (int i = 0; i < 3; i++) {
        free(tail[i]);
        tail[i] = NULL;
    }
    return rc;
}

/* --- writing ---------------------------------------------------------- */

/* The direction's inputs set and nothing else (section 13). */
static int check_inputs(const iohw_case *c, iohw_error *err)
{
    const int bwd_w = c->p.direction == IOHW_DIR_BWD_W;
    const char *dir = bwd_w ? "BWD_W" : "BWD_D";
    const char *ins = bwd_w ? "x and dy" : "dy and w";
    const void *need = bwd_w ? c->x : c->w;
    const void *extra = bwd_w ? c->w : c->x;
    if (c->dy == NULL || need == NULL)
        return iohw_error_set(err, "%s is NULL (a %s case's inputs are %s)",
                              c->dy == NULL ? "dy" : bwd_w ? "x" : "w", dir,
                              ins);
    if (extra != NULL || c->bias != NULL || c->requant != NULL)
        return iohw_error_set(err, "%s is set in a %s case (its inputs are "
                              "%s; specification section 13)",
                              extra != NULL ? (bwd_w ? "w" : "x")
                              : c->bias != NULL ? "bias" : "requant",
                              dir, ins);
    return 0;
}

int iohw__case_check_backward(const iohw_case *c, iohw_error *err)
{
    const iohw_problem *p = &c->p;
    const int bwd_w = p->direction == IOHW_DIR_BWD_W;
    if (check_inputs(c, err) != 0)
        return -1;
    if (c->y == NULL || c->y_f64 == NULL || c->err_bound == NULL) {
        const int i = c->y == NULL ? 0 : c->y_f64 == NULL ? 1 : 2;
        return iohw_error_set(err, "%s is NULL (the case's %s; a written "
                              "case needs its outputs)",
                              i == 0 ? "y" : i == 1 ? "y_f64" : "err_bound",
                              OUT_NAMES[bwd_w][i]);
    }
    if (iohw__case_check_terms(p, c->terms_max, err) != 0)
        return -1;
    const int64_t head = bwd_w ? iohw_problem_w_count(p)
                               : iohw_problem_x_count(p);
    const int64_t all = iohw_problem_out_count(p);
    if (iohw__case_check_err_bound(OUT_NAMES[bwd_w][2], c->err_bound, head,
                                   err) != 0)
        return -1;
    return iohw__case_check_err_bound("db_err_bound", c->err_bound + head,
                                      all - head, err);
}

int iohw__case_write_backward(hid_t g, const iohw_case *c, iohw_error *err)
{
    const iohw_problem *p = &c->p;
    const int bwd_w = p->direction == IOHW_DIR_BWD_W;
    iohw_layout_map xm, wm, ym;
    if (iohw_layout_data_map(p, 0, &xm, err) != 0 ||
        iohw_layout_weight_map(p, &wm, err) != 0 ||
        iohw_layout_data_map(p, 1, &ym, err) != 0)
        return -1;
    const iohw_dtype dt = p->dtype;
    if (bwd_w && iohw__case_write_dataset(g, "x", dt, xm.ndim, xm.shape, c->x,
                                          err) != 0)
        return -1;
    if (iohw__case_write_dataset(g, "dy", dt, ym.ndim, ym.shape, c->dy,
                                 err) != 0)
        return -1;
    if (!bwd_w && iohw__case_write_dataset(g, "w", dt, wm.ndim, wm.shape,
                                           c->w, err) != 0)
        return -1;

    /* dx, or dw then db: the three output arrays, each split alike. */
    const iohw_layout_map *m = bwd_w ? &wm : &xm;
    const void *out[3] = {c->y, c->y_f64, c->err_bound};
    const int64_t cout[1] = {p->out_channels};
    for (int i = 0; i < 3; i++) {
        const iohw_dtype t = i == 0 ? dt : IOHW_F64;
        if (iohw__case_write_dataset(g, OUT_NAMES[bwd_w][i], t, m->ndim,
                                     m->shape, out[i], err) != 0)
            return -1;
    }
    if (!bwd_w || !p->has_bias)
        return 0;
    for (int i = 0; i < 3; i++) {
        const iohw_dtype t = i == 0 ? dt : IOHW_F64;
        const char *db = (const char *)out[i] +
                         (size_t)m->count * iohw_dtype_size(t);
        if (iohw__case_write_dataset(g, DB_NAMES[i], t, 1, cout, db,
                                     err) != 0)
            return -1;
    }
    return 0;
}
