/*
 * generators/fill_direction.c - iohw_fill_direction_inputs: the inputs of
 * a problem's direction (specification section 13).
 *
 * Definition:
 *   forward  iohw_fill_inputs (x, w, bias; dy unused);
 *   BWD_D    dy (data layout, C = C_out, y's shape) and w;
 *   BWD_W    x and dy.
 * x and w are the numbers iohw_fill_inputs gives the same problem, seed and
 * fill (the exact fill's bounds come from the direction's terms_max); dy
 * is filled like x, as the x of a problem with dy's shape (C_in = C_out,
 * L = the output positions, the groups' channels exchanged), from its own
 * stream.  Exact fill: BWD_D's dy takes x's bound (and the sparse fallback
 * per (n, g) block), since dx sums dy * w as y sums x * w; BWD_W's dy takes
 * w's bound, dense, since dw sums x * dy and db sums dy, each with at most
 * terms_max terms: every partial sum is an integer of at most 2^p - 1,
 * hence exact, unless the sparse fallback was needed (then dw of a batch
 * of more than one may round: near, not exact).
 * The narrow fills (zeros, subnormal, ties, huge, accum16) are built around the
 * forward sum and have no backward form: a backward problem with one of
 * them is an error naming the fill.
 */
#include "generators/fill_internal.h"

#include <stdlib.h>
#include <string.h>

#include "oracle/problem.h"

/* f's view of dy as the x of a problem with dy's shape; w is scratch. */
static int dy_view(const iohw__fill *f, iohw__fill *d, iohw_error *err)
{
    *d = *f;
    d->seed = iohw__fill_stream_seed(f->seed, IOHW__STREAM_DY);
    d->C_in = f->C_out;
    d->C_out = f->C_in;
    d->Cg = f->Mg;
    d->Mg = f->Cg;
    d->L = 1;
    for (uint32_t a = 0; a < f->p->rank; a++)
        d->L *= f->p->out_size[a];
    d->nx = iohw_problem_dy_count(f->p);
    d->nb = 0;
    d->bias = NULL;
    d->x = malloc((size_t)d->nx * sizeof(double));
    d->w = malloc((size_t)d->nw * sizeof(double));
    if (d->x == NULL || d->w == NULL) {
        iohw__fill_release(d);
        return iohw_error_set(err, "fill: out of memory for dy (%lld elements)",
                              (long long)d->nx);
    }
    return 0;
}

/* Canonical dy of the direction into d->x. */
static int fill_dy(const iohw__fill *f, const char *fill, iohw__fill *d,
                   iohw_error *err)
{
    if (dy_view(f, d, err) != 0)
        return -1;
    if (strcmp(fill, "exact") != 0)
        return iohw__fill_dispatch(d, fill, err);
    if (f->p->direction == IOHW_DIR_BWD_D)
        iohw__fill_exact_x(d, f->exact_ax, f->exact_m);
    else
        iohw__fill_exact_x(d, f->exact_aw, -1);
    return 0;
}

/* The checks of a backward call: the buffers its direction reads. */
static int check_buffers(const iohw_problem *p, const char *fill, const void *x,
                         const void *w, const void *dy, iohw_error *err)
{
    const char *dir = iohw_direction_name(p);
    if (fill == NULL)
        return iohw_error_set(err, "fill: argument fill is NULL");
    if (!iohw_fill_known(fill) || iohw_fill_recorded(fill))
        return iohw_error_set(err, "fill: unknown fill '%s'", fill);
    if (iohw__fill_is_narrow(fill))
        return iohw_error_set(err, "fill: '%s' has no backward form (%s takes exact, "
                              "normal, uniform, range, cancel or special)", fill, dir);
    if (dy == NULL)
        return iohw_error_set(err, "fill: argument dy is NULL (%s reads dy)", dir);
    if (p->direction == IOHW_DIR_BWD_D && w == NULL)
        return iohw_error_set(err, "fill: argument w is NULL (BWD_D reads w)");
    if (p->direction == IOHW_DIR_BWD_W && x == NULL)
        return iohw_error_set(err, "fill: argument x is NULL (%s reads x)", dir);
    return 0;
}

int iohw_fill_direction_inputs(const iohw_problem *p, const char *fill,
                               uint64_t seed, void *x, void *w, void *bias,
                               void *dy, iohw_error *err)
{
    iohw__fill f, d;
    iohw_layout_map mx, mw, my;

    /* Test the arguments; a forward problem is iohw_fill_inputs's.  A
     * backward problem reads no bias. */
    if (p == NULL)
        return iohw_error_set(err, "fill: argument p is NULL");
    if (!iohw_problem_is_backward(p))
        return iohw_fill_inputs(p, fill, seed, x, w, bias, err);
    (void)bias;
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "fill");
    if (check_buffers(p, fill, x, w, dy, err) != 0)
        return -1;
    if (iohw_layout_data_map(p, 0, &mx, err) != 0 || iohw_layout_weight_map(p, &mw, err) != 0
        || iohw_layout_data_map(p, 1, &my, err) != 0)
        return iohw_error_prefix(err, "fill");

    /* x and w as forward, then dy; store what the direction reads. */
    if (iohw__fill_make(p, fill, seed, &f, err) != 0)
        return -1;
    int rc = fill_dy(&f, fill, &d, err);
    if (rc == 0)
        rc = iohw__fill_store(&my, f.dt, d.x, dy, err);
    if (rc == 0 && p->direction == IOHW_DIR_BWD_D)
        rc = iohw__fill_store(&mw, f.dt, f.w, w, err);
    if (rc == 0 && p->direction == IOHW_DIR_BWD_W)
        rc = iohw__fill_store(&mx, f.dt, f.x, x, err);
    iohw__fill_release(&d);
    iohw__fill_release(&f);
    return rc;
}
