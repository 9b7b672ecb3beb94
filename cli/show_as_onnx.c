/*
 * cli/show_as_onnx.c - `iohw show --as onnx FILE:CASE -o DIR`: the case as
 * an ONNX node-test folder (DIR/model.onnx: one ConvTranspose of opset 11
 * with explicit strides, dilations, pads, output_padding, group and
 * kernel_shape; DIR/test_data_set_0/input_0.pb X, input_1.pb W, input_2.pb
 * B, output_0.pb Y, the oracle's y), written in the protobuf wire format
 * with onnx/onnx onnx/onnx.proto's field numbers.  The layouts are ONNX's,
 * NC... and [C_in, C_out/group, K...] (specification section 1's semantic
 * orders).  The explicit pads state any problem, also one written with a
 * convention (section 12).  bf16 is refused (not a type of opset 11's
 * ConvTranspose).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/show_as.h"
#include "oracle/dtype.h"

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
    int failed;
} buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->failed)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap * 2 + n + 64;
        uint8_t *p = realloc(b->p, cap);
        if (p == NULL) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void varint(buf *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    do {
        t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v != 0);
    put(b, t, n);
}

static void field_int(buf *b, unsigned f, int64_t v)
{
    varint(b, (uint64_t)f << 3);
    varint(b, (uint64_t)v);
}

static void field_bytes(buf *b, unsigned f, const void *p, size_t n)
{
    varint(b, (uint64_t)f << 3 | 2);
    varint(b, n);
    put(b, p, n);
}

static void field_str(buf *b, unsigned f, const char *s)
{
    field_bytes(b, f, s, strlen(s));
}

/* Appends message m as field f and releases it. */
static void field_msg(buf *b, unsigned f, buf *m)
{
    b->failed |= m->failed;
    field_bytes(b, f, m->p, m->n);
    free(m->p);
    memset(m, 0, sizeof *m);
}

/* ONNX's TensorProto.DataType of an iohw float dtype. */
static int elem_type(int32_t dt)
{
    return dt == IOHW_F32 ? 1 : dt == IOHW_F64 ? 11 : dt == IOHW_F16 ? 10 : 16;
}

/* AttributeProto INTS (type 7) or INT (type 2). */
static void attr_ints(buf *node, const char *name, const int64_t *v, int n, int one)
{
    buf a = {0};
    field_str(&a, 1, name);
    for (int i = 0; i < n; i++)
        field_int(&a, one ? 3 : 8, v[i]);
    field_int(&a, 20, one ? 2 : 7);
    field_msg(node, 5, &a);
}

/* ValueInfoProto name with TypeProto.tensor_type {elem_type, shape}. */
static void value_info(buf *g, unsigned f, const char *name, int et, const int64_t *d, int n)
{
    buf vi = {0}, type = {0}, tt = {0}, shape = {0};
    for (int i = 0; i < n; i++) {
        buf dim = {0};
        field_int(&dim, 1, d[i]);
        field_msg(&shape, 1, &dim);
    }
    field_int(&tt, 1, et);
    field_msg(&tt, 2, &shape);
    field_msg(&type, 1, &tt);
    field_str(&vi, 1, name);
    field_msg(&vi, 2, &type);
    field_msg(g, f, &vi);
}

/* A TensorProto file of count values of dt (from canonical doubles). */
static int write_tensor(const char *dir, const char *file, const char *name, int32_t dt,
                        const int64_t *d, int n, const double *v, int64_t count,
                        iohw_error *err)
{
    char path[4200];
    buf t = {0};
    const size_t es = iohw_dtype_size((iohw_dtype)dt);
    void *raw = malloc((size_t)count * es + 1);
    if (raw == NULL)
        return iohw_error_set(err, "out of memory");
    iohw_dtype_from_double((iohw_dtype)dt, v, raw, (size_t)count);
    for (int i = 0; i < n; i++)
        field_int(&t, 1, d[i]);
    field_int(&t, 2, elem_type(dt));
    field_str(&t, 8, name);
    field_bytes(&t, 9, raw, (size_t)count * es);
    free(raw);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = t.failed ? NULL : fopen(path, "wb");
    int ok = f != NULL && fwrite(t.p, 1, t.n, f) == t.n;
    if (f != NULL)
        ok &= fclose(f) == 0;
    free(t.p);
    return ok ? 0 : iohw_error_set(err, "%s: cannot write", path);
}

/* model.onnx's bytes into m. */
static void model(const iohw__show_as_case *k, const int64_t *xd, const int64_t *wd,
                  const int64_t *yd, buf *m)
{
    const iohw_problem *p = &k->c->p;
    const int R = (int)p->rank, et = elem_type(p->dtype);
    int64_t pads[6];
    buf node = {0}, g = {0}, op = {0};
    for (int a = 0; a < R; a++) {
        pads[a] = p->pad_begin[a];
        pads[R + a] = p->pad_end[a];
    }
    field_str(&node, 1, "X");
    field_str(&node, 1, "W");
    if (p->has_bias)
        field_str(&node, 1, "B");
    field_str(&node, 2, "Y");
    field_str(&node, 4, "ConvTranspose");
    attr_ints(&node, "strides", p->stride, R, 0);
    attr_ints(&node, "dilations", p->dilation, R, 0);
    attr_ints(&node, "pads", pads, 2 * R, 0);
    attr_ints(&node, "output_padding", p->output_padding, R, 0);
    attr_ints(&node, "kernel_shape", p->kernel, R, 0);
    attr_ints(&node, "group", &p->groups, 1, 1);
    field_msg(&g, 1, &node);
    field_str(&g, 2, k->c->id);
    value_info(&g, 11, "X", et, xd, R + 2);
    value_info(&g, 11, "W", et, wd, R + 2);
    if (p->has_bias)
        value_info(&g, 11, "B", et, &p->out_channels, 1);
    value_info(&g, 12, "Y", et, yd, R + 2);
    field_int(m, 1, 7);  /* ir_version */
    field_str(m, 2, "iohw");
    field_msg(m, 7, &g);
    field_int(&op, 2, 11);
    field_msg(m, 8, &op);
}

int iohw__show_as_onnx(const iohw__show_as_case *k, FILE *out, iohw_error *err)
{
    const iohw_problem *p = &k->c->p;
    const int R = (int)p->rank;
    int64_t xd[5] = {p->batch, p->in_channels}, wd[5] = {p->in_channels,
                                                         p->out_channels / p->groups},
            yd[5] = {p->batch, p->out_channels};
    char dir[4200], path[4300];
    buf m = {0};
    if (k->out_dir == NULL)
        return iohw_error_set(err, "--as onnx writes a folder: give -o DIR");
    if (p->dtype == IOHW_BF16)
        return iohw_error_set(err, "case '%s' is bf16: ConvTranspose of opset 11 takes "
                              "float16, float and double only", k->c->id);
    for (int a = 0; a < R; a++) {
        xd[2 + a] = p->in_size[a];
        wd[2 + a] = p->kernel[a];
        yd[2 + a] = p->out_size[a];
    }
    snprintf(dir, sizeof dir, "%s/test_data_set_0", k->out_dir);
    if ((mkdir(k->out_dir, 0777) != 0 && errno != EEXIST) ||
        (mkdir(dir, 0777) != 0 && errno != EEXIST))
        return iohw_error_set(err, "%s: cannot create: %s", dir, strerror(errno));
    model(k, xd, wd, yd, &m);
    snprintf(path, sizeof path, "%s/model.onnx", k->out_dir);
    FILE *f = m.failed ? NULL : fopen(path, "wb");
    int ok = f != NULL && fwrite(m.p, 1, m.n, f) == m.n;
    if (f != NULL)
        ok &= fclose(f) == 0;
    free(m.p);
    if (!ok)
        return iohw_error_set(err, "%s: cannot write", path);
    if (write_tensor(dir, "input_0.pb", "X", p->dtype, xd, R + 2, k->x, k->nx, err) != 0 ||
        write_tensor(dir, "input_1.pb", "W", p->dtype, wd, R + 2, k->w, k->nw, err) != 0 ||
        (p->has_bias && write_tensor(dir, "input_2.pb", "B", p->dtype, &p->out_channels, 1,
                                     k->bias, p->out_channels, err) != 0) ||
        write_tensor(dir, "output_0.pb", "Y", p->dtype, yd, R + 2, k->y_f64, k->ny, err) != 0)
        return -1;
    fprintf(out, "%s/model.onnx: ConvTranspose (opset 11) of case %s, with %s/ input_0.pb "
            "(X), input_1.pb (W)%s and output_0.pb (the oracle's y)\n", k->out_dir,
            k->c->id, dir, p->has_bias ? ", input_2.pb (B)" : "");
    return 0;
}
