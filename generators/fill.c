/*
 * generators/fill.c - iohw_fill_inputs: the input tensors of a case.
 *
 * Definition:
 *   iohw_fill_inputs(p, fill, seed, x, w, bias) writes x (data layout,
 *   C = C_in), w (weight layout) and, when p->has_bias, bias[C_out], all in
 *   p->dtype, with the numbers of `fill` drawn from `seed`.
 *
 * Arguments, checked in this order:
 *   p     a problem that passes iohw_problem_validate;
 *   fill  one of iohw_fill_names();
 *   seed  any 64-bit value;
 *   x     iohw_problem_x_count(p) elements of the dtype;
 *   w     iohw_problem_w_count(p) elements of the dtype;
 *   bias  C_out elements when p->has_bias (ignored otherwise).
 *
 * Method: the values are generated in canonical order (x[N][C_in][L...],
 * w[C_in][Mg][K...]) from one random stream per tensor, rounded to the
 * dtype, then scattered into the layouts.  So the same descriptor with other
 * layouts holds the same semantic tensors, and adding a bias leaves x and w
 * unchanged.  The fills themselves are in fill_exact.c, fill_random.c and
 * fill_narrow.c.
 */
#include "generators/fill_internal.h"

#include <stdlib.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

uint64_t iohw__fill_stream_seed(uint64_t seed, int tag)
{
    /* One splitmix64 finalisation of seed + tag * golden ratio: streams of
     * different tags start far apart for every seed. */
    uint64_t z = seed + (uint64_t)tag * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int iohw__fill_precision(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F32:
        return 24;
    case IOHW_F64:
        return 53;
    case IOHW_F16:
        return 11;
    case IOHW_BF16:
        return 8;
    }
    return 0;
}

/* Scatters a canonical double tensor into the layout of m and stores it in
 * the dtype; tmp holds m->count doubles. */
static void scatter(const iohw_layout_map *m, iohw_dtype dt, const double *canon,
                    double *tmp, void *dst)
{
    iohw_layout_from_canonical(m, sizeof(double), canon, tmp);
    iohw_dtype_from_double(dt, tmp, dst, (size_t)m->count);
}

/* The fill's view of a validated problem: its extents named, no buffers. */
void iohw__fill_name_extents(const iohw_problem *p, uint64_t seed, iohw__fill *f)
{
    memset(f, 0, sizeof *f);
    f->p = p;
    f->dt = p->dtype;
    f->seed = seed;
    f->N = p->batch;
    f->C_in = p->in_channels;
    f->C_out = p->out_channels;
    f->G = p->groups;
    f->Cg = f->C_in / f->G;
    f->Mg = f->C_out / f->G;
    f->L = 1;
    f->K = 1;
    for (uint32_t a = 0; a < p->rank; a++) {
        f->L *= p->in_size[a];
        f->K *= p->kernel[a];
    }
    f->nx = iohw_problem_x_count(p);
    f->nw = iohw_problem_w_count(p);
    f->nb = p->has_bias ? f->C_out : 0;
}

/* Checks that fill names a generated fill. */
static int check_fill(const char *fill, iohw_error *err)
{
    if (fill == NULL)
        return iohw_error_set(err, "fill: argument fill is NULL");
    if (iohw_fill_recorded(fill))
        return iohw_error_set(err, "fill: '%s' is recorded by iohw shrink, not "
                              "generated", fill);
    if (!iohw_fill_known(fill))
        return iohw_error_set(err, "fill: unknown fill '%s'", fill);
    return 0;
}

void iohw__fill_release(iohw__fill *f)
{
    free(f->x);
    free(f->w);
    free(f->bias);
    f->x = f->w = f->bias = NULL;
}

int iohw__fill_dispatch(iohw__fill *f, const char *fill, iohw_error *err)
{
    if (strcmp(fill, "exact") == 0)
        return iohw__fill_exact(f, err);
    if (iohw__fill_is_narrow(fill))
        return iohw__fill_narrow(f, fill, err);
    return iohw__fill_random(f, fill, err);
}

int iohw__fill_make(const iohw_problem *p, const char *fill, uint64_t seed,
                    iohw__fill *f, iohw_error *err)
{
    iohw__fill_name_extents(p, seed, f);
    f->x = malloc((size_t)f->nx * sizeof(double));
    f->w = malloc((size_t)f->nw * sizeof(double));
    f->bias = f->nb > 0 ? malloc((size_t)f->nb * sizeof(double)) : NULL;
    if (f->x == NULL || f->w == NULL || (f->nb > 0 && f->bias == NULL)) {
        iohw__fill_release(f);
        return iohw_error_set(err, "fill: out of memory for %lld + %lld elements",
                              (long long)f->nx, (long long)f->nw);
    }
    if (iohw__fill_dispatch(f, fill, err) != 0) {
        iohw__fill_release(f);
        return -1;
    }
    return 0;
}

int iohw__fill_store(const iohw_layout_map *m, iohw_dtype dt, const double *canon,
                     void *dst, iohw_error *err)
{
    double *tmp = malloc((size_t)(m->count > 0 ? m->count : 1) * sizeof(double));
    if (tmp == NULL)
        return iohw_error_set(err, "fill: out of memory for %lld elements",
                              (long long)m->count);
    scatter(m, dt, canon, tmp, dst);
    free(tmp);
    return 0;
}

int iohw_fill_inputs(const iohw_problem *p, const char *fill, uint64_t seed,
                     void *x, void *w, void *bias, iohw_error *err)
{
    iohw__fill f;
    iohw_layout_map mx, mw;

    /* Test the arguments. */
    if (p == NULL)
        return iohw_error_set(err, "fill: argument p is NULL");
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "fill");
    if (check_fill(fill, err) != 0)
        return -1;
    if (x == NULL)
        return iohw_error_set(err, "fill: argument x is NULL");
    if (w == NULL)
        return iohw_error_set(err, "fill: argument w is NULL");
    if (p->has_bias && bias == NULL)
        return iohw_error_set(err, "fill: argument bias is NULL but the problem has a bias");
    if (iohw_layout_data_map(p, 0, &mx, err) != 0)
        return iohw_error_prefix(err, "fill: x");
    if (iohw_layout_weight_map(p, &mw, err) != 0)
        return iohw_error_prefix(err, "fill: w");

    /* Generate the values in canonical order, rounded to the dtype; scatter
     * them into the layouts and store them in the dtype. */
    if (iohw__fill_make(p, fill, seed, &f, err) != 0)
        return -1;
    int rc = iohw__fill_store(&mx, f.dt, f.x, x, err);
    if (rc == 0)
        rc = iohw__fill_store(&mw, f.dt, f.w, w, err);
    if (rc == 0 && f.nb > 0)
        iohw_dtype_from_double(f.dt, f.bias, bias, (size_t)f.nb);
    iohw__fill_release(&f);
    return rc;
}
