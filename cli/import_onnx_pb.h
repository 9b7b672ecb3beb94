/*
 * cli/import_onnx_pb.h - a small reader of the protobuf wire format and of
 * the ONNX messages `iohw import onnx` needs (specification section 12;
 * onnx/onnx onnx/onnx.proto: ModelProto, GraphProto, NodeProto,
 * AttributeProto, TensorProto, ValueInfoProto).
 *
 * Every length is checked against the bytes left, nesting is bounded, and
 * every failure names the message and field ("GraphProto.node[1]:
 * NodeProto.op_type: ...").  Nothing is copied: strings and tensor bytes
 * point into the caller's buffer.
 */
#ifndef IOHW_IMPORT_ONNX_PB_H
#define IOHW_IMPORT_ONNX_PB_H

#include <stddef.h>
#include <stdint.h>

#include "oracle/error.h"

#define IOHW__PB_MAX_DIMS 8
#define IOHW__PB_MAX_INTS 16
#define IOHW__PB_MAX_NAMES 8

/* A string or bytes field: not NUL-terminated. */
typedef struct iohw__pb_bytes {
    const uint8_t *p;
    size_t n;
} iohw__pb_bytes;

/* TensorProto: dims, data_type, name, and the data as raw_data or the
 * packed or unpacked float_data (field 4) values. */
typedef struct iohw__pb_tensor {
    int64_t dims[IOHW__PB_MAX_DIMS];
    int ndims;
    int32_t data_type;          /* 1: FLOAT */
    iohw__pb_bytes name;
    iohw__pb_bytes raw;         /* raw_data, little-endian */
    iohw__pb_bytes floats;      /* packed float_data */
    int64_t nfloats_unpacked;   /* float_data given one by one (fixed32) */
    const uint8_t *msg;         /* the whole message, to read them again */
    size_t msg_n;
} iohw__pb_tensor;

/* AttributeProto: name, i, s, ints. */
typedef struct iohw__pb_attr {
    iohw__pb_bytes name;
    int32_t type;               /* 2 INT, 3 STRING, 7 INTS */
    int64_t i;
    iohw__pb_bytes s;
    int64_t ints[IOHW__PB_MAX_INTS];
    int nints;
} iohw__pb_attr;

#define IOHW__PB_MAX_ATTRS 16

typedef struct iohw__pb_node {
    iohw__pb_bytes input[IOHW__PB_MAX_NAMES];
    int ninput;
    iohw__pb_bytes op_type, domain;
    iohw__pb_attr attr[IOHW__PB_MAX_ATTRS];
    int nattr;
} iohw__pb_node;

#define IOHW__PB_MAX_INIT 4

/* ModelProto.graph with its one node, its input names and initializers,
 * and the default domain's opset. */
typedef struct iohw__pb_model {
    int64_t opset;              /* 0: not stated */
    int nnodes;
    iohw__pb_node node;         /* the first node */
    iohw__pb_bytes input[IOHW__PB_MAX_NAMES];
    int ninput;
    iohw__pb_tensor init[IOHW__PB_MAX_INIT];
    int ninit;
} iohw__pb_model;

/* Parses a ModelProto; 0, or -1 naming the field. */
int iohw__pb_model_parse(const uint8_t *buf, size_t n, iohw__pb_model *m,
                         iohw_error *err);

/* Parses a TensorProto; 0, or -1 naming the field. */
int iohw__pb_tensor_parse(const uint8_t *buf, size_t n, iohw__pb_tensor *t,
                          iohw_error *err);

/* Copies a FLOAT tensor's count values into out: -1 when its type is not
 * FLOAT or its data holds another number of values. */
int iohw__pb_tensor_floats(const iohw__pb_tensor *t, float *out, int64_t count,
                           iohw_error *err);

/* Copies raw_data, which must hold count values of es bytes, into out
 * (the little-endian bytes as they are: the host is little-endian). */
int iohw__pb_tensor_raw(const iohw__pb_tensor *t, size_t es, void *out, int64_t count,
                        iohw_error *err);

/* 1 when b holds exactly the text s. */
int iohw__pb_is(iohw__pb_bytes b, const char *s);

#endif
