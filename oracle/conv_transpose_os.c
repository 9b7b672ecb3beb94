/*
 * oracle/conv_transpose_os.c - the tuned kernel's plain-double path
 * (dd = 0), output stationary.
 *
 * It adds to each element the same terms as the definition
 * (conv_transpose.c, specification section 1), in the same order (c
 * ascending, then the tap k in row-major order), with the same operations
 * (iohw__add_term: t = x*w, y += t, eb += |t|), but keeps the sums of a
 * block of V outputs of MB output channels in registers while it runs over
 * (c, k), instead of adding each (c, k) to an accumulator in memory.
 *
 * The outputs are taken by phase: on each axis o = j*S + r, and tap k
 * reaches phase r when S divides r + P - k*D, from input i = j + off with
 * off = (r + P - k*D) / S, for the j with 0 <= j + off < L.  The positions
 * of one phase are taken in row-major order of j in blocks of V lanes; a
 * block stays within one row of W, or within a run of rows when those
 * follow each other in x too (ceil((O - r) / S) = L along W, and so on), so
 * that lane l of every tap reads x at the lane-0 index plus l.  A lane a tap
 * does not reach receives -0.0 instead of its product: y + -0.0 = y and
 * eb + 0.0 = eb for every y and eb (eb is never -0.0), so each element still
 * sees exactly its own terms.  Such a lane may read x up to V - 1 elements
 * before or after the tensor: x is read from a copy with a margin of V
 * zeros on each side (xm).  w is read from a copy wt[g][m / MB][c][k][m % MB]
 * that puts the weights of one (c, k) for MB output channels side by side.
 *
 * The loops are compiled for AVX-512 and AVX2 and picked at run time (a CPU
 * without AVX2 runs the scatter kernel of conv_transpose_fast.c); each does
 * the same IEEE operations in the same order (no contraction:
 * -ffp-contract=off, and y + t written out, see ADD_TERM), so the
 * results are identical.
 */
#include "oracle/conv_transpose_internal.h"
#include "oracle/oracle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define V 8                 /* lanes of a block */
#define MB 4                /* output channels summed at once */
#define TILE 32768          /* blocks * channels of x per tile (256 KiB) */
#define TILE_MAX 128        /* blocks per tile */
#define ENTRIES_MAX 65536   /* taps of the blocks of a tile (at least one block) */

/* Vectors of 8 lanes (one AVX-512 register) and of 4 (one AVX2 register;
 * a block is then two of them). */
typedef double vd8 __attribute__((vector_size(8 * sizeof(double))));
typedef int64_t vi8 __attribute__((vector_size(8 * sizeof(int64_t))));
typedef double vd4 __attribute__((vector_size(4 * sizeof(double))));
typedef int64_t vi4 __attribute__((vector_size(4 * sizeof(int64_t))));

/* One tap of one block. */
typedef struct entry {
    int64_t keep[V];   /* all ones in the lanes the tap reaches, else 0 */
    int64_t fill[V];   /* -0.0 in the other lanes, else 0 */
    int64_t xoff;      /* x index of lane 0 within a channel plane */
    int64_t kw;        /* the tap (row-major) times MB: its weights in wt */
    int full;          /* it reaches every lane */
} entry;

/* A block of V positions of one phase: its taps e[e0, e1) in tap order,
 * and where each lane lands in the output plane (-1: past the row). */
typedef struct block {
    int64_t e0, e1;
    int64_t yo[V];
} block;

/* One phase r: per axis the OJ positions j, and the taps that reach
 * some of them, in tap order, with their off and their range [lo, hi) of
 * j.  A block stays within a segment of F positions. */
typedef struct phase {
    int64_t r[3], OJ[3], F, npos;
    int64_t nt[3];
    int64_t *tk[3], *off[3], *lo[3], *hi[3];
} phase;

__extension__ typedef __int128 wide;

/*
 * The sums of one block for mb output channels: acc = bias (eac = |bias|),
 * then for c ascending and each tap in order, t = x*w (or -0.0 in a lane the
 * tap does not reach), acc += t, eac += |t|.  x is the first channel's
 * plane (channels LV apart), w the first channel's weights in wt (channels
 * wc apart, output channels next to each other).  The block is NP vectors
 * of type VD (VI: the same bits as integers); x * w[u] multiplies every
 * lane by the one weight.
 */
#define SUM_ARGS const entry *e, int64_t ne, const double *x, int64_t LV, int64_t Cg, \
    const double *w, int64_t wc, const double *bias, double (*ya)[V], double (*ea)[V]
#define BLOCK_SUM(VD, VI, NP, mb)                                                   \
    do {                                                                            \
        enum { W = V / (NP) };                                                      \
        VD acc[mb][NP], eac[mb][NP];                                                \
        VI absmask;                                                                 \
        for (int l = 0; l < W; l++)                                                 \
            absmask[l] = INT64_MAX;                                                 \
        for (int u = 0; u < (mb); u++) {                                            \
            double bv[W], ev[W];                                                    \
            for (int l = 0; l < W; l++) {                                           \
                bv[l] = bias[u];                                                    \
                ev[l] = fabs(bias[u]);                                              \
            }                                                                       \
            for (int h = 0; h < (NP); h++) {                                        \
                memcpy(&acc[u][h], bv, sizeof(VD));                                 \
                memcpy(&eac[u][h], ev, sizeof(VD));                                 \
            }                                                                       \
        }                                                                           \
        for (int64_t c = 0; c < Cg; c++) {                                          \
            const double *xc = x + c * LV;                                          \
            const double *wp = w + c * wc;                                          \
            for (int64_t t = 0; t < ne; t++) {                                      \
                VD xv[NP];                                                          \
                for (int h = 0; h < (NP); h++)                                      \
                    memcpy(&xv[h], xc + e[t].xoff + h * W, sizeof(VD));             \
                const double *wk = wp + e[t].kw;                                    \
                if (e[t].full) {                                                    \
                    for (int u = 0; u < (mb); u++)                                  \
                        for (int h = 0; h < (NP); h++) {                            \
                            const VD p = xv[h] * wk[u];                             \
                            acc[u][h] = ADD_TERM(p, acc[u][h]);                     \
                            eac[u][h] += (VD)((VI)p & absmask);                     \
                        }                                                           \
                } else {                                                            \
                    VI keep[NP], fill[NP];                                          \
                    for (int h = 0; h < (NP); h++) {                                \
                        memcpy(&keep[h], e[t].keep + h * W, sizeof(VI));            \
                        memcpy(&fill[h], e[t].fill + h * W, sizeof(VI));            \
                    }                                                               \
                    for (int u = 0; u < (mb); u++)                                  \
                        for (int h = 0; h < (NP); h++) {                            \
                            const VD p = (VD)(((VI)(xv[h] * wk[u]) & keep[h]) |     \
                                              fill[h]);                             \
                            acc[u][h] = ADD_TERM(p, acc[u][h]);                     \
                            eac[u][h] += (VD)((VI)p & absmask);                     \
                        }                                                           \
                }                                                                   \
            }                                                                       \
        }                                                                           \
        for (int u = 0; u < (mb); u++)                                              \
            for (int h = 0; h < (NP); h++) {                                        \
                memcpy(&ya[u][h * W], &acc[u][h], sizeof(VD));                      \
                memcpy(&ea[u][h * W], &eac[u][h], sizeof(VD));                      \
            }                                                                       \
    } while (0)

/*
 * y + t with the operand order of the definition's compiled y += t: when
 * both are NaN, x86 returns the first operand's NaN.  GCC compiles the
 * definition's addition as t + y when optimizing (addsd from memory) and as
 * y + t without optimization, and may swap the operands of a plain vector
 * add, so the order is written out.  Four output channels in AVX-512
 * registers (32 of them hold the sums), two or one in AVX2 vectors of 4 (16
 * registers).  Without AVX2 the scatter kernel runs instead
 * (iohw__ct_os_usable).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__OPTIMIZE__)
#define ADD_FIRST(t, y) (t)
#define ADD_SECOND(t, y) (y)
#else
#define ADD_FIRST(t, y) (y)
#define ADD_SECOND(t, y) (t)
#endif
#define ADD_TERM(t, y) __extension__({                                  \
        __typeof__(y) r_;                                               \
        __asm__("vaddpd %2, %1, %0"                                     \
                : "=v"(r_) : "v"(ADD_FIRST(t, y)), "v"(ADD_SECOND(t, y))); \
        r_;                                                             \
    })
#define WIDE_REGS() (__builtin_cpu_supports("avx512f") && !isa_capped("avx2"))
#define ON_V4 __attribute__((target("arch=x86-64-v4")))
#define ON_V3 __attribute__((target("arch=x86-64-v3")))
/* IOHW_ORACLE_ISA (checked by iohw_oracle_method_resolve) caps the vectors
 * used: "avx2" leaves AVX-512 out, "none" runs the scatter kernel, so one
 * machine can prove every path equal to the definition. */
static int isa_capped(const char *at)
{
    const char *v = getenv(IOHW_ORACLE_ISA_ENV);
    return v != NULL && (strcmp(v, "none") == 0 || strcmp(v, at) == 0);
}

int iohw__ct_os_usable(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
           !isa_capped("none");
}
#else
#define ADD_TERM(t, y) ((y) + (t))
#define WIDE_REGS() 0
#define ON_V4
#define ON_V3
int iohw__ct_os_usable(void)
{
    return 0;
}
#endif

ON_V4 static void sum8_4(SUM_ARGS)
{
    BLOCK_SUM(vd8, vi8, 1, 4);
}

ON_V3 static void sum4_2(SUM_ARGS)
{
    BLOCK_SUM(vd4, vi4, 2, 2);
}

ON_V3 static void sum4_1(SUM_ARGS)
{
    BLOCK_SUM(vd4, vi4, 2, 1);
}

/* The sums of one block for output channels [0, mb) of an MB-block. */
static void block_run(int wide_regs, int64_t mb, SUM_ARGS)
{
    int64_t u = 0;
    if (mb == 4 && wide_regs) {
        sum8_4(e, ne, x, LV, Cg, w, wc, bias, ya, ea);
        return;
    }
    for (; u + 2 <= mb; u += 2)
        sum4_2(e, ne, x, LV, Cg, w + u, wc, bias + u, ya + u, ea + u);
    for (; u < mb; u++)
        sum4_1(e, ne, x, LV, Cg, w + u, wc, bias + u, ya + u, ea + u);
}

/* The taps of phase r on axis a (see phase). */
static void phase_axis(const iohw__ct_plan *pl, int a, int64_t r, phase *ph)
{
    const int64_t L = pl->L[a], S = pl->S[a], OJ = (pl->O[a] - 1 - r) / S + 1;
    ph->r[a] = r;
    ph->OJ[a] = OJ;
    ph->nt[a] = 0;
    for (int64_t k = 0; k < pl->K[a]; k++) {
        const wide v = (wide)r + pl->P[a] - (wide)k * pl->D[a];
        if (v % S != 0)
            continue;
        const wide off = v / S;
        const wide lo = off < 0 ? -off : 0;
        const wide hi = (wide)L - off < OJ ? (wide)L - off : OJ;
        if (lo >= hi)
            continue;
        const int64_t t = ph->nt[a]++;
        ph->tk[a][t] = k;
        ph->off[a][t] = (int64_t)off;
        ph->lo[a][t] = (int64_t)lo;
        ph->hi[a][t] = (int64_t)hi;
    }
}

/* The segment length F: rows of W, or runs of rows that follow each other
 * in x too. */
static void phase_segments(const iohw__ct_plan *pl, phase *ph)
{
    ph->npos = ph->OJ[0] * ph->OJ[1] * ph->OJ[2];
    ph->F = ph->OJ[2];
    if (ph->OJ[2] == pl->L[2]) {
        ph->F *= ph->OJ[1];
        if (ph->OJ[1] == pl->L[1])
            ph->F *= ph->OJ[0];
    }
}

/* Builds block bi of the phase: its lanes' outputs and its taps (appended
 * at e[*ne]). */
static void block_build(const iohw__ct_plan *pl, const phase *ph, int64_t bi, block *b,
                        entry *e, int64_t *ne)
{
    const int64_t nbs = (ph->F + V - 1) / V;
    const int64_t s = bi / nbs, f0 = (bi % nbs) * V;
    int64_t j[V][3];
    for (int l = 0; l < V; l++) {
        const int64_t f = f0 + l;
        if (f >= ph->F) {
            b->yo[l] = -1;
            continue;
        }
        const int64_t pos = s * ph->F + f;
        j[l][2] = pos % ph->OJ[2];
        j[l][1] = pos / ph->OJ[2] % ph->OJ[1];
        j[l][0] = pos / (ph->OJ[2] * ph->OJ[1]);
        int64_t o = 0;
        for (int a = 0; a < 3; a++)
            o = o * pl->O[a] + j[l][a] * pl->S[a] + ph->r[a];
        b->yo[l] = o;
    }
    b->e0 = *ne;
    for (int64_t td = 0; td < ph->nt[0]; td++)
        for (int64_t th = 0; th < ph->nt[1]; th++)
            for (int64_t tw = 0; tw < ph->nt[2]; tw++) {
                const int64_t t3[3] = {td, th, tw};
                entry *en = &e[*ne];
                int reach = 0;
                for (int l = 0; l < V; l++) {
                    int in = b->yo[l] >= 0;
                    for (int a = 0; a < 3 && in; a++)
                        in = j[l][a] >= ph->lo[a][t3[a]] && j[l][a] < ph->hi[a][t3[a]];
                    en->keep[l] = in ? -1 : 0;
                    en->fill[l] = in ? 0 : INT64_MIN;  /* the bits of -0.0 */
                    reach += in;
                }
                if (reach == 0)
                    continue;
                en->full = reach == V;
                en->xoff = 0;
                en->kw = 0;
                for (int a = 0; a < 3; a++) {
                    en->xoff = en->xoff * pl->L[a] + j[0][a] + ph->off[a][t3[a]];
                    en->kw = en->kw * pl->K[a] + ph->tk[a][t3[a]];
                }
                en->kw *= MB;
                (*ne)++;
            }
    b->e1 = *ne;
}

/* Scratch of one thread. */
typedef struct scratch {
    phase ph;
    entry *e;
    block *b;
    int64_t tb;        /* blocks per tile */
    int wide_regs;     /* AVX-512: 32 vector registers */
} scratch;

/* Units [u0, u1) (an MB-block of output channels of a group, every n) on
 * the blocks [b0, b1) of the phase, built in sc. */
static void run_tile(const iohw__ct_plan *pl, const scratch *sc, int64_t u0, int64_t u1,
                     int64_t b0, int64_t b1)
{
    const int64_t LV = pl->L[0] * pl->L[1] * pl->L[2];
    const int64_t KV = pl->K[0] * pl->K[1] * pl->K[2];
    const int64_t OV = pl->O[0] * pl->O[1] * pl->O[2];
    const int64_t nmb = (pl->Mg + MB - 1) / MB;
    for (int64_t unit = u0; unit < u1; unit++) {
        const int64_t g = unit / nmb, m = unit % nmb * MB;
        const int64_t mb = pl->Mg - m < MB ? pl->Mg - m : MB;
        const int64_t co = g * pl->Mg + m;
        double bias[MB] = {0};
        for (int64_t u = 0; u < mb; u++)
            bias[u] = pl->bias != NULL ? pl->bias[co + u] : 0.0;
        const double *w = pl->wt + unit * pl->Cg * KV * MB;
        for (int64_t n = 0; n < pl->N; n++) {
            const double *x = pl->xm + (n * pl->C_in + g * pl->Cg) * LV;
            for (int64_t bi = b0; bi < b1; bi++) {
                const block *b = &sc->b[bi - b0];
                double ya[MB][V], ea[MB][V];
                block_run(sc->wide_regs, mb, sc->e + b->e0, b->e1 - b->e0, x, LV, pl->Cg,
                          w, KV * MB, bias, ya, ea);
                for (int64_t u = 0; u < mb; u++) {
                    double *yp = pl->y + (n * pl->C_out + co + u) * OV;
                    double *ep = pl->eb + (n * pl->C_out + co + u) * OV;
                    for (int l = 0; l < V; l++)
                        if (b->yo[l] >= 0) {
                            yp[b->yo[l]] = ya[u][l];
                            ep[b->yo[l]] = ea[u][l];
                        }
                }
            }
        }
    }
}

/* Units [u0, u1), one phase and one tile of its blocks at a time. */
static void run_units(const iohw__ct_plan *pl, scratch *sc, int64_t u0, int64_t u1)
{
    int64_t SP[3];
    for (int a = 0; a < 3; a++)
        SP[a] = pl->S[a] < pl->O[a] ? pl->S[a] : pl->O[a];
    phase *ph = &sc->ph;
    for (int64_t rd = 0; rd < SP[0]; rd++)
        for (int64_t rh = 0; rh < SP[1]; rh++)
            for (int64_t rw = 0; rw < SP[2]; rw++) {
                phase_axis(pl, 0, rd, ph);
                phase_axis(pl, 1, rh, ph);
                phase_axis(pl, 2, rw, ph);
                phase_segments(pl, ph);
                const int64_t nb = ph->npos / ph->F * ((ph->F + V - 1) / V);
                for (int64_t b0 = 0; b0 < nb; b0 += sc->tb) {
                    const int64_t b1 = b0 + sc->tb < nb ? b0 + sc->tb : nb;
                    int64_t ne = 0;
                    for (int64_t bi = b0; bi < b1; bi++)
                        block_build(pl, ph, bi, &sc->b[bi - b0], sc->e, &ne);
                    run_tile(pl, sc, u0, u1, b0, b1);
                }
            }
}

int iohw__ct_os_units(const iohw__ct_plan *pl, int64_t u0, int64_t u1)
{
    scratch sc;
    memset(&sc, 0, sizeof sc);
    /* The taps of one phase: on each axis those of one residue modulo
     * S / gcd(S, D). */
    int64_t taps = 1, ksum = 0;
    for (int a = 0; a < 3; a++) {
        int64_t p = pl->S[a], q = pl->D[a];
        while (q != 0) {
            const int64_t t = p % q;
            p = q;
            q = t;
        }
        const int64_t step = pl->S[a] / p;
        taps *= (pl->K[a] + step - 1) / step;
        ksum += pl->K[a];
    }
    sc.tb = TILE / (pl->N * pl->Cg * V);
    if (sc.tb > ENTRIES_MAX / taps)
        sc.tb = ENTRIES_MAX / taps;
    if (sc.tb > TILE_MAX)
        sc.tb = TILE_MAX;
    if (sc.tb < 1)
        sc.tb = 1;
    sc.wide_regs = WIDE_REGS();
    int64_t *ax = malloc((size_t)(4 * ksum) * sizeof *ax);
    sc.e = malloc((size_t)(sc.tb * taps) * sizeof *sc.e);
    sc.b = malloc((size_t)sc.tb * sizeof *sc.b);
    int rc = -1;
    if (ax != NULL && sc.e != NULL && sc.b != NULL) {
        int64_t *next = ax;
        for (int a = 0; a < 3; a++) {
            sc.ph.tk[a] = next;
            sc.ph.off[a] = next + pl->K[a];
            sc.ph.lo[a] = next + 2 * pl->K[a];
            sc.ph.hi[a] = next + 3 * pl->K[a];
            next += 4 * pl->K[a];
        }
        run_units(pl, &sc, u0, u1);
        rc = 0;
    }
    free(ax);
    free(sc.e);
    free(sc.b);
    return rc;
}

int64_t iohw__ct_os_prepare(iohw__ct_plan *pl)
{
    const int64_t LV = pl->L[0] * pl->L[1] * pl->L[2];
    const int64_t KV = pl->K[0] * pl->K[1] * pl->K[2];
    const int64_t G = pl->C_in / pl->Cg, Cg = pl->Cg, Mg = pl->Mg;
    const int64_t nmb = (Mg + MB - 1) / MB;
    const int64_t nx = pl->N * pl->C_in * LV;
    double *xm = calloc((size_t)(nx + 2 * V), sizeof *xm);
    pl->wt = calloc((size_t)(G * nmb * Cg * KV * MB), sizeof *pl->wt);
    if (xm == NULL || pl->wt == NULL) {
        free(xm);
        free(pl->wt);
        pl->wt = NULL;
        return 0;
    }
    /* x between margins of V zeros; w as wt[g][m / MB][c][k][m % MB]. */
    memcpy(xm + V, pl->x, (size_t)nx * sizeof *xm);
    pl->xm = xm + V;
    for (int64_t g = 0; g < G; g++)
        for (int64_t c = 0; c < Cg; c++)
            for (int64_t m = 0; m < Mg; m++) {
                const double *src = pl->w + ((g * Cg + c) * Mg + m) * KV;
                double *dst = pl->wt + (((g * nmb + m / MB) * Cg + c) * KV) * MB + m % MB;
                for (int64_t k = 0; k < KV; k++)
                    dst[k * MB] = src[k];
            }
    return G * nmb;
}

void iohw__ct_os_release(iohw__ct_plan *pl)
{
    free(pl->xm != NULL ? pl->xm - V : NULL);
    free(pl->wt);
    pl->xm = NULL;
    pl->wt = NULL;
}
