/*
 * tconv.c - a small transposed-convolution backend for iohw, in plain C.
 *
 * It takes f32 and f64 in the canonical layouts only: x and y in N, C,
 * then the spatial axes (NCW, NCHW, NCDHW); w in I, O, then the spatial
 * axes (IOW, IOHW, IODHW), where I is every input channel and O the output
 * channels of one group.  It scatters every input element through the
 * kernel into a double accumulator:
 *
 *   y[n, g*Mg + m, i*S + k*D - P] += x[n, g*Cg + c, i] * w[g*Cg + c, m, k]
 *
 * with Cg = C_in/G, Mg = C_out/G, per spatial axis, P the padding at the
 * beginning; positions outside y are dropped.
 */
#include <stdlib.h>
#include <string.h>

#include <iohw/backend.h>

/* Extents of the three spatial axes (a missing one has extent 1). */
typedef struct shape {
    int64_t in[3], out[3], k[3], s[3], d[3], p[3];
    int64_t in_len, out_len, k_len;
} shape;

static const char *tconv_error = "";

static int canonical(const iohw_problem *p)
{
    static const char *const data[] = {"NCW", "NCHW", "NCDHW"};
    static const char *const weight[] = {"IOW", "IOHW", "IODHW"};
    if (p->struct_size < IOHW_PROBLEM_SIZE_V1 || p->rank < 1 || p->rank > 3)
        return 0;
    if (p->dtype != IOHW_F32 && p->dtype != IOHW_F64)
        return 0;
    return strcmp(p->data_layout, data[p->rank - 1]) == 0 &&
           strcmp(p->weight_layout, weight[p->rank - 1]) == 0;
}

static void shape_of(const iohw_problem *p, shape *sh)
{
    int pad = 3 - (int)p->rank;
    sh->in_len = sh->out_len = sh->k_len = 1;
    for (int a = 0; a < 3; a++) {
        int j = a - pad;
        sh->in[a] = j < 0 ? 1 : p->in_size[j];
        sh->out[a] = j < 0 ? 1 : p->out_size[j];
        sh->k[a] = j < 0 ? 1 : p->kernel[j];
        sh->s[a] = j < 0 ? 1 : p->stride[j];
        sh->d[a] = j < 0 ? 1 : p->dilation[j];
        sh->p[a] = j < 0 ? 0 : p->pad_begin[j];
        sh->in_len *= sh->in[a];
        sh->out_len *= sh->out[a];
        sh->k_len *= sh->k[a];
    }
}

static double load(const iohw_problem *p, const void *t, int64_t i)
{
    return p->dtype == IOHW_F32 ? ((const float *)t)[i] : ((const double *)t)[i];
}

/* Adds x[i] times the kernel w (one input channel, one output channel) to
 * the output plane acc. */
static void scatter(const shape *sh, double xv, const int64_t i[3],
                    const void *w, int64_t w0, const iohw_problem *p, double *acc)
{
    for (int64_t kd = 0; kd < sh->k[0]; kd++)
        for (int64_t kh = 0; kh < sh->k[1]; kh++)
            for (int64_t kw = 0; kw < sh->k[2]; kw++) {
                int64_t k[3] = {kd, kh, kw}, at = 0;
                for (int a = 0; a < 3; a++) {
                    int64_t o = i[a] * sh->s[a] + k[a] * sh->d[a] - sh->p[a];
                    if (o < 0 || o >= sh->out[a])
                        goto next;
                    at = at * sh->out[a] + o;
                }
                acc[at] += xv * load(p, w, w0 + (kd * sh->k[1] + kh) * sh->k[2] + kw);
            next:;
            }
}

/* One output plane y[n, co]. */
static void plane(const iohw_problem *p, const shape *sh, const void *x,
                  const void *w, const void *bias, int64_t n, int64_t co, double *acc)
{
    int64_t cg = p->in_channels / p->groups, mg = p->out_channels / p->groups;
    int64_t g = co / mg, m = co % mg;
    for (int64_t o = 0; o < sh->out_len; o++)
        acc[o] = bias != NULL ? load(p, bias, co) : 0.0;
    for (int64_t c = g * cg; c < (g + 1) * cg; c++) {
        int64_t x0 = (n * p->in_channels + c) * sh->in_len;
        int64_t w0 = (c * mg + m) * sh->k_len;
        int64_t i[3];
        for (i[0] = 0; i[0] < sh->in[0]; i[0]++)
            for (i[1] = 0; i[1] < sh->in[1]; i[1]++)
                for (i[2] = 0; i[2] < sh->in[2]; i[2]++) {
                    int64_t xi = x0 + (i[0] * sh->in[1] + i[1]) * sh->in[2] + i[2];
                    scatter(sh, load(p, x, xi), i, w, w0, p, acc);
                }
    }
}

static int tconv_supports(void *ctx, const iohw_problem *p)
{
    (void)ctx;
    return canonical(p) ? IOHW_OK : IOHW_UNSUPPORTED;
}

static int tconv_run(void *ctx, const iohw_problem *p, const void *x,
                     const void *w, const void *bias, void *y)
{
    (void)ctx;
    if (!canonical(p) || p->groups < 1 || x == NULL || w == NULL || y == NULL) {
        tconv_error = "tconv: not a problem it claims, or a NULL tensor";
        return IOHW_INVALID_PROBLEM;
    }
    shape sh;
    shape_of(p, &sh);
    double *acc = malloc((size_t)sh.out_len * sizeof *acc);
    if (acc == NULL) {
        tconv_error = "tconv: out of memory";
        return IOHW_OUT_OF_MEMORY;
    }
    for (int64_t n = 0; n < p->batch; n++)
        for (int64_t co = 0; co < p->out_channels; co++) {
            plane(p, &sh, x, w, p->has_bias ? bias : NULL, n, co, acc);
            int64_t y0 = (n * p->out_channels + co) * sh.out_len;
            for (int64_t o = 0; o < sh.out_len; o++) {
                if (p->dtype == IOHW_F32)
                    ((float *)y)[y0 + o] = (float)acc[o];
                else
                    ((double *)y)[y0 + o] = acc[o];
            }
        }
    free(acc);
    tconv_error = "";
    return IOHW_OK;
}

static const char *tconv_last_error(void *ctx)
{
    (void)ctx;
    return tconv_error;
}

static const iohw_backend tconv_table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "tconv (iohw example)",
    .version = "1",
    .supports = tconv_supports,
    .run = tconv_run,
    .last_error = tconv_last_error,
};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    return host_abi_version >= 1 ? &tconv_table : NULL;
}
