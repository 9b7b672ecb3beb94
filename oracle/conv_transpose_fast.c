/*
 * oracle/conv_transpose_fast.c - the tuned oracle kernel, and terms_max.
 *
 * It computes exactly what the definition (conv_transpose.c, specification
 * section 1) computes: the same terms, added to each element in the same
 * order (c ascending, then the tap k in row-major order (kd, kh, kw), then
 * the input position i in row-major order (id, ih, iw)), with the same
 * operations (conv_transpose_internal.h).  It is the default path only
 * because tests/test_oracle_fast.c proves it bit-identical to the
 * definition on every smoke and ci case and on random problems.  Arguments
 * as iohw_conv_transpose_def, plus:
 *
 *   threads <= 1: run on the calling thread; more: split the (n, g, m)
 *           output planes (plain double on AVX2: the blocks of output
 *           channels of a group) between that many threads.
 *
 * How it is fast
 * ==============
 *
 * In plain double (dd = 0) on a CPU with AVX2 the work goes to
 * conv_transpose_os.c, which keeps the sums of a block of outputs in
 * registers (output stationary); what follows is the path for double-double
 * and for older CPUs, which adds each term to an accumulator in memory.
 * Every output element is computed by one thread with the same code, so
 * thread count never changes a bit.  Every rank is treated as 3-d: missing
 * leading axes have extent 1, stride 1, dilation 1 and no padding.
 * Out-of-range taps are skipped by precomputing, per axis and per tap, the
 * range of input positions whose output lands in [0, O); the innermost loop
 * (over iw) then has no branch.  Each thread accumulates one plane at a time
 * in a buffer split by phase along every axis (od = jd*S_d + rd and so on,
 * kept at [rd][rh][rw][jd][jh][jw]), so that loop reads x and writes the
 * accumulator contiguously, and then writes the plane to y.  A tap that
 * covers whole rows of x and of its phase reaches the next row of both at
 * the next address, so its rows are run as one (a quarter of the taps of
 * k=4 s=2, all of them for k = s without padding).  Long rows are cut
 * into blocks of JB slots; every element lies in one block, so its terms
 * still arrive in (c, k) order.  The innermost loops are also compiled for AVX2 / FMA and picked at
 * run time; every clone does the same IEEE operations in the same order.
 *
 * Double-double (dd = 1)
 * ======================
 *
 * The error of the double-double sum is about n^2 * 2^-106 times the sum of
 * the magnitudes of the partial sums - far below one ulp of y unless the
 * terms cancel by more than ~10^9.  Because hi is the plain IEEE sum, NaN
 * and +-Inf propagate exactly as in plain summation.  This file must be
 * compiled without floating-point contraction (ISO C mode,
 * -ffp-contract=off): a fused hi + a*b would break TwoSum.
 *
 * With dd = 0 eb is summed in plain double.  It is a bound: summing n
 * positive terms may understate it by at most (n - 1) * 2^-53 relative,
 * negligible beside the factor (terms_max + 2) * u of the comparison.
 */
#include "oracle/conv_transpose_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/problem.h"

#define MAX_THREADS 256
#define JB 512          /* slots per block along W (see plane) */

typedef iohw__ct_plan plan;

typedef struct chunk {
    const plan *pl;
    int64_t q0, q1;              /* planes [q0, q1) of N*C_out */
    int status;                  /* 0, or -1 when scratch ran out */
} chunk;

/* Valid input range of tap k on one axis: 0 <= i < L and
 * 0 <= i*S + k*D - P < O.  Computed in 128 bits: the members of a valid
 * problem fit int64, but sums like O - 1 + P - k*D need not. */
__extension__ typedef __int128 wide;

static wide floor_div(wide a, wide b)
{
    wide q = a / b;
    if (a % b != 0 && a < 0)
        q = q - 1;
    return q;
}

static void tap_range(int64_t L, int64_t S, int64_t D, int64_t P, int64_t O,
                      int64_t k, int64_t *lo, int64_t *hi)
{
    const wide shift = (wide)k * D - P;         /* o = i*S + shift */
    wide a = -floor_div(shift, S);              /* ceil(-shift / S) */
    wide b = floor_div((wide)O - 1 - shift, S) + 1;
    if (a < 0)
        a = 0;
    if (b > L)
        b = L;
    if (b < a)
        b = a;
    *lo = (int64_t)a;
    *hi = (int64_t)b;
}

/*
 * The innermost loops: every tap of one input channel, in tap order, each
 * over its rows.  Tap t adds, for each of nd x nh input rows (steps x_sd,
 * x_sh in x; a_sd, a_sh in the accumulator, from x_off and a_off), acc[j]
 * += x[j]*w[t] and bound[j] += |x[j]*w[t]| for j < len, both contiguous;
 * distinct input rows of one tap land in distinct output rows.  On x86-64
 * they are also compiled for AVX2 / FMA and picked at run time, once per
 * input channel (rows are often a dozen elements long, taps a handful of
 * rows); every clone does the same IEEE operations in the same order, so
 * the results are identical.
 */

/* Where the rows of one tap are, within one block of the accumulator
 * (nd = 0: the tap reaches no slot of the block). */
typedef struct tap_rows {
    int64_t nd, nh, len;          /* rows along D and H, row length */
    int64_t x_off, x_sd, x_sh;    /* first element, steps between rows */
    int64_t a_off, a_sd, a_sh;
} tap_rows;

/* The loops of both; dd is a constant in each caller, so each compiles to
 * its own loop. */
static IOHW__ALWAYS_INLINE void taps_loop(int64_t ntaps, const tap_rows *rows,
                                          const double *w, const double *restrict x,
                                          double *restrict yh, double *restrict yl,
                                          double *restrict eh, double *restrict el,
                                          const int dd)
{
    for (int64_t k = 0; k < ntaps; k++) {
        const tap_rows *t = &rows[k];
        const double wv = w[k];
        for (int64_t d = 0; d < t->nd; d++)
            for (int64_t h = 0; h < t->nh; h++) {
                const double *xr = x + t->x_off + d * t->x_sd + h * t->x_sh;
                const int64_t a = t->a_off + d * t->a_sd + h * t->a_sh;
                for (int64_t j = 0; j < t->len; j++) {
                    if (dd)
                        iohw__add_term_dd(xr[j], wv, &yh[a + j], &yl[a + j],
                                          &eh[a + j], &el[a + j]);
                    else
                        iohw__add_term(xr[j], wv, &yh[a + j], &eh[a + j]);
                }
            }
    }
}

CLONES("arch=x86-64-v3", "default")
static void taps_plain(int64_t ntaps, const tap_rows *rows, const double *w,
                       const double *x, double *yh, double *eh)
{
    taps_loop(ntaps, rows, w, x, yh, NULL, eh, NULL, 0);
}

/* The same in double-double: (yh, yl) += x[j]*wv, (eh, el) += |x[j]*wv|. */
CLONES("arch=x86-64-v3", "default")
static void taps_dd(int64_t ntaps, const tap_rows *rows, const double *w,
                    const double *x, double *yh, double *yl, double *eh, double *el)
{
    taps_loop(ntaps, rows, w, x, yh, yl, eh, el, 1);
}

/*
 * The per-thread accumulator of one output plane, split by phase along each
 * axis so that the taps of one row land contiguously: (od, oh, ow) with
 * o = j*S + r on each axis is held at [rd][rh][rw][jd][jh][jw], with
 * SP = min(S, O) phases (no o < O has a larger residue) of OJ = ceil(O / S)
 * positions per axis.  yh/eh hold y and the bound; yl/el their low words
 * (double-double only).
 */
typedef struct accum {
    int64_t SP[3], OJ[3], size;
    double *yh, *eh, *yl, *el;
    tap_rows *rows;              /* per tap, for the current block */
} accum;

/* Starts every slot of the accumulator from the bias value b (or 0). */
static void accum_start(const accum *ac, double b, int dd)
{
    for (int64_t a = 0; a < ac->size; a++) {
        ac->yh[a] = b;
        ac->eh[a] = fabs(b);
    }
    if (dd) {
        memset(ac->yl, 0, (size_t)ac->size * sizeof *ac->yl);
        memset(ac->el, 0, (size_t)ac->size * sizeof *ac->el);
    }
}

/* The rows of tap (kd, kh, kw) for the slots [jb, je) of each phase. */
static void tap_geometry(const plan *pl, const accum *ac, int64_t kd, int64_t kh,
                         int64_t kw, int64_t jb, int64_t je, tap_rows *t)
{
    const int64_t LH = pl->L[1], LW = pl->L[2];
    const int64_t SD = pl->S[0], SH = pl->S[1], SW = pl->S[2];
    const int64_t DD = pl->D[0], DH = pl->D[1], DW = pl->D[2];
    const int64_t PD = pl->P[0], PH = pl->P[1], PW = pl->P[2];
    const int64_t SPH = ac->SP[1], SPW = ac->SP[2];
    const int64_t OJD = ac->OJ[0], OJH = ac->OJ[1], OJ = ac->OJ[2];

    memset(t, 0, sizeof *t);
    /* The tap's row: slots j0 .. j0 + nw - 1 of phase r, from x columns
     * iw0 ..; clipped to the block. */
    const int64_t iw0 = pl->ilo[2][kw];
    const int64_t nw = pl->ihi[2][kw] - iw0;
    const int64_t id = pl->ilo[0][kd], ih = pl->ilo[1][kh];
    const int64_t nd = pl->ihi[0][kd] - id, nh = pl->ihi[1][kh] - ih;
    if (nw <= 0 || nd <= 0 || nh <= 0)
        return;
    const int64_t ow0 = iw0 * SW - PW + kw * DW;
    const int64_t rw = ow0 % SW;
    const int64_t j0 = ow0 / SW;
    const int64_t ja = j0 > jb ? j0 : jb;
    const int64_t jz = j0 + nw < je ? j0 + nw : je;
    if (ja >= jz)
        return;
    const int64_t od = id * SD - PD + kd * DD;
    const int64_t oh = ih * SH - PH + kh * DH;
    const int64_t phase = ((od % SD) * SPH + oh % SH) * SPW + rw;
    *t = (tap_rows){
        .nd = nd, .nh = nh, .len = jz - ja,
        .x_off = (id * LH + ih) * LW + iw0 + (ja - j0), .x_sd = LH * LW, .x_sh = LW,
        .a_off = ((phase * OJD + od / SD) * OJH + oh / SH) * OJ + ja,
        .a_sd = OJH * OJ, .a_sh = OJ,
    };
    /* Rows that follow each other in both x and the accumulator make one
     * longer row (each slot still gets the one term of this tap). */
    if (t->len == t->x_sh && t->len == t->a_sh) {
        t->len *= t->nh;
        t->nh = 1;
        t->x_sh = 0;
        t->a_sh = 0;
        if (t->len == t->x_sd && t->len == t->a_sd) {
            t->len *= t->nd;
            t->nd = 1;
        }
    }
}

/* Writes plane q out in natural order (od = jd*SD + rd, and so on);
 * double-double: y = fl(hi + lo), or hi when it is not finite. */
static void accum_store(const plan *pl, const accum *ac, int64_t q)
{
    const int64_t OD = pl->O[0], OH = pl->O[1], OW = pl->O[2];
    const int64_t SD = pl->S[0], SH = pl->S[1], SW = pl->S[2];
    const int64_t SPH = ac->SP[1], SPW = ac->SP[2];
    const int64_t OJD = ac->OJ[0], OJH = ac->OJ[1], OJ = ac->OJ[2];
    const int64_t out_plane = OD * OH * OW;
    double *yp = pl->y + q * out_plane;
    double *ep = pl->eb + q * out_plane;
    for (int64_t od = 0; od < OD; od++)
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t row = (od * OH + oh) * OW;
            for (int64_t r = 0; r < SPW; r++) {
                const int64_t phase = ((od % SD) * SPH + oh % SH) * SPW + r;
                const int64_t a0 = ((phase * OJD + od / SD) * OJH + oh / SH) * OJ;
                int64_t j = 0;
                for (int64_t ow = r; ow < OW; ow += SW) {
                    double yv = ac->yh[a0 + j], ev = ac->eh[a0 + j];
                    if (pl->dd) {
                        yv = iohw__dd_value(yv, ac->yl[a0 + j]);
                        ev = iohw__dd_value(ev, ac->el[a0 + j]);
                    }
                    yp[row + ow] = yv;
                    ep[row + ow] = ev;
                    j++;
                }
            }
        }
}

/* One output plane q = n*C_out + g*Mg + m. */
static void plane(const plan *pl, int64_t q, const accum *ac)
{
    const int64_t C_in = pl->C_in, C_out = pl->C_out;
    const int64_t Cg = pl->Cg, Mg = pl->Mg;
    const int64_t KD = pl->K[0], KH = pl->K[1], KW = pl->K[2];
    const int64_t OJ = ac->OJ[2];
    const int64_t n = q / C_out;
    const int64_t co = q % C_out;
    const int64_t g = co / Mg;
    const int64_t m = co % Mg;
    const int64_t in_plane = pl->L[0] * pl->L[1] * pl->L[2];
    const int64_t taps = KD * KH * KW;

    accum_start(ac, pl->bias != NULL ? pl->bias[co] : 0.0, pl->dd);

    /* Scatter every input channel of the group through every tap, one
     * block of JB slots (output columns of each phase) at a time so that
     * long rows stay in cache.  Every output element lies in one block,
     * so its terms still arrive in (c, k) order. */
    for (int64_t jb = 0; jb < OJ; jb += JB) {
        const int64_t je = jb + JB < OJ ? jb + JB : OJ;
        for (int64_t kd = 0; kd < KD; kd++)
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++)
                    tap_geometry(pl, ac, kd, kh, kw, jb, je,
                                 &ac->rows[(kd * KH + kh) * KW + kw]);
        for (int64_t c = 0; c < Cg; c++) {
            const int64_t ci = g * Cg + c;
            const double *xp = pl->x + (n * C_in + ci) * in_plane;
            const double *wp = pl->w + (ci * Mg + m) * taps;
            if (pl->dd)
                taps_dd(taps, ac->rows, wp, xp, ac->yh, ac->yl, ac->eh, ac->el);
            else
                taps_plain(taps, ac->rows, wp, xp, ac->yh, ac->eh);
        }
    }

    accum_store(pl, ac, q);
}

static void *run_chunk(void *arg)
{
    chunk *ch = arg;
    const plan *pl = ch->pl;
    if (pl->xm != NULL) {
        ch->status = iohw__ct_os_units(pl, ch->q0, ch->q1);
        return NULL;
    }
    accum ac;
    ac.size = 1;
    for (int a = 0; a < 3; a++) {
        ac.SP[a] = pl->S[a] < pl->O[a] ? pl->S[a] : pl->O[a];
        ac.OJ[a] = (pl->O[a] - 1) / pl->S[a] + 1;
        ac.size *= ac.SP[a] * ac.OJ[a];
    }
    const int nbuf = pl->dd ? 4 : 2;
    double *buf = malloc((size_t)(nbuf * ac.size) * sizeof *buf);
    ac.rows = malloc((size_t)(pl->K[0] * pl->K[1] * pl->K[2]) * sizeof *ac.rows);
    if (buf == NULL || ac.rows == NULL) {
        free(buf);
        free(ac.rows);
        ch->status = -1;
        return NULL;
    }
    ac.yh = buf;
    ac.eh = buf + ac.size;
    ac.yl = pl->dd ? buf + 2 * ac.size : NULL;
    ac.el = pl->dd ? buf + 3 * ac.size : NULL;
    for (int64_t q = ch->q0; q < ch->q1; q++)
        plane(pl, q, &ac);
    free(buf);
    free(ac.rows);
    ch->status = 0;
    return NULL;
}

/* Copies the problem's axes into 3-d extents (leading axes of extent 1). */
static void plan_axes(const iohw_problem *p, plan *pl)
{
    const int R = (int)p->rank;
    for (int a = 0; a < 3; a++) {
        const int src = a - (3 - R);
        if (src < 0) {
            pl->L[a] = 1; pl->K[a] = 1; pl->S[a] = 1;
            pl->D[a] = 1; pl->P[a] = 0; pl->O[a] = 1;
        } else {
            pl->L[a] = p->in_size[src];
            pl->K[a] = p->kernel[src];
            pl->S[a] = p->stride[src];
            pl->D[a] = p->dilation[src];
            pl->P[a] = p->pad_begin[src];
            pl->O[a] = p->out_size[src];
        }
    }
}

int iohw_conv_transpose_fast(const iohw_problem *p, const double *x,
                             const double *w, const double *bias, int dd,
                             int threads, double *y, double *eb,
                             iohw_error *err)
{
    /* Test the input arguments. */
    if (iohw__conv_transpose_check("conv_transpose_fast", p, x, w, bias, dd,
                                   y, eb, err) != 0)
        return -1;

    /* Name the extents. */
    plan pl;
    memset(&pl, 0, sizeof pl);
    pl.N = p->batch;
    pl.C_in = p->in_channels;
    pl.C_out = p->out_channels;
    pl.Cg = p->in_channels / p->groups;
    pl.Mg = p->out_channels / p->groups;
    plan_axes(p, &pl);
    pl.x = x;
    pl.w = w;
    pl.bias = p->has_bias ? bias : NULL;
    pl.y = y;
    pl.eb = eb;
    pl.dd = dd;

    /* Per axis, per tap: the valid input range. */
    const int64_t ntaps = pl.K[0] + pl.K[1] + pl.K[2];
    int64_t *ranges = malloc((size_t)(2 * ntaps) * sizeof *ranges);
    if (ranges == NULL)
        return iohw_error_set(err, "conv_transpose_fast: out of memory (%lld taps)",
                              (long long)ntaps);
    int64_t *next = ranges;
    for (int a = 0; a < 3; a++) {
        pl.ilo[a] = next;
        pl.ihi[a] = next + pl.K[a];
        next += 2 * pl.K[a];
        for (int64_t k = 0; k < pl.K[a]; k++)
            tap_range(pl.L[a], pl.S[a], pl.D[a], pl.P[a], pl.O[a], k,
                      &pl.ilo[a][k], &pl.ihi[a][k]);
    }

    /* Plain double: its own copies of x and w, and units of work. */
    int64_t planes = pl.N * pl.C_out;
    if (!dd && iohw__ct_os_usable() && (planes = iohw__ct_os_prepare(&pl)) == 0) {
        free(ranges);
        return iohw_error_set(err, "conv_transpose_fast: out of memory (copies of x "
                              "and w)");
    }

    /* Split the N*C_out planes (or the units) into contiguous chunks, one
     * per thread. */
    int64_t T = threads < 1 ? 1 : threads;
    if (T > MAX_THREADS)
        T = MAX_THREADS;
    if (T > planes)
        T = planes;
    chunk ch[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS];
    for (int64_t t = 0; t < T; t++) {
        ch[t].pl = &pl;
        ch[t].q0 = planes * t / T;
        ch[t].q1 = planes * (t + 1) / T;
        ch[t].status = -1;
        started[t] = 0;
    }

    /* Compute: chunks 1.. on new threads (inline if one cannot start),
     * chunk 0 on this thread. */
    for (int64_t t = 1; t < T; t++)
        started[t] = pthread_create(&tid[t], NULL, run_chunk, &ch[t]) == 0;
    run_chunk(&ch[0]);
    for (int64_t t = 1; t < T; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_chunk(&ch[t]);
    }
    free(ranges);
    iohw__ct_os_release(&pl);
    for (int64_t t = 0; t < T; t++)
        if (ch[t].status != 0)
            return iohw_error_set(err, "conv_transpose_fast: out of memory (accumulator of an output plane of %lld elements)",
                                  (long long)(pl.O[0] * pl.O[1] * pl.O[2]));
    return 0;
}

int iohw_oracle_terms(const iohw_problem *p, int64_t *terms_max, iohw_error *err)
{
    /*
     * terms_max = Cg * prod_a max_{o_a} #{k_a : some i_a in [0, L_a) has
     * i_a*S_a + k_a*D_a - P_a = o_a}: the valid (i, k) pairs of an element
     * factor over the axes, so the largest product is the product of the
     * per-axis largest counts.  Per axis, tap k reaches the outputs
     * o = i*S + k*D - P for i in its valid range: an arithmetic progression
     * of step S.  A difference array along steps of S (cnt[o] = diff[o] +
     * cnt[o - S]) counts them all in O(O + K) time.  A backward problem
     * has its direction's count (specification section 13,
     * oracle_backward.c).
     */
    if (terms_max == NULL)
        return iohw_error_set(err, "terms_max: argument terms_max is NULL");
    *terms_max = -1;
    if (p == NULL)
        return iohw_error_set(err, "terms_max: problem is NULL");
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "terms_max: problem");
    if (iohw_problem_is_backward(p)) {
        *terms_max = iohw__oracle_terms_backward(p);
        return 0;
    }
    plan pl;
    memset(&pl, 0, sizeof pl);
    plan_axes(p, &pl);
    int64_t terms = p->in_channels / p->groups;
    for (int a = 0; a < 3; a++) {
        const int64_t O = pl.O[a], S = pl.S[a];
        int64_t *cnt = calloc((size_t)O, sizeof *cnt);
        if (cnt == NULL)
            return iohw_error_set(err, "terms_max: out of memory (a count for each "
                                  "of %lld output positions)", (long long)O);
        /* Mark where each tap's progression starts and ends. */
        for (int64_t k = 0; k < pl.K[a]; k++) {
            int64_t lo, hi;
            tap_range(pl.L[a], S, pl.D[a], pl.P[a], O, k, &lo, &hi);
            if (hi <= lo)
                continue;
            const wide first = (wide)lo * S - pl.P[a] + (wide)k * pl.D[a];
            const wide past = (wide)hi * S - pl.P[a] + (wide)k * pl.D[a];
            cnt[(int64_t)first] += 1;
            if (past < O)
                cnt[(int64_t)past] -= 1;
        }
        /* Prefix sums along steps of S, and the largest count. */
        int64_t best = 0;
        for (int64_t o = 0; o < O; o++) {
            if (o >= S)
                cnt[o] += cnt[o - S];
            if (cnt[o] > best)
                best = cnt[o];
        }
        free(cnt);
        terms = terms * best;
    }
    *terms_max = terms;
    return 0;
}

int64_t iohw_oracle_terms_max(const iohw_problem *p)
{
    int64_t terms;
    return iohw_oracle_terms(p, &terms, NULL) == 0 ? terms : -1;
}
