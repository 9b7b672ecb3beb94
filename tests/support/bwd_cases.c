/*
 * tests/support/bwd_cases.c - small backward cases in memory for the
 * backward diagnosis tests (bwd_cases.h): rank-1 plain loops of
 * specification section 13 with a bug's knob, and the case builder.
 */
#include "support/bwd_cases.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/oracle.h"
#include "oracle/problem.h"

typedef struct dims {
    int64_t N, Ci, Co, G, Cg, Mg, L, K, S, P, O;
} dims;

static dims dims_of(const iohw_problem *p)
{
    dims d = {p->batch, p->in_channels, p->out_channels, p->groups,
              p->in_channels / p->groups, p->out_channels / p->groups,
              p->in_size[0], p->kernel[0], p->stride[0], p->pad_begin[0],
              p->out_size[0]};
    return d;
}

static int64_t ch(const dims *d, const iohw_test_knobs *k, int64_t per, int64_t g, int64_t j)
{
    return k->interleave ? j * d->G + g : g * per + j;
}

/* dy's index for plane, input position i, tap t, or -1 (dilation 1). */
static int64_t dy_at(const dims *d, const iohw_test_knobs *k, int64_t plane, int64_t i, int64_t t)
{
    const int64_t dyO = k->dyO ? k->dyO : d->O;
    const int64_t o = i * d->S + (k->flip ? d->K - 1 - t : t) - d->P + k->phase;
    return o < 0 || o >= dyO ? -1 : plane * dyO + o;
}

void iohw_test_bwd_dx(const iohw_problem *p, const iohw_test_knobs *k, const double *dy,
                   const double *w, double *dx)
{
    const dims d = dims_of(p);
    for (int64_t n = 0; n < d.N; n++)
        for (int64_t g = 0; g < d.G; g++)
            for (int64_t c = 0; c < d.Cg; c++)
                for (int64_t i = 0; i < d.L; i++) {
                    double s = 0;
                    for (int64_t m = 0; m < d.Mg; m++)
                        for (int64_t t = 0; t < d.K; t++) {
                            int64_t o = dy_at(&d, k, n * d.Co + ch(&d, k, d.Mg, g, m), i, t);
                            if (o >= 0)
                                s += dy[o] * w[((g * d.Cg + c) * d.Mg + m) * d.K + t];
                        }
                    dx[(n * d.Ci + ch(&d, k, d.Cg, g, c)) * d.L + i] = s;
                }
}

/* dw then db (when p has a bias). */
void iohw_test_bwd_dw(const iohw_problem *p, const iohw_test_knobs *k, const double *x,
                   const double *dy, double *out)
{
    const dims d = dims_of(p);
    const int64_t B = k->batch ? k->batch : d.N, dyO = k->dyO ? k->dyO : d.O;
    for (int64_t g = 0; g < d.G; g++)
        for (int64_t c = 0; c < d.Cg; c++)
            for (int64_t m = 0; m < d.Mg; m++)
                for (int64_t t = 0; t < d.K; t++) {
                    double s = 0;
                    for (int64_t n = 0; n < B; n++)
                        for (int64_t i = 0; i < d.L; i++) {
                            int64_t o = dy_at(&d, k, n * d.Co + ch(&d, k, d.Mg, g, m), i, t);
                            if (o >= 0)
                                s += x[(n * d.Ci + ch(&d, k, d.Cg, g, c)) * d.L + i] * dy[o];
                        }
                    out[((g * d.Cg + c) * d.Mg + m) * d.K + t] = s;
                }
    if (!p->has_bias)
        return;
    double *db = out + d.Ci * d.Mg * d.K;
    for (int64_t co = 0; co < d.Co; co++) {
        db[co] = 0;
        for (int64_t n = 0; n < B; n++)
            for (int64_t o = 0; o < dyO; o++)
                db[co] += dy[(n * d.Co + co) * dyO + o];
    }
}

double *iohw_test_doubles(int64_t n)
{
    double *v = calloc((size_t)n, sizeof *v);
    cr_assert_not_null(v);
    return v;
}

/* Small integers from a fixed sequence (never all equal). */
static void ints(double *v, int64_t n, unsigned seed)
{
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = (double)((int)((seed >> 16) % 7) - 3);
    }
}

/* The case of shape s with inputs from seed (or given: in0 dy, in1 w or
 * x), its outputs from the reference. */
void iohw_test_bwd_case(const iohw_test_shape *s, unsigned seed, const double *dy, const double *in1,
                 iohw_case *c)
{
    iohw_error err = {{0}};
    memset(c, 0, sizeof *c);
    iohw_problem *p = &c->p;
    iohw_problem_init(p);
    p->rank = 1;
    p->dtype = IOHW_F64;
    p->direction = s->dir;
    p->has_bias = s->bias;
    p->batch = s->N;
    p->in_channels = s->Ci;
    p->out_channels = s->Co;
    p->groups = s->G;
    p->in_size[0] = s->L;
    p->kernel[0] = s->K;
    p->stride[0] = s->S;
    p->dilation[0] = 1;
    p->pad_begin[0] = s->P;
    p->pad_end[0] = s->Pe;
    p->output_padding[0] = s->A;
    cr_assert_eq(iohw_problem_finish(p, &err), 0, "%s", err.msg);
    strcpy(c->fill, "exact");
    c->terms_max = iohw_oracle_terms_max(p);
    const int64_t ndy = iohw_problem_dy_count(p), nout = iohw_problem_out_count(p);
    const int64_t nin = s->dir == IOHW_DIR_BWD_D ? iohw_problem_w_count(p)
                                                 : iohw_problem_x_count(p);
    double *d = iohw_test_doubles(ndy), *in = iohw_test_doubles(nin), *y = iohw_test_doubles(nout), *eb = iohw_test_doubles(nout);
    if (dy != NULL)
        memcpy(d, dy, (size_t)ndy * sizeof *d);
    else
        ints(d, ndy, seed);
    if (in1 != NULL)
        memcpy(in, in1, (size_t)nin * sizeof *in);
    else
        ints(in, nin, seed + 7);
    c->dy = d;
    if (s->dir == IOHW_DIR_BWD_D)
        c->w = in;
    else
        c->x = in;
    const iohw_test_knobs k = {0};
    if (s->dir == IOHW_DIR_BWD_D)
        iohw_test_bwd_dx(p, &k, d, in, y);
    else
        iohw_test_bwd_dw(p, &k, in, d, y);
    for (int64_t i = 0; i < nout; i++)
        eb[i] = fabs(y[i]) + 64;   /* exact fill: compared bit for bit */
    c->y = y;
    c->y_f64 = iohw_test_doubles(nout);
    memcpy(c->y_f64, y, (size_t)nout * sizeof *y);
    c->err_bound = eb;
}

/* The backend's output under knobs k. */
double *iohw_test_bwd_buggy(const iohw_case *c, const iohw_test_knobs *k, const double *dy)
{
    double *y = iohw_test_doubles(iohw_problem_out_count(&c->p));
    if (c->p.direction == IOHW_DIR_BWD_D)
        iohw_test_bwd_dx(&c->p, k, dy != NULL ? dy : c->dy, c->w, y);
    else
        iohw_test_bwd_dw(&c->p, k, c->x, dy != NULL ? dy : c->dy, y);
    return y;
}

void iohw_test_bwd_free(iohw_case *c)
{
    free(c->dy);
    free(c->x);
    free(c->w);
    free(c->y);
    free(c->y_f64);
    free(c->err_bound);
}
