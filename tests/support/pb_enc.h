/*
 * tests/support/pb_enc.h - a protobuf encoder for the tests of `iohw import
 * onnx`: the wire format written by hand (key = field << 3 | wire type;
 * varint 0, 64-bit 1, length-delimited 2, 32-bit 5), so the messages the
 * tests read are not produced by the code under test.
 */
#ifndef IOHW_TEST_PB_ENC_H
#define IOHW_TEST_PB_ENC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct enc {
    uint8_t b[512];
    size_t n;
} enc;

static inline void put_varint(enc *e, uint64_t v)
{
    do {
        e->b[e->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v != 0);
}

static inline void put_key(enc *e, unsigned field, unsigned wire)
{
    put_varint(e, (uint64_t)field << 3 | wire);
}

static inline void put_int(enc *e, unsigned field, uint64_t v)
{
    put_key(e, field, 0);
    put_varint(e, v);
}

static inline void put_bytes(enc *e, unsigned field, const void *p, size_t n)
{
    put_key(e, field, 2);
    put_varint(e, n);
    memcpy(e->b + e->n, p, n);
    e->n += n;
}

static inline void put_str(enc *e, unsigned field, const char *s)
{
    put_bytes(e, field, s, strlen(s));
}

static inline void put_msg(enc *e, unsigned field, const enc *m)
{
    put_bytes(e, field, m->b, m->n);
}

#endif
