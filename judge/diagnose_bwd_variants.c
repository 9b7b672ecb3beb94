/*
 * judge/diagnose_bwd_variants.c - the misreadings of the backward
 * directions (specification sections 3.5 and 13; PITFALLS.md "Backward
 * bugs"), each the oracle's backward definition run on changed inputs or
 * a changed problem (diagnose_bwd.h).  With S, D, P the stride, dilation
 * and pad_begin of an axis, A its output_padding, Cg = C_in/G, Mg = C_out/G:
 *
 *   dw written with I and O exchanged   the correct dw stored with I and O
 *                                       of the weight layout exchanged
 *   w read with I and O exchanged       BWD_D: w's memory read with I and O
 *                                       of the weight layout exchanged
 *   gradient kernel not flipped         BWD_D: w's taps read reversed,
 *                                       w'[c][m][k] = w[c][m][K-1-k];
 *                                       BWD_W: dw's taps stored reversed
 *   output_padding left out of dy       dy's memory read with extents
 *                                       O - A (the kernel sized dy without
 *                                       output_padding): rows shifted,
 *                                       the tail of the memory unread
 *   stride phase off by one             dy read at o = i*S + k*D - P + 1 on
 *                                       every axis with S > 1 (the stride
 *                                       grid taken one position late)
 *   groups interleaved                  group g's channels taken at c*G + g
 *                                       (dy's and x's) and dx's written
 *                                       there, where the definition has
 *                                       g*Cg + c
 *   db per group                        db[g*Mg + m] summed into db[m] for
 *                                       every g, the rest left 0
 *   db without the spatial sum          db[c] = sum over n of dy[n][c][0]
 *   db along the wrong axis             dy's memory read channels-last
 *                                       where the case is channels-first
 *                                       (or the reverse) for db
 *   batch not summed                    dw and db from n = 0 only
 */
#include "judge/diagnose_bwd.h"
#include "judge/diagnose_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

/* --- helpers ------------------------------------------------------------ */

static int is_data(const iohw__dgb_base *b)
{
    return b->p->direction == IOHW_DIR_BWD_D;
}

/* The definitions on canonical inputs into o (sized for problem q). */
static int def_data(const iohw__dgb_base *b, const iohw_problem *q,
                    const double *dy, const double *w, double *dx, double *eb)
{
    return iohw_conv_transpose_bwd_data_def(q, dy, w, b->dd, dx, eb, NULL) == 0 ? 1 : -1;
}

static int def_weights(const iohw__dgb_base *b, const iohw_problem *q,
                       const double *x, const double *dy, double *out, double *eb)
{
    const int64_t nw = iohw_problem_w_count(q);
    const int bias = q->has_bias != 0;
    return iohw_conv_transpose_bwd_weights_def(q, x, dy, b->dd, out, eb,
                                               bias ? out + nw : NULL,
                                               bias ? eb + nw : NULL, NULL) == 0
               ? 1 : -1;
}

int iohw__dgb_correct(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    return is_data(b) ? def_data(b, b->p, b->dy, b->w, o->out, o->eb)
                      : def_weights(b, b->p, b->x, b->dy, o->out, o->eb);
}

static double *alloc_doubles(int64_t n)
{
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
}

/* Reverses the taps of every (c, m) pair of a [pairs][K...] tensor. */
static void reverse_taps(const iohw__dgb_base *b, int64_t pairs, const double *src,
                         double *dst)
{
    const int64_t *K = b->K3;
    for (int64_t pr = 0; pr < pairs; pr++)
        for (int64_t k0 = 0; k0 < K[0]; k0++)
            for (int64_t k1 = 0; k1 < K[1]; k1++)
                for (int64_t k2 = 0; k2 < K[2]; k2++)
                    dst[((pr * K[0] + k0) * K[1] + k1) * K[2] + k2] =
                        src[((pr * K[0] + (K[0] - 1 - k0)) * K[1] + (K[1] - 1 - k1)) *
                                K[2] + (K[2] - 1 - k2)];
}

/* dst[n][g*per + j] = src[n][j*G + g] for `ch` channels of `sp` positions
 * (inverse = 1: the other way round). */
static void interleave(const iohw__dgb_base *b, int64_t ch, int64_t sp,
                       const double *src, double *dst, int inverse)
{
    const int64_t per = ch / b->G;
    for (int64_t n = 0; n < b->N; n++)
        for (int64_t g = 0; g < b->G; g++)
            for (int64_t j = 0; j < per; j++) {
                const int64_t grouped = (n * ch + g * per + j) * sp;
                const int64_t spread = (n * ch + j * b->G + g) * sp;
                memcpy(dst + (inverse ? spread : grouped),
                       src + (inverse ? grouped : spread), (size_t)sp * sizeof *dst);
            }
}

/* --- the misreadings ----------------------------------------------------- */

static int io_exchanged(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    if (is_data(b))
        return 0;
    o->io_swapped = 1;
    return iohw__dgb_correct(b, o);
}

/* BWD_D: w's memory read with I and O of the weight layout exchanged. */
static int w_io_exchanged(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    char wl[16];
    if (!is_data(b))
        return 0;
    memcpy(wl, b->p->weight_layout, sizeof wl);
    wl[sizeof wl - 1] = '\0';
    for (char *s = wl; *s != '\0'; s++)
        *s = *s == 'I' ? 'O' : *s == 'O' ? 'I' : *s;
    double *w = iohw__dg_read_w(b->c, wl);
    if (w == NULL)
        return -1;
    int rc = def_data(b, b->p, b->dy, w, o->out, o->eb);
    free(w);
    return rc;
}

static int not_flipped(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    if (b->K == 1)
        return 0;
    if (is_data(b)) {
        double *w = alloc_doubles(b->nw);
        if (w == NULL)
            return -1;
        reverse_taps(b, b->C_in * b->Mg, b->w, w);
        int rc = def_data(b, b->p, b->dy, w, o->out, o->eb);
        free(w);
        return rc;
    }
    double *t = alloc_doubles(b->nout), *e = alloc_doubles(b->nout);
    int rc = t != NULL && e != NULL ? def_weights(b, b->p, b->x, b->dy, t, e) : -1;
    if (rc == 1) {
        reverse_taps(b, b->C_in * b->Mg, t, o->out);
        reverse_taps(b, b->C_in * b->Mg, e, o->eb);
        memcpy(o->out + b->nw, t + b->nw, (size_t)b->nb * sizeof *t);
        memcpy(o->eb + b->nw, e + b->nw, (size_t)b->nb * sizeof *e);
    }
    free(t);
    free(e);
    return rc;
}

/* dy's memory read through the data layout of problem q (its extents). */
static double *read_dy_as(const iohw__dgb_base *b, const iohw_problem *q,
                          const char *layout)
{
    iohw_layout_map m;
    const iohw_dtype dt = b->p->dtype;
    const size_t es = iohw_dtype_size(dt);
    if (iohw_layout_data_map_as(q, 1, layout, &m, NULL) != 0)
        return NULL;
    void *tmp = malloc((size_t)m.count * es);
    double *out = alloc_doubles(m.count);
    if (tmp == NULL || out == NULL) {
        free(tmp);
        free(out);
        return NULL;
    }
    iohw_layout_to_canonical(&m, es, b->c->dy, tmp);
    iohw_dtype_to_double(dt, tmp, out, (size_t)m.count);
    free(tmp);
    return out;
}

static int op_left_out(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    iohw_problem q = *b->p;
    int any = 0;
    for (int a = 0; a < b->rank; a++) {
        any |= q.output_padding[a] > 0;
        q.out_size[a] -= q.output_padding[a];
        q.output_padding[a] = 0;
        if (q.out_size[a] < 1)
            return 0;
    }
    if (!any)
        return 0;
    double *dy = read_dy_as(b, &q, b->p->data_layout);
    if (dy == NULL)
        return -1;
    int rc = is_data(b) ? def_data(b, &q, dy, b->w, o->out, o->eb)
                        : def_weights(b, &q, b->x, dy, o->out, o->eb);
    free(dy);
    return rc;
}

/* q: the case's problem with, on every axis with S > 1, one more input
 * position in front and pad_begin P + S - 1 (pad_end one more, so O
 * stays): i*S + k*D - P + 1 = (i+1)*S + k*D - (P + S - 1). */
static int phase_problem(const iohw__dgb_base *b, iohw_problem *q, int64_t sh3[3])
{
    int any = 0;
    *q = *b->p;
    for (int A = 0; A < 3; A++)
        sh3[A] = 0;
    for (int a = 0; a < b->rank; a++)
        if (q->stride[a] > 1) {
            q->in_size[a] += 1;
            q->pad_begin[a] += q->stride[a] - 1;
            q->pad_end[a] += 1;
            sh3[3 - b->rank + a] = 1;
            any = 1;
        }
    return any;
}

/* Copies between [NC][L...] (the case's) and [NC][L'...] (one more in
 * front on the shifted axes); to_wide = 1 writes the wide one. */
static void shift_copy(const iohw__dgb_base *b, int64_t nc, const int64_t sh3[3],
                       const double *src, double *dst, int to_wide)
{
    const int64_t *L = b->L3;
    const int64_t W1 = L[1] + sh3[1], W2 = L[2] + sh3[2], W0 = L[0] + sh3[0];
    for (int64_t j = 0; j < nc; j++)
        for (int64_t i0 = 0; i0 < L[0]; i0++)
            for (int64_t i1 = 0; i1 < L[1]; i1++)
                for (int64_t i2 = 0; i2 < L[2]; i2++) {
                    const int64_t narrow = ((j * L[0] + i0) * L[1] + i1) * L[2] + i2;
                    const int64_t wide = ((j * W0 + i0 + sh3[0]) * W1 + i1 + sh3[1]) * W2 +
                                         i2 + sh3[2];
                    dst[to_wide ? wide : narrow] = src[to_wide ? narrow : wide];
                }
}

static int phase_off(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    iohw_problem q;
    int64_t sh3[3];
    if (!phase_problem(b, &q, sh3))
        return 0;
    const int64_t nxq = iohw_problem_x_count(&q);
    const int64_t nc = b->N * b->C_in;
    int rc = -1;
    o->terms = iohw_oracle_terms_max(&q);
    if (is_data(b)) {
        double *dx = alloc_doubles(nxq), *eb = alloc_doubles(nxq);
        if (dx != NULL && eb != NULL && (rc = def_data(b, &q, b->dy, b->w, dx, eb)) == 1) {
            shift_copy(b, nc, sh3, dx, o->out, 0);
            shift_copy(b, nc, sh3, eb, o->eb, 0);
        }
        free(dx);
        free(eb);
        return rc;
    }
    double *x = calloc((size_t)nxq, sizeof *x);
    if (x != NULL) {
        shift_copy(b, nc, sh3, b->x, x, 1);
        rc = def_weights(b, &q, x, b->dy, o->out, o->eb);
    }
    free(x);
    return rc;
}

static int groups_interleaved(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    if (b->G < 2 || (b->Cg < 2 && b->Mg < 2))
        return 0;
    double *dy = alloc_doubles(b->ndy);
    double *t = alloc_doubles(b->nout), *e = alloc_doubles(b->nout);
    double *x = is_data(b) ? NULL : alloc_doubles(b->nx);
    int rc = -1;
    if (dy == NULL || t == NULL || e == NULL || (!is_data(b) && x == NULL))
        goto done;
    interleave(b, b->C_out, b->O, b->dy, dy, 0);
    if (is_data(b)) {
        if ((rc = def_data(b, b->p, dy, b->w, t, e)) == 1) {
            interleave(b, b->C_in, b->L, t, o->out, 1);
            interleave(b, b->C_in, b->L, e, o->eb, 1);
        }
        goto done;
    }
    interleave(b, b->C_in, b->L, b->x, x, 0);
    if ((rc = def_weights(b, b->p, x, dy, o->out, o->eb)) == 1 && b->nb > 0) {
        /* db is a reduction of its own: the channel it read is the one it
         * writes, so it stays right. */
        memcpy(t, o->out + b->nw, (size_t)b->nb * sizeof *t);
        memcpy(e, o->eb + b->nw, (size_t)b->nb * sizeof *e);
        for (int64_t g = 0; g < b->G; g++)
            for (int64_t m = 0; m < b->Mg; m++) {
                o->out[b->nw + m * b->G + g] = t[g * b->Mg + m];
                o->eb[b->nw + m * b->G + g] = e[g * b->Mg + m];
            }
    }
done:
    free(dy);
    free(t);
    free(e);
    free(x);
    return rc;
}

/* The correct dw and db, for the misreadings of db alone. */
static int db_start(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    if (is_data(b) || b->nb == 0)
        return 0;
    return iohw__dgb_correct(b, o);
}

static int db_per_group(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    if (b->G < 2)
        return 0;
    int rc = db_start(b, o);
    if (rc != 1)
        return rc;
    double *db = o->out + b->nw, *eb = o->eb + b->nw;
    for (int64_t m = 0; m < b->Mg; m++)
        for (int64_t g = 1; g < b->G; g++) {
            db[m] += db[g * b->Mg + m];
            eb[m] += eb[g * b->Mg + m];
        }
    for (int64_t c = b->Mg; c < b->C_out; c++)
        db[c] = eb[c] = 0.0;
    return 1;
}

static int db_no_spatial_sum(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    if (b->O < 2)
        return 0;
    int rc = db_start(b, o);
    if (rc != 1)
        return rc;
    for (int64_t c = 0; c < b->C_out; c++) {
        double s = 0.0, e = 0.0;
        for (int64_t n = 0; n < b->N; n++) {
            const double v = b->dy[(n * b->C_out + c) * b->O];
            s += v;
            e += fabs(v);
        }
        o->out[b->nw + c] = s;
        o->eb[b->nw + c] = e;
    }
    return 1;
}

static int db_wrong_axis(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    static const char *const spatial[] = {"W", "HW", "DHW"};
    char first[16], last[16];
    strcpy(first, "NC");
    strcat(first, spatial[b->rank - 1]);
    strcpy(last, "N");
    strcat(last, spatial[b->rank - 1]);
    strcat(last, "C");
    if (b->C_out < 2 || b->O < 2)
        return 0;
    int rc = db_start(b, o);
    if (rc != 1)
        return rc;
    double *dy = read_dy_as(b, b->p, strcmp(b->p->data_layout, first) == 0 ? last : first);
    if (dy == NULL)
        return -1;
    for (int64_t c = 0; c < b->C_out; c++) {
        double s = 0.0, e = 0.0;
        for (int64_t n = 0; n < b->N; n++)
            for (int64_t j = 0; j < b->O; j++) {
                const double v = dy[(n * b->C_out + c) * b->O + j];
                s += v;
                e += fabs(v);
            }
        o->out[b->nw + c] = s;
        o->eb[b->nw + c] = e;
    }
    free(dy);
    return 1;
}

static int batch_not_summed(const iohw__dgb_base *b, iohw__dgb_out *o)
{
    if (is_data(b) || b->N < 2)
        return 0;
    iohw_problem q = *b->p;
    q.batch = 1;
    o->terms = iohw_oracle_terms_max(&q);
    return def_weights(b, &q, b->x, b->dy, o->out, o->eb);
}

const iohw__dgb_entry iohw__dgb_table[] = {
    {"dw written with I and O exchanged (as OIHW)", io_exchanged,
     "your kernel stores dw as OIHW: write dw[c][m] in the weight layout, I before O as w has it"},
    {"w read with I and O exchanged (as OIHW)", w_io_exchanged,
     "your kernel reads w as OIHW in backward-data: index w[m][c] where the gradient has w[c][m]"},
    {"gradient kernel not flipped (taps reversed)", not_flipped,
     "your kernel pairs tap k of dx and dw with the position of tap K-1-k: the gradient keeps tap k"},
    {"dy read without its output_padding (rows shifted)", op_left_out,
     "your kernel reads dy with extents O - output_padding: dy has the full output size O"},
    {"dy read one position off the stride phase", phase_off,
     "your kernel reads dy at i*S + k*D - P + 1 in dx and dw: the stride grid starts at i*S + k*D - P"},
    {"channels of the groups interleaved in the gradient", groups_interleaved,
     "your kernel takes group g's channel c of dy, x and dx at c*G+g where the gradient has g*Cg+c"},
    {"db summed per group into the first group's channels", db_per_group,
     "your kernel accumulates db[m] for every group: index db by the output channel g*Mg+m"},
    {"db without the spatial sum (first position only)", db_no_spatial_sum,
     "your kernel takes db from dy's first position: db sums dy over the batch and every position"},
    {"db summed along the wrong axis of dy's memory", db_wrong_axis,
     "your kernel reduces dy for db along the wrong axis: channels-first read as channels-last or the reverse"},
    {"batch not summed (dw and db from n = 0 only)", batch_not_summed,
     "your kernel keeps the first image's dw and db: sum them over the batch"},
};

const int iohw__dgb_table_count = (int)(sizeof iohw__dgb_table / sizeof iohw__dgb_table[0]);

int iohw__dgb_count(void)
{
    return iohw__dgb_table_count;
}

const char *iohw__dgb_name(int i)
{
    return i >= 0 && i < iohw__dgb_table_count ? iohw__dgb_table[i].name : NULL;
}

const char *iohw__dgb_meaning(int i)
{
    return i >= 0 && i < iohw__dgb_table_count ? iohw__dgb_table[i].meaning : NULL;
}
