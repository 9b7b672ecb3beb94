/*
 * backends/faults/bwd_common.c - the backend side of the backward seeded
 * faults (bwd_common.h): the ABI table, a correct forward run() (the
 * oracle), and run_bwd_data / run_bwd_weights, which read the inputs into
 * canonical doubles, call the fault's hook (or the plain loops) and store
 * the result in the problem's layouts and dtype (specification section 13).
 */
#include "bwd_common.h"

#include <stdlib.h>
#include <string.h>

#include "backends/skeleton.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

typedef struct bwd_ctx {
    iohw_error err;
} bwd_ctx;

SKELETON_CONTEXT(bwd, bwd_ctx)

/* --- the plain loops ---------------------------------------------------- */

void iohw__bwd_knobs(const bwd_work *bw, bwd_knobs *k)
{
    memset(k, 0, sizeof *k);
    k->dy = bw->dy;
    memcpy(k->dy_O3, bw->O3, sizeof k->dy_O3);
    k->batch = bw->N;
}

static int64_t gch(const bwd_work *bw, const bwd_knobs *k, int64_t per, int64_t g,
                   int64_t j)
{
    return k->interleave ? j * bw->G + g : g * per + j;
}

/* dy's offset for input position i3 and tap k3, or -1 outside dy. */
static int64_t dy_at(const bwd_work *bw, const bwd_knobs *k, int64_t plane,
                     const int64_t i3[3], const int64_t k3[3])
{
    int64_t off = plane;
    for (int A = 0; A < 3; A++) {
        const int64_t kk = k->flip ? bw->K3[A] - 1 - k3[A] : k3[A];
        const int64_t o = i3[A] * bw->S3[A] + kk * bw->D3[A] - bw->P3[A] + k->phase[A];
        if (o < 0 || o >= k->dy_O3[A])
            return -1;
        off = off * k->dy_O3[A] + o;
    }
    return off;
}

void iohw__bwd_dx(const bwd_work *bw, const bwd_knobs *k, double *dx)
{
    const int64_t *L = bw->L3, *K = bw->K3;
    for (int64_t n = 0; n < bw->N; n++)
        for (int64_t g = 0; g < bw->G; g++)
            for (int64_t c = 0; c < bw->Cg; c++)
                for (int64_t i = 0; i < bw->L; i++) {
                    const int64_t i3[3] = {i / (L[1] * L[2]), i / L[2] % L[1], i % L[2]};
                    double s = 0.0;
                    for (int64_t m = 0; m < bw->Mg; m++)
                        for (int64_t t = 0; t < bw->K; t++) {
                            const int64_t k3[3] = {t / (K[1] * K[2]), t / K[2] % K[1], t % K[2]};
                            const int64_t plane = n * bw->C_out + gch(bw, k, bw->Mg, g, m);
                            const int64_t o = dy_at(bw, k, plane, i3, k3);
                            if (o >= 0)
                                s += k->dy[o] * bw->w[((g * bw->Cg + c) * bw->Mg + m) * bw->K + t];
                        }
                    dx[(n * bw->C_in + gch(bw, k, bw->Cg, g, c)) * bw->L + i] = s;
                }
}

void iohw__bwd_dw(const bwd_work *bw, const bwd_knobs *k, double *dw)
{
    const int64_t *L = bw->L3, *K = bw->K3;
    for (int64_t g = 0; g < bw->G; g++)
        for (int64_t c = 0; c < bw->Cg; c++)
            for (int64_t m = 0; m < bw->Mg; m++)
                for (int64_t t = 0; t < bw->K; t++) {
                    const int64_t k3[3] = {t / (K[1] * K[2]), t / K[2] % K[1], t % K[2]};
                    double s = 0.0;
                    for (int64_t n = 0; n < k->batch; n++)
                        for (int64_t i = 0; i < bw->L; i++) {
                            const int64_t i3[3] = {i / (L[1] * L[2]), i / L[2] % L[1], i % L[2]};
                            const int64_t plane = n * bw->C_out + gch(bw, k, bw->Mg, g, m);
                            const int64_t o = dy_at(bw, k, plane, i3, k3);
                            if (o >= 0)
                                s += bw->x[(n * bw->C_in + gch(bw, k, bw->Cg, g, c)) * bw->L + i] *
                                     k->dy[o];
                        }
                    dw[((g * bw->Cg + c) * bw->Mg + m) * bw->K + t] = s;
                }
}

void iohw__bwd_db(const bwd_work *bw, const bwd_knobs *k, double *db)
{
    const int64_t O = k->dy_O3[0] * k->dy_O3[1] * k->dy_O3[2];
    for (int64_t co = 0; co < bw->C_out; co++) {
        double s = 0.0;
        for (int64_t n = 0; n < k->batch; n++)
            for (int64_t o = 0; o < O; o++)
                s += k->dy[(n * bw->C_out + co) * O + o];
        db[co] = s;
    }
}

/* --- memory ------------------------------------------------------------ */

double *iohw__bwd_read(const iohw_problem *p, int output, const char *layout,
                       const void *mem)
{
    iohw_layout_map m;
    const size_t es = iohw_dtype_size(p->dtype);
    if (iohw_layout_data_map_as(p, output, layout, &m, NULL) != 0)
        return NULL;
    void *tmp = malloc((size_t)m.count * es);
    double *out = malloc((size_t)m.count * sizeof *out);
    if (tmp != NULL && out != NULL) {
        iohw_layout_to_canonical(&m, es, mem, tmp);
        iohw_dtype_to_double(p->dtype, tmp, out, (size_t)m.count);
    } else {
        free(out);
        out = NULL;
    }
    free(tmp);
    return out;
}

double *iohw__bwd_read_weight(const iohw_problem *p, const char *layout, const void *mem)
{
    iohw_layout_map m;
    const size_t es = iohw_dtype_size(p->dtype);
    if (iohw_layout_weight_map_as(p, layout, &m, NULL) != 0)
        return NULL;
    void *tmp = malloc((size_t)m.count * es);
    double *out = malloc((size_t)m.count * sizeof *out);
    if (tmp != NULL && out != NULL) {
        iohw_layout_to_canonical(&m, es, mem, tmp);
        iohw_dtype_to_double(p->dtype, tmp, out, (size_t)m.count);
    } else {
        free(out);
        out = NULL;
    }
    free(tmp);
    return out;
}

/* Canonical doubles of map m into mem, rounded to the dtype. */
static int store(const iohw_problem *p, const iohw_layout_map *m, const double *src,
                 void *mem)
{
    double *tmp = malloc((size_t)m->count * sizeof *tmp);
    if (tmp == NULL)
        return -1;
    iohw_layout_from_canonical(m, sizeof(double), src, tmp);
    iohw_dtype_from_double(p->dtype, tmp, mem, (size_t)m->count);
    free(tmp);
    return 0;
}

static void work_free(bwd_work *bw)
{
    free(bw->dy);
    free(bw->x);
    free(bw->w);
}

static int work_init(bwd_work *bw, const iohw_problem *p, const void *dy,
                     const void *x, const void *w)
{
    memset(bw, 0, sizeof *bw);
    bw->p = p;
    bw->rank = (int)p->rank;
    bw->N = p->batch;
    bw->C_in = p->in_channels;
    bw->C_out = p->out_channels;
    bw->G = p->groups;
    bw->Cg = bw->C_in / bw->G;
    bw->Mg = bw->C_out / bw->G;
    bw->L = bw->K = bw->O = 1;
    for (int A = 0; A < 3; A++) {
        const int a = A - (3 - bw->rank);
        bw->L3[A] = a < 0 ? 1 : p->in_size[a];
        bw->K3[A] = a < 0 ? 1 : p->kernel[a];
        bw->O3[A] = a < 0 ? 1 : p->out_size[a];
        bw->S3[A] = a < 0 ? 1 : p->stride[a];
        bw->D3[A] = a < 0 ? 1 : p->dilation[a];
        bw->P3[A] = a < 0 ? 0 : p->pad_begin[a];
        bw->L *= bw->L3[A];
        bw->K *= bw->K3[A];
        bw->O *= bw->O3[A];
    }
    bw->dy_mem = dy;
    bw->w_mem = w;
    bw->dy = iohw__bwd_read(p, 1, p->data_layout, dy);
    if (x != NULL)
        bw->x = iohw__bwd_read(p, 0, p->data_layout, x);
    if (w != NULL)
        bw->w = iohw__bwd_read_weight(p, p->weight_layout, w);
    if (bw->dy == NULL || (x != NULL && bw->x == NULL) || (w != NULL && bw->w == NULL)) {
        work_free(bw);
        return -1;
    }
    return 0;
}

/* --- the entry points ---------------------------------------------------- */

static int check(const iohw_problem *p, int32_t direction, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    if (p->struct_size < IOHW_PROBLEM_SIZE_V1)
        return iohw_error_set(err, "problem struct_size %u is too small",
                              (unsigned)p->struct_size);
    if (iohw_problem_validate(p, err) != 0)
        return -1;
    if (iohw_problem_is_quant(p))
        return iohw_error_set(err, "the backward faults compute float problems only");
    if (direction >= 0 && p->direction != direction)
        return iohw_error_set(err, "direction %d handed to the entry point of %d",
                              (int)p->direction, (int)direction);
    return 0;
}

static int bwd_supports(void *ctx, const iohw_problem *p)
{
    bwd_ctx *c = ctx;
    return check(p, -1, c != NULL ? &c->err : NULL) == 0 ? IOHW_OK : IOHW_UNSUPPORTED;
}

static int bwd_run(void *ctx, const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y)
{
    bwd_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    iohw_oracle_result r;
    if (check(p, IOHW_DIR_FWD, err) != 0 || x == NULL || w == NULL || y == NULL ||
        (p->has_bias && bias == NULL))
        return IOHW_INVALID_PROBLEM;
    if (iohw_oracle_run_method(p, x, w, p->has_bias ? bias : NULL, IOHW_ORACLE_FAST, 1,
                               &r, err) != 0)
        return IOHW_BACKEND_ERROR;
    memcpy(y, r.y, (size_t)iohw_problem_y_count(p) * iohw_dtype_size(p->dtype));
    iohw_oracle_result_free(&r);
    return IOHW_OK;
}

static int bwd_run_data(void *ctx, const iohw_problem *p, const void *dy,
                        const void *w, void *dx)
{
    bwd_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    bwd_work bw;
    iohw_layout_map m;
    int rc = -1;
    if (check(p, IOHW_DIR_BWD_D, err) != 0 || dy == NULL || w == NULL || dx == NULL)
        return IOHW_INVALID_PROBLEM;
    if (work_init(&bw, p, dy, NULL, w) != 0) {
        iohw_error_set(err, "run_bwd_data: out of memory");
        return IOHW_OUT_OF_MEMORY;
    }
    double *out = calloc((size_t)(bw.N * bw.C_in * bw.L), sizeof *out);
    if (out != NULL && iohw_layout_data_map_as(p, 0, p->data_layout, &m, err) == 0) {
        if (iohw__bwd_spec.data != NULL) {
            rc = iohw__bwd_spec.data(&bw, out);
        } else {
            bwd_knobs k;
            iohw__bwd_knobs(&bw, &k);
            iohw__bwd_dx(&bw, &k, out);
            rc = 0;
        }
        if (rc == 0)
            rc = store(p, &m, out, dx);
    }
    free(out);
    work_free(&bw);
    if (rc != 0)
        iohw_error_set(err, "run_bwd_data failed");
    return rc == 0 ? IOHW_OK : IOHW_BACKEND_ERROR;
}

static int bwd_run_weights(void *ctx, const iohw_problem *p, const void *x,
                           const void *dy, void *dw, void *db)
{
    bwd_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    bwd_work bw;
    iohw_layout_map m;
    char wl[16];
    int rc = -1;
    if (check(p, IOHW_DIR_BWD_W, err) != 0 || x == NULL || dy == NULL || dw == NULL ||
        (p->has_bias && db == NULL))
        return IOHW_INVALID_PROBLEM;
    if (work_init(&bw, p, dy, x, NULL) != 0) {
        iohw_error_set(err, "run_bwd_weights: out of memory");
        return IOHW_OUT_OF_MEMORY;
    }
    memcpy(wl, p->weight_layout, sizeof wl);
    wl[sizeof wl - 1] = '\0';
    for (char *s = wl; iohw__bwd_spec.dw_io_swapped && *s != '\0'; s++)
        *s = *s == 'I' ? 'O' : *s == 'O' ? 'I' : *s;
    double *w_out = calloc((size_t)(bw.C_in * bw.Mg * bw.K), sizeof *w_out);
    double *b_out = calloc((size_t)bw.C_out, sizeof *b_out);
    if (w_out != NULL && b_out != NULL &&
        iohw_layout_weight_map_as(p, wl, &m, err) == 0) {
        double *bp = p->has_bias ? b_out : NULL;
        if (iohw__bwd_spec.weights != NULL) {
            rc = iohw__bwd_spec.weights(&bw, w_out, bp);
        } else {
            bwd_knobs k;
            iohw__bwd_knobs(&bw, &k);
            iohw__bwd_dw(&bw, &k, w_out);
            if (bp != NULL)
                iohw__bwd_db(&bw, &k, bp);
            rc = 0;
        }
        if (rc == 0)
            rc = store(p, &m, w_out, dw);
        if (rc == 0 && p->has_bias)
            iohw_dtype_from_double(p->dtype, b_out, db, (size_t)bw.C_out);
    }
    free(w_out);
    free(b_out);
    work_free(&bw);
    if (rc != 0)
        iohw_error_set(err, "run_bwd_weights failed");
    return rc == 0 ? IOHW_OK : IOHW_BACKEND_ERROR;
}

static const iohw_backend bwd_table = {
    .abi_version = IOHW_ABI_VERSION, .struct_size = sizeof(iohw_backend),
    .name = iohw__bwd_name, .version = iohw__bwd_about,
    .init = bwd_init, .fini = bwd_fini, .supports = bwd_supports,
    .run = bwd_run, .last_error = bwd_last_error,
    .run_bwd_data = bwd_run_data, .run_bwd_weights = bwd_run_weights};

SKELETON_ENTRY(bwd_table)
