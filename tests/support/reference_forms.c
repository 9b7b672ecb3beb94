/*
 * tests/support/reference_forms.c - independent formulations for the tests
 * (see reference_forms.h).  Deliberately simple and slow: rank-R multi-index
 * odometers, materialised intermediate tensors, no shared code with oracle/.
 */
#include "support/reference_forms.h"

#include <stdlib.h>
#include <string.h>

#define MAXR 3

/* Row-major linear index of idx in shape (R dims). */
static int64_t lin(int R, const int64_t *shape, const int64_t *idx)
{
    int64_t v = 0;
    for (int a = 0; a < R; a++)
        v = v * shape[a] + idx[a];
    return v;
}

/* Advances idx through shape in row-major order; 0 when it wrapped. */
static int next(int R, const int64_t *shape, int64_t *idx)
{
    for (int a = R - 1; a >= 0; a--) {
        idx[a]++;
        if (idx[a] < shape[a])
            return 1;
        idx[a] = 0;
    }
    return 0;
}

static int64_t prod(int R, const int64_t *shape)
{
    int64_t v = 1;
    for (int a = 0; a < R; a++)
        v *= shape[a];
    return v;
}

int64_t iohw_ref_out_axis(const iohw_problem *p, int a)
{
    return (p->in_size[a] - 1) * p->stride[a] - p->pad_begin[a] -
           p->pad_end[a] + p->dilation[a] * (p->kernel[a] - 1) +
           p->output_padding[a] + 1;
}

int iohw_ref_gather(const iohw_problem *p, const double *x, const double *w,
                    const double *bias, double *y)
{
    const int R = (int)p->rank;
    const int64_t N = p->batch, CI = p->in_channels, CO = p->out_channels;
    const int64_t G = p->groups, Cg = CI / G, Mg = CO / G;
    int64_t L[MAXR], K[MAXR], U[MAXR], Z[MAXR], O[MAXR], before[MAXR];
    for (int a = 0; a < R; a++) {
        const int64_t span = p->dilation[a] * (p->kernel[a] - 1);
        L[a] = p->in_size[a];
        K[a] = p->kernel[a];
        U[a] = (L[a] - 1) * p->stride[a] + 1;
        before[a] = span - p->pad_begin[a];
        const int64_t after = span - p->pad_end[a] + p->output_padding[a];
        Z[a] = U[a] + before[a] + after;
        O[a] = Z[a] - span;
    }
    const int64_t nL = prod(R, L), nU = prod(R, U), nZ = prod(R, Z);
    const int64_t nK = prod(R, K), nO = prod(R, O);
    double *xu = calloc((size_t)(N * CI * nU), sizeof *xu);
    double *xz = calloc((size_t)(N * CI * nZ), sizeof *xz);
    if (xu == NULL || xz == NULL) {
        free(xu);
        free(xz);
        return -1;
    }
    int64_t i[MAXR], u[MAXR], j[MAXR], o[MAXR], k[MAXR], kf[MAXR], t[MAXR];

    /* 1. Zero-insertion: xu[..][i*S] = x[..][i]. */
    for (int64_t nc = 0; nc < N * CI; nc++) {
        memset(i, 0, sizeof i);
        do {
            for (int a = 0; a < R; a++)
                u[a] = i[a] * p->stride[a];
            xu[nc * nU + lin(R, U, u)] = x[nc * nL + lin(R, L, i)];
        } while (next(R, L, i));
    }

    /* 2. Padding (or cropping): xz[..][j] = xu[..][j - before]. */
    for (int64_t nc = 0; nc < N * CI; nc++) {
        memset(j, 0, sizeof j);
        do {
            int inside = 1;
            for (int a = 0; a < R; a++) {
                u[a] = j[a] - before[a];
                if (u[a] < 0 || u[a] >= U[a])
                    inside = 0;
            }
            if (inside)
                xz[nc * nZ + lin(R, Z, j)] = xu[nc * nU + lin(R, U, u)];
        } while (next(R, Z, j));
    }

    /* 3. Forward convolution, stride 1, dilation D, flipped kernel:
     *    y[n, g*Mg+m, o] = bias + sum_c sum_k xz[n, g*Cg+c, o + k*D]
     *                                       * w[g*Cg+c, m, K-1-k]. */
    for (int64_t n = 0; n < N; n++) {
        for (int64_t co = 0; co < CO; co++) {
            const int64_t g = co / Mg, m = co % Mg;
            memset(o, 0, sizeof o);
            do {
                double acc = bias != NULL ? bias[co] : 0.0;
                for (int64_t c = 0; c < Cg; c++) {
                    const int64_t ci = g * Cg + c;
                    memset(k, 0, sizeof k);
                    do {
                        for (int a = 0; a < R; a++) {
                            t[a] = o[a] + k[a] * p->dilation[a];
                            kf[a] = K[a] - 1 - k[a];
                        }
                        acc += xz[(n * CI + ci) * nZ + lin(R, Z, t)] *
                               w[(ci * Mg + m) * nK + lin(R, K, kf)];
                    } while (next(R, K, k));
                }
                y[(n * CO + co) * nO + lin(R, O, o)] = acc;
            } while (next(R, O, o));
        }
    }
    free(xu);
    free(xz);
    return 0;
}

int iohw_ref_conv_forward(const iohw_problem *p, const double *y,
                          const double *w, double *z)
{
    const int R = (int)p->rank;
    const int64_t N = p->batch, CI = p->in_channels, CO = p->out_channels;
    const int64_t G = p->groups, Cg = CI / G, Mg = CO / G;
    int64_t L[MAXR], K[MAXR], O[MAXR];
    for (int a = 0; a < R; a++) {
        L[a] = p->in_size[a];
        K[a] = p->kernel[a];
        O[a] = iohw_ref_out_axis(p, a);
    }
    const int64_t nL = prod(R, L), nK = prod(R, K), nO = prod(R, O);
    int64_t i[MAXR], k[MAXR], t[MAXR];

    /* z[n, ci, i] = sum_m sum_k w[ci, m, k] * y[n, g*Mg+m, i*S + k*D - P]. */
    for (int64_t n = 0; n < N; n++) {
        for (int64_t ci = 0; ci < CI; ci++) {
            const int64_t g = ci / Cg;
            memset(i, 0, sizeof i);
            do {
                double acc = 0.0;
                for (int64_t m = 0; m < Mg; m++) {
                    memset(k, 0, sizeof k);
                    do {
                        int inside = 1;
                        for (int a = 0; a < R; a++) {
                            t[a] = i[a] * p->stride[a] +
                                   k[a] * p->dilation[a] - p->pad_begin[a];
                            if (t[a] < 0 || t[a] >= O[a])
                                inside = 0;
                        }
                        if (!inside)
                            continue;
                        acc += w[(ci * Mg + m) * nK + lin(R, K, k)] *
                               y[(n * CO + g * Mg + m) * nO + lin(R, O, t)];
                    } while (next(R, K, k));
                }
                z[(n * CI + ci) * nL + lin(R, L, i)] = acc;
            } while (next(R, L, i));
        }
    }
    return 0;
}
