/*
 * backends/faults/fault_model.c - the model of what a (buggy) backend
 * computes, described in fault_common.h: the oracle core's full product of
 * a pad-free problem q, seen through per-axis position maps and an output
 * channel map, plus the bias.
 *
 * With the identity maps (map_a[o] = o + P_a when o + P_a < F_a) this is
 * exactly the transposed convolution: position o of the real output is
 * position o + P_a of the uncropped one, and positions past F_a (reached
 * only through output_padding) hold the bias alone.
 */
#include <stdlib.h>
#include <string.h>

#include "fault_common.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

int64_t iohw__fault_y_count(const iohw_problem *p)
{
    return iohw_problem_y_count(p);
}

size_t iohw__fault_elem_size(const iohw_problem *p)
{
    return iohw_dtype_size(p->dtype);
}

int64_t iohw__fault_taps(const iohw_problem *q)
{
    int64_t taps = 1;
    for (uint32_t a = 0; a < q->rank; a++)
        taps *= q->kernel[a];
    return taps;
}

void iohw__fault_work_free(fault_work *fw)
{
    if (fw == NULL)
        return;
    free(fw->x);
    free(fw->w);
    free(fw->bias);
    for (int a = 0; a < 3; a++)
        free(fw->map[a]);
    free(fw->cmap);
    memset(fw, 0, sizeof *fw);
}

int iohw__fault_refresh(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    for (uint32_t a = 0; a < p->rank; a++) {
        const int64_t full = iohw_problem_out_axis(&fw->q, (int)a);
        if (full < 1)
            return iohw_error_set(err, "fault model: axis %u has no output",
                                  (unsigned)a);
        fw->q.out_size[a] = full;
        for (int64_t o = 0; o < p->out_size[a]; o++) {
            const int64_t at = o + p->pad_begin[a];
            fw->map[a][o] = at < full ? at : -1;
        }
    }
    return 0;
}

int iohw__fault_work_init(fault_work *fw, const iohw_problem *p,
                          const void *x, const void *w, const void *bias,
                          iohw_error *err)
{
    iohw_layout_map xm, wm;
    double *tmp = NULL;

    memset(fw, 0, sizeof *fw);
    fw->p = p;
    fw->q = *p;
    fw->q.has_bias = 0;
    for (uint32_t a = 0; a < p->rank; a++) {
        fw->q.pad_begin[a] = 0;
        fw->q.pad_end[a] = 0;
        fw->q.output_padding[a] = 0;
    }
    if (iohw_layout_data_map(p, 0, &xm, err) != 0 ||
        iohw_layout_weight_map(p, &wm, err) != 0)
        return iohw_error_prefix(err, "fault model");

    /* Inputs to canonical double. */
    const int64_t nmax = xm.count > wm.count ? xm.count : wm.count;
    tmp = malloc((size_t)nmax * sizeof *tmp);
    fw->x = malloc((size_t)xm.count * sizeof *fw->x);
    fw->w = malloc((size_t)wm.count * sizeof *fw->w);
    fw->cmap = malloc((size_t)p->out_channels * sizeof *fw->cmap);
    if (bias != NULL)
        fw->bias = malloc((size_t)p->out_channels * sizeof *fw->bias);
    int bad = tmp == NULL || fw->x == NULL || fw->w == NULL ||
              fw->cmap == NULL || (bias != NULL && fw->bias == NULL);
    for (uint32_t a = 0; a < p->rank && !bad; a++) {
        fw->map[a] = malloc((size_t)p->out_size[a] * sizeof *fw->map[a]);
        bad = fw->map[a] == NULL;
    }
    if (bad) {
        free(tmp);
        iohw__fault_work_free(fw);
        return iohw_error_set(err, "fault model: out of memory");
    }
    iohw_dtype_to_double(p->dtype, x, tmp, (size_t)xm.count);
    iohw_layout_to_canonical(&xm, sizeof(double), tmp, fw->x);
    iohw_dtype_to_double(p->dtype, w, tmp, (size_t)wm.count);
    iohw_layout_to_canonical(&wm, sizeof(double), tmp, fw->w);
    free(tmp);
    if (bias != NULL)
        iohw_dtype_to_double(p->dtype, bias, fw->bias,
                             (size_t)p->out_channels);

    /* The identity maps. */
    for (int64_t c = 0; c < p->out_channels; c++)
        fw->cmap[c] = c;
    if (iohw__fault_refresh(fw, err) != 0) {
        iohw__fault_work_free(fw);
        return -1;
    }
    return 0;
}

int iohw__fault_kernel_axis(fault_work *fw, int a, int sum, int64_t tap,
                            iohw_error *err)
{
    iohw_problem *q = &fw->q;
    const int rank = (int)q->rank;

    /* w[C_in][Mg][K...] as [outer][K_a][inner]. */
    int64_t outer = q->in_channels * (q->out_channels / q->groups);
    int64_t inner = 1;
    for (int b = 0; b < rank; b++) {
        if (b < a)
            outer *= q->kernel[b];
        else if (b > a)
            inner *= q->kernel[b];
    }
    const int64_t K = q->kernel[a];
    if (tap < 0 || tap >= K)
        return iohw_error_set(err, "fault model: tap %lld outside the kernel",
                              (long long)tap);
    double *nw = malloc((size_t)(outer * inner) * sizeof *nw);
    if (nw == NULL)
        return iohw_error_set(err, "fault model: out of memory");
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            double v = 0.0;
            for (int64_t k = 0; k < K; k++)
                if (sum || k == tap)
                    v += fw->w[(o * K + k) * inner + i];
            nw[o * inner + i] = v;
        }
    }
    free(fw->w);
    fw->w = nw;
    q->kernel[a] = 1;
    return iohw__fault_refresh(fw, err);
}

int iohw__fault_full(const iohw_problem *q, const double *x, const double *w,
                     double **full, iohw_error *err)
{
    int64_t count = q->batch * q->out_channels;
    for (uint32_t a = 0; a < q->rank; a++)
        count *= q->out_size[a];
    double *y = malloc((size_t)count * sizeof *y);
    double *eb = malloc((size_t)count * sizeof *eb);
    *full = NULL;
    if (y == NULL || eb == NULL) {
        free(y);
        free(eb);
        return iohw_error_set(err, "fault model: out of memory");
    }
    if (iohw_conv_transpose_ref(q, x, w, NULL, q->dtype == IOHW_F64 ? 1 : 0,
                                1, y, eb, err) != 0) {
        free(y);
        free(eb);
        return iohw_error_prefix(err, "fault model");
    }
    free(eb);
    *full = y;
    return 0;
}

int iohw__fault_model(fault_work *fw, double **yout, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    const int rank = (int)p->rank;
    int64_t O[3], F[3];
    const int64_t *map[3];
    static const int64_t zero = 0;
    double *full = NULL;

    *yout = NULL;
    if (iohw__fault_full(&fw->q, fw->x, fw->w, &full, err) != 0)
        return -1;

    /* Three spatial axes; one the rank lacks has extent 1. */
    for (int j = 0; j < 3; j++) {
        const int a = j - (3 - rank);
        O[j] = a < 0 ? 1 : p->out_size[a];
        F[j] = a < 0 ? 1 : fw->q.out_size[a];
        map[j] = a < 0 ? &zero : fw->map[a];
    }
    const int64_t fplane = F[0] * F[1] * F[2];
    const int64_t N = p->batch, C = p->out_channels;
    double *y = malloc((size_t)(N * C * O[0] * O[1] * O[2]) * sizeof *y);
    if (y == NULL) {
        free(full);
        return iohw_error_set(err, "fault model: out of memory");
    }

    /* y[n, c, o] = bias[c] + full[n, cmap[c], map(o)]. */
    int64_t at = 0;
    for (int64_t n = 0; n < N; n++) {
        for (int64_t c = 0; c < C; c++) {
            const double b = fw->bias != NULL ? fw->bias[c] : 0.0;
            const double *fp = full + (n * C + fw->cmap[c]) * fplane;
            for (int64_t o0 = 0; o0 < O[0]; o0++) {
                for (int64_t o1 = 0; o1 < O[1]; o1++) {
                    for (int64_t o2 = 0; o2 < O[2]; o2++) {
                        const int64_t f0 = map[0][o0], f1 = map[1][o1];
                        const int64_t f2 = map[2][o2];
                        double v = b;
                        if (f0 >= 0 && f1 >= 0 && f2 >= 0)
                            v += fp[(f0 * F[1] + f1) * F[2] + f2];
                        y[at++] = v;
                    }
                }
            }
        }
    }
    free(full);
    *yout = y;
    return 0;
}

int iohw__fault_store_canonical(const iohw_problem *p, const double *yc,
                                void *y, iohw_error *err)
{
    iohw_layout_map ym;
    if (iohw_layout_data_map(p, 1, &ym, err) != 0)
        return iohw_error_prefix(err, "fault model");
    double *tmp = malloc((size_t)ym.count * sizeof *tmp);
    if (tmp == NULL)
        return iohw_error_set(err, "fault model: out of memory");
    iohw_layout_from_canonical(&ym, sizeof(double), yc, tmp);
    iohw_dtype_from_double(p->dtype, tmp, y, (size_t)ym.count);
    free(tmp);
    return 0;
}
