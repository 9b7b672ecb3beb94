/*
 * cli/benchdnn_iohw.c - a benchdnn descriptor under a setting as an iohw
 * descriptor, and an iohw problem as a benchdnn command line
 * (specification section 14).
 */
#include "cli/benchdnn.h"

#include <stdarg.h>
#include <string.h>

#include "oracle/dtype.h"

/* Appends to buf (n bytes, *len used); 0, or -1 when it does not fit. */
static int add(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= n - *len)
        return -1;
    *len += (size_t)k;
    return 0;
}

static int is_float(const char *t)
{
    return strcmp(t, "f32") == 0 || strcmp(t, "f64") == 0 || strcmp(t, "f16") == 0 ||
           strcmp(t, "bf16") == 0;
}

static int is_int8(const char *t)
{
    return strcmp(t, "s8") == 0 || strcmp(t, "u8") == 0;
}

/* The dtype keys of benchdnn's --dt value (one type, or src:wei:dst), into
 * out; 1 with the reason when iohw has no definition for the mix. */
static int dtype_keys(const char *dt, int backward, char *out, size_t n, iohw_error *err)
{
    char t[3][16] = {{0}};
    int k = sscanf(dt, "%15[^:]:%15[^:]:%15s", t[0], t[1], t[2]);
    if (k == 1) {
        memcpy(t[1], t[0], sizeof t[0]);
        memcpy(t[2], t[0], sizeof t[0]);
    } else if (k != 3) {
        iohw_error_set(err, "--dt=%s: one type or src:wei:dst", dt);
        return 1;
    }
    if (is_float(t[0]) && strcmp(t[0], t[1]) == 0 && strcmp(t[0], t[2]) == 0) {
        snprintf(out, n, "dt=%s", t[0]);
        return 0;
    }
    if (is_int8(t[0]) && is_int8(t[1]) && (is_int8(t[2]) || strcmp(t[2], "s32") == 0)) {
        if (backward) {
            iohw_error_set(err, "--dt=%s with a backward direction: iohw's backward "
                           "directions are float (specification section 13)", dt);
            return 1;
        }
        snprintf(out, n, "dt=%s wdt=%s ydt=%s", t[0], t[1], t[2]);
        return 0;
    }
    iohw_error_set(err, "--dt=%s: iohw defines f32, f64, f16 and bf16 throughout, and "
                   "s8/u8 x and w with s8, u8 or s32 y (specification section 11); "
                   "not this mix", dt);
    return 1;
}

/* "AxBxC" of the rank values of v, or with pairs "b:e". */
static int add_sizes(char *buf, size_t n, size_t *len, const char *key, const int64_t *v,
                     int rank, int64_t add_one)
{
    if (add(buf, n, len, " %s=", key) != 0)
        return -1;
    for (int j = 0; j < rank; j++)
        if (add(buf, n, len, "%s%lld", j ? "x" : "", (long long)(v[j] + add_one)) != 0)
            return -1;
    return 0;
}

int iohw__bdnn_to_iohw(const iohw__bdnn_desc *d, const iohw__bdnn_setting *s,
                       char *buf, size_t n, iohw_error *err)
{
    int32_t dir = 0, bias = 0;
    /* FWD_I (inference) is forward without a bias here. */
    const char *dname = strcmp(s->dir, "FWD_I") == 0 ? "fwd_d" : s->dir;
    if (iohw_direction_parse(dname, &dir, &bias) != 0) {
        iohw_error_set(err, "--dir=%s: benchdnn's FWD_B, FWD_D, FWD_I, BWD_D, BWD_W or "
                       "BWD_WB", s->dir);
        return 1;
    }
    char dts[64];
    int r = dtype_keys(s->dt, dir != IOHW_DIR_FWD, dts, sizeof dts, err);
    if (r != 0)
        return r;
    int64_t op[3] = {0}, pe[3] = {0};
    for (int j = 0; j < d->rank; j++) {
        op[j] = d->pad_end[j] < 0 ? -d->pad_end[j] : 0;
        pe[j] = d->pad_end[j] < 0 ? 0 : d->pad_end[j];
    }
    size_t len = 0;
    if (add(buf, n, &len, "n=%lld g=%lld ci=%lld co=%lld",
            (long long)(s->mb > 0 ? s->mb : d->mb), (long long)d->g, (long long)d->ic,
            (long long)d->oc) != 0 ||
        add_sizes(buf, n, &len, "in", d->in, d->rank, 0) != 0 ||
        add_sizes(buf, n, &len, "k", d->k, d->rank, 0) != 0 ||
        add_sizes(buf, n, &len, "s", d->s, d->rank, 0) != 0 ||
        add_sizes(buf, n, &len, "d", d->d, d->rank, 1) != 0 ||
        add(buf, n, &len, " pad=") != 0)
        return -1;
    for (int j = 0; j < d->rank; j++)
        if (add(buf, n, &len, "%s%lld:%lld", j ? "x" : "", (long long)d->pad_begin[j],
                (long long)pe[j]) != 0)
            return -1;
    if (add_sizes(buf, n, &len, "op", op, d->rank, 0) != 0 ||
        add(buf, n, &len, " %s dir=%s", dts, dname) != 0)
        return -1;
    for (char *c = buf + len - strlen(dname); *c != '\0'; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    return 0;
}

/* The entries of one kind over p's axes: "ih5iw7", dilation 0-based. */
static void put_axes(FILE *out, const iohw_problem *p, char kind, const int64_t *v,
                     int64_t minus)
{
    static const char AXES[] = "dhw";
    for (uint32_t j = 0; j < p->rank; j++)
        fprintf(out, "%c%c%lld", kind, AXES[3 - p->rank + j], (long long)(v[j] - minus));
}

int iohw__show_as_benchdnn(const iohw_problem *p, const char *case_id, FILE *out,
                           iohw_error *err)
{
    if (p->w_dtype != 0 || p->y_dtype != 0 || p->dtype == IOHW_S8 || p->dtype == IOHW_U8) {
        iohw_error_set(err, "a quantized case: benchdnn states its scales and zero points "
                       "with --attr-scales and --attr-zero-points, which iohw does not "
                       "write (specification section 14)");
        return 1;
    }
    for (uint32_t j = 0; j < p->rank; j++)
        if (p->pad_end[j] - p->output_padding[j] + p->stride[j] <= 0) {
            iohw_error_set(err, "output_padding %lld on axis %u: benchdnn's padding at "
                           "the end would be %lld, and oneDNN wants it above minus the "
                           "stride (%lld)", (long long)p->output_padding[j], j,
                           (long long)(p->pad_end[j] - p->output_padding[j]),
                           (long long)p->stride[j]);
            return 1;
        }
    int dilated = 0;
    for (uint32_t j = 0; j < p->rank; j++)
        dilated |= p->dilation[j] > 1;
    fprintf(out, "./benchdnn --deconv --dir=%s --dt=%s ", iohw_direction_name(p),
            iohw_dtype_name(p->dtype));
    if (p->groups > 1)
        fprintf(out, "g%lld", (long long)p->groups);
    fprintf(out, "mb%lldic%lld", (long long)p->batch, (long long)p->in_channels);
    put_axes(out, p, 'i', p->in_size, 0);
    fprintf(out, "oc%lld", (long long)p->out_channels);
    put_axes(out, p, 'o', p->out_size, 0);
    put_axes(out, p, 'k', p->kernel, 0);
    put_axes(out, p, 's', p->stride, 0);
    put_axes(out, p, 'p', p->pad_begin, 0);
    if (dilated)
        put_axes(out, p, 'd', p->dilation, 1);
    fprintf(out, "n\"%s\"\n", case_id);
    return 0;
}
