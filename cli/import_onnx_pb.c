/*
 * cli/import_onnx_pb.c - the protobuf wire format (varint, 64-bit,
 * length-delimited and 32-bit fields; groups refused) and the ONNX messages
 * of onnx/onnx onnx/onnx.proto that `iohw import onnx` reads
 * (specification section 12).  Unknown fields are skipped, never entered,
 * so nesting cannot grow the stack; every length is checked against the
 * bytes left.
 */
#include "cli/import_onnx_pb.h"

#include <inttypes.h>
#include <string.h>

typedef struct rd {
    const uint8_t *p, *end;
} rd;

typedef struct fld {
    uint32_t num;
    int wire;
    uint64_t v;          /* varint, fixed32 or fixed64 */
    iohw__pb_bytes b;    /* length-delimited */
} fld;

enum { W_VARINT = 0, W_I64 = 1, W_LEN = 2, W_I32 = 5 };

int iohw__pb_is(iohw__pb_bytes b, const char *s)
{
    return b.n == strlen(s) && memcmp(b.p, s, b.n) == 0;
}

static int varint(rd *r, uint64_t *v, const char *msg, iohw_error *err)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return iohw_error_set(err, "%s: truncated varint", msg);
        const uint8_t b = *r->p++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0)
            return 0;
    }
    return iohw_error_set(err, "%s: varint longer than 10 bytes", msg);
}

/* The next field of r into f: 1, 0 at the end, -1 on a bad field. */
static int next(rd *r, fld *f, const char *msg, iohw_error *err)
{
    uint64_t key, n;
    if (r->p >= r->end)
        return 0;
    if (varint(r, &key, msg, err) != 0)
        return -1;
    f->num = (uint32_t)(key >> 3);
    f->wire = (int)(key & 7);
    if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
        return iohw_error_set(err, "%s: field number %" PRIu64 " out of range", msg, key >> 3);
    const size_t left = (size_t)(r->end - r->p);
    switch (f->wire) {
    case W_VARINT:
        return varint(r, &f->v, msg, err) != 0 ? -1 : 1;
    case W_I64:
    case W_I32:
        n = f->wire == W_I64 ? 8 : 4;
        if (left < n)
            return iohw_error_set(err, "%s: field %" PRIu32 ": truncated %d-bit value", msg,
                                  f->num, (int)n * 8);
        f->v = 0;
        for (unsigned i = 0; i < n; i++)
            f->v |= (uint64_t)r->p[i] << (8 * i);
        r->p += n;
        return 1;
    case W_LEN:
        if (varint(r, &n, msg, err) != 0)
            return -1;
        if (n > (uint64_t)(r->end - r->p))
            return iohw_error_set(err, "%s: field %" PRIu32 ": length %" PRIu64 " exceeds "
                                  "the %zu bytes left", msg, f->num, n,
                                  (size_t)(r->end - r->p));
        f->b.p = r->p;
        f->b.n = (size_t)n;
        r->p += n;
        return 1;
    default:
        return iohw_error_set(err, "%s: field %" PRIu32 ": wire type %d is not supported "
                              "(groups are not used by ONNX)", msg, f->num, f->wire);
    }
}

static int want(const fld *f, int wire, const char *msg, const char *name, iohw_error *err)
{
    if (f->wire == wire)
        return 0;
    return iohw_error_set(err, "%s.%s (field %" PRIu32 "): wire type %d, expected %d", msg,
                          name, f->num, f->wire, wire);
}

/* A repeated int64 field, packed or not, appended to out[*n < max]. */
static int add_ints(const fld *f, int64_t *out, int *n, int max, const char *msg,
                    const char *name, iohw_error *err)
{
    if (f->wire == W_VARINT) {
        if (*n >= max)
            return iohw_error_set(err, "%s.%s: more than %d values", msg, name, max);
        out[(*n)++] = (int64_t)f->v;
        return 0;
    }
    if (want(f, W_LEN, msg, name, err) != 0)
        return -1;
    rd r = {f->b.p, f->b.p + f->b.n};
    while (r.p < r.end) {
        uint64_t v;
        if (*n >= max)
            return iohw_error_set(err, "%s.%s: more than %d values", msg, name, max);
        if (varint(&r, &v, msg, err) != 0)
            return iohw_error_prefix(err, "%s.%s", msg, name);
        out[(*n)++] = (int64_t)v;
    }
    return 0;
}

int iohw__pb_tensor_parse(const uint8_t *buf, size_t n, iohw__pb_tensor *t, iohw_error *err)
{
    static const char M[] = "TensorProto";
    rd r = {buf, buf + n};
    fld f;
    int k;
    memset(t, 0, sizeof *t);
    t->msg = buf;
    t->msg_n = n;
    while ((k = next(&r, &f, M, err)) == 1) {
        if (f.num == 1 && add_ints(&f, t->dims, &t->ndims, IOHW__PB_MAX_DIMS, M, "dims",
                                   err) != 0)
            return -1;
        if (f.num == 2) {
            if (want(&f, W_VARINT, M, "data_type", err) != 0)
                return -1;
            t->data_type = (int32_t)f.v;
        } else if (f.num == 4 && f.wire == W_I32) {
            t->nfloats_unpacked++;
        } else if (f.num == 4 || f.num == 8 || f.num == 9) {
            const char *name = f.num == 4 ? "float_data" : f.num == 8 ? "name" : "raw_data";
            if (want(&f, W_LEN, M, name, err) != 0)
                return -1;
            *(f.num == 4 ? &t->floats : f.num == 8 ? &t->name : &t->raw) = f.b;
        } else if (f.num == 12 || f.num == 13) {
            return iohw_error_set(err, "%s: external_data / data_location: tensors stored "
                                  "outside the file are not read", M);
        }
    }
    if (k < 0)
        return -1;
    for (int i = 0; i < t->ndims; i++)
        if (t->dims[i] < 0 || t->dims[i] > ((int64_t)1 << 31))
            return iohw_error_set(err, "%s.dims[%d] = %" PRId64 ": must be 0 to 2^31", M, i,
                                  t->dims[i]);
    return 0;
}

int iohw__pb_tensor_floats(const iohw__pb_tensor *t, float *out, int64_t count,
                           iohw_error *err)
{
    if (t->data_type != 1)
        return iohw_error_set(err, "TensorProto.data_type = %" PRId32 ": only FLOAT (1) "
                              "is imported", t->data_type);
    const int64_t have = t->raw.n > 0 ? (int64_t)(t->raw.n / 4)
                         : t->floats.n > 0 ? (int64_t)(t->floats.n / 4)
                                           : t->nfloats_unpacked;
    const iohw__pb_bytes *b = t->raw.n > 0 ? &t->raw : &t->floats;
    if (have != count || (b->n > 0 && b->n % 4 != 0))
        return iohw_error_set(err, "TensorProto %s: holds %" PRId64 " float values, its "
                              "dims give %" PRId64, t->raw.n > 0 ? "raw_data" : "float_data",
                              have, count);
    if (b->n > 0) {
        for (int64_t i = 0; i < count; i++) {
            uint32_t u = (uint32_t)b->p[4 * i] | (uint32_t)b->p[4 * i + 1] << 8 |
                         (uint32_t)b->p[4 * i + 2] << 16 | (uint32_t)b->p[4 * i + 3] << 24;
            memcpy(&out[i], &u, 4);
        }
        return 0;
    }
    rd r = {t->msg, t->msg + t->msg_n};
    fld f;
    int64_t i = 0;
    while (next(&r, &f, "TensorProto", err) == 1)
        if (f.num == 4 && f.wire == W_I32) {
            uint32_t u = (uint32_t)f.v;
            memcpy(&out[i++], &u, 4);
        }
    return 0;
}

int iohw__pb_tensor_raw(const iohw__pb_tensor *t, size_t es, void *out, int64_t count,
                        iohw_error *err)
{
    if (t->raw.n != (size_t)count * es)
        return iohw_error_set(err, "TensorProto raw_data: holds %zu bytes, its dims give "
                              "%" PRId64 " values of %zu bytes", t->raw.n, count, es);
    memcpy(out, t->raw.p, t->raw.n);  /* little-endian, as the host's */
    return 0;
}

static int attr_parse(iohw__pb_bytes b, iohw__pb_attr *a, iohw_error *err)
{
    static const char M[] = "AttributeProto";
    rd r = {b.p, b.p + b.n};
    fld f;
    int k;
    memset(a, 0, sizeof *a);
    while ((k = next(&r, &f, M, err)) == 1) {
        if (f.num == 1 || f.num == 4) {
            if (want(&f, W_LEN, M, f.num == 1 ? "name" : "s", err) != 0)
                return -1;
            *(f.num == 1 ? &a->name : &a->s) = f.b;
        } else if (f.num == 3 || f.num == 20) {
            if (want(&f, W_VARINT, M, f.num == 3 ? "i" : "type", err) != 0)
                return -1;
            if (f.num == 3)
                a->i = (int64_t)f.v;
            else
                a->type = (int32_t)f.v;
        } else if (f.num == 8 &&
                   add_ints(&f, a->ints, &a->nints, IOHW__PB_MAX_INTS, M, "ints", err) != 0) {
            return -1;
        }
    }
    return k < 0 ? -1 : 0;
}

static int node_parse(iohw__pb_bytes b, iohw__pb_node *nd, iohw_error *err)
{
    static const char M[] = "NodeProto";
    rd r = {b.p, b.p + b.n};
    fld f;
    int k;
    memset(nd, 0, sizeof *nd);
    while ((k = next(&r, &f, M, err)) == 1) {
        if (f.num == 1 || f.num == 4 || f.num == 7) {
            const char *name = f.num == 1 ? "input" : f.num == 4 ? "op_type" : "domain";
            if (want(&f, W_LEN, M, name, err) != 0)
                return -1;
            if (f.num == 1 && nd->ninput >= IOHW__PB_MAX_NAMES)
                return iohw_error_set(err, "%s.input: more than %d", M, IOHW__PB_MAX_NAMES);
            *(f.num == 1 ? &nd->input[nd->ninput++] : f.num == 4 ? &nd->op_type
                                                                  : &nd->domain) = f.b;
        } else if (f.num == 5) {
            if (want(&f, W_LEN, M, "attribute", err) != 0)
                return -1;
            if (nd->nattr >= IOHW__PB_MAX_ATTRS)
                return iohw_error_set(err, "%s.attribute: more than %d", M,
                                      IOHW__PB_MAX_ATTRS);
            if (attr_parse(f.b, &nd->attr[nd->nattr], err) != 0)
                return iohw_error_prefix(err, "%s.attribute[%d]", M, nd->nattr);
            nd->nattr++;
        }
    }
    return k < 0 ? -1 : 0;
}

/* ValueInfoProto.name (field 1). */
static int value_name(iohw__pb_bytes b, iohw__pb_bytes *name, iohw_error *err)
{
    rd r = {b.p, b.p + b.n};
    fld f;
    int k;
    name->p = NULL;
    name->n = 0;
    while ((k = next(&r, &f, "ValueInfoProto", err)) == 1)
        if (f.num == 1 && want(&f, W_LEN, "ValueInfoProto", "name", err) != 0)
            return -1;
        else if (f.num == 1)
            *name = f.b;
    return k < 0 ? -1 : 0;
}

static int graph_parse(iohw__pb_bytes b, iohw__pb_model *m, iohw_error *err)
{
    static const char M[] = "GraphProto";
    rd r = {b.p, b.p + b.n};
    fld f;
    int k;
    while ((k = next(&r, &f, M, err)) == 1) {
        if (f.num != 1 && f.num != 5 && f.num != 11)
            continue;
        const char *name = f.num == 1 ? "node" : f.num == 5 ? "initializer" : "input";
        if (want(&f, W_LEN, M, name, err) != 0)
            return -1;
        if (f.num == 1 && m->nnodes++ == 0 && node_parse(f.b, &m->node, err) != 0)
            return iohw_error_prefix(err, "%s.node[0]", M);
        if (f.num == 5) {
            if (m->ninit >= IOHW__PB_MAX_INIT)
                return iohw_error_set(err, "%s.initializer: more than %d", M,
                                      IOHW__PB_MAX_INIT);
            if (iohw__pb_tensor_parse(f.b.p, f.b.n, &m->init[m->ninit], err) != 0)
                return iohw_error_prefix(err, "%s.initializer[%d]", M, m->ninit);
            m->ninit++;
        }
        if (f.num == 11) {
            if (m->ninput >= IOHW__PB_MAX_NAMES)
                return iohw_error_set(err, "%s.input: more than %d", M, IOHW__PB_MAX_NAMES);
            if (value_name(f.b, &m->input[m->ninput], err) != 0)
                return iohw_error_prefix(err, "%s.input[%d]", M, m->ninput);
            m->ninput++;
        }
    }
    return k < 0 ? -1 : 0;
}

/* OperatorSetIdProto: the default domain's version into m->opset. */
static int opset_parse(iohw__pb_bytes b, iohw__pb_model *m, iohw_error *err)
{
    rd r = {b.p, b.p + b.n};
    fld f;
    int k, other = 0;
    int64_t v = 0;
    while ((k = next(&r, &f, "OperatorSetIdProto", err)) == 1) {
        if (f.num == 1)
            other = f.wire != W_LEN || (f.b.n > 0 && !iohw__pb_is(f.b, "ai.onnx"));
        else if (f.num == 2 && f.wire == W_VARINT)
            v = (int64_t)f.v;
    }
    if (k == 0 && !other)
        m->opset = v;
    return k < 0 ? -1 : 0;
}

int iohw__pb_model_parse(const uint8_t *buf, size_t n, iohw__pb_model *m, iohw_error *err)
{
    static const char M[] = "ModelProto";
    rd r = {buf, buf + n};
    fld f;
    int k, graphs = 0;
    memset(m, 0, sizeof *m);
    while ((k = next(&r, &f, M, err)) == 1) {
        if (f.num == 7) {
            if (want(&f, W_LEN, M, "graph", err) != 0)
                return -1;
            if (graphs++ == 0 && graph_parse(f.b, m, err) != 0)
                return iohw_error_prefix(err, "%s.graph", M);
        } else if (f.num == 8) {
            if (want(&f, W_LEN, M, "opset_import", err) != 0 ||
                opset_parse(f.b, m, err) != 0)
                return -1;
        }
    }
    if (k < 0)
        return -1;
    if (graphs == 0)
        return iohw_error_set(err, "%s: no graph (field 7)", M);
    return 0;
}
