/*
 * cases/h5attr.c - typed, checked reading and writing of HDF5 attributes
 * (see h5util.h).
 *
 * A reader opens the attribute, checks its extent (scalar or one
 * dimension of the needed length) and its class before reading, and reads
 * through a memory type that cannot lose information silently: signed
 * integers as int64, unsigned ones as uint64 (then range-checked), enums
 * (h5py's bool) as their own native type, fixed-length strings as raw
 * bytes, variable-length strings as char pointers released with
 * H5free_memory.
 */
#include "cases/h5util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest fixed-length string type read at all (before trimming). */
#define RAW_STRING_MAX ((size_t)1 << 20)

int iohw__h5_has_attr(hid_t loc, const char *name, iohw_error *err)
{
    htri_t e = H5Aexists(loc, name);
    if (e < 0)
        return iohw__h5_fail(err, "cannot look up attribute '%s'", name);
    return e > 0;
}

/* Opens an attribute with its type and space, or fails naming it. */
static int open_attr(hid_t loc, const char *name, hid_t *a, hid_t *t,
                     hid_t *s, iohw_error *err)
{
    *a = *t = *s = -1;
    int has = iohw__h5_has_attr(loc, name, err);
    if (has < 0)
        return -1;
    if (!has)
        return iohw_error_set(err, "attribute '%s' is missing", name);
    *a = H5Aopen(loc, name, H5P_DEFAULT);
    if (*a < 0)
        return iohw__h5_fail(err, "attribute '%s': cannot open", name);
    *t = H5Aget_type(*a);
    if (*t < 0)
        return iohw__h5_fail(err, "attribute '%s': cannot get its type",
                             name);
    *s = H5Aget_space(*a);
    if (*s < 0)
        return iohw__h5_fail(err, "attribute '%s': cannot get its extent",
                             name);
    return 0;
}

static void close_attr(hid_t a, hid_t t, hid_t s)
{
    iohw__h5_close(s);
    iohw__h5_close(t);
    iohw__h5_close(a);
}

/* Checks that an attribute's space holds n values: a scalar (n = 1) or
 * one dimension of length n. */
static int check_extent(hid_t s, const char *name, int n, iohw_error *err)
{
    H5S_class_t cls = H5Sget_simple_extent_type(s);
    if (cls == H5S_SCALAR) {
        if (n == 1)
            return 0;
        return iohw_error_set(err, "attribute '%s' holds one value, but %d "
                              "are needed (one per spatial axis)", name, n);
    }
    if (cls != H5S_SIMPLE)
        return iohw_error_set(err, "attribute '%s' holds no value", name);
    int ndims = H5Sget_simple_extent_ndims(s);
    hssize_t npoints = H5Sget_simple_extent_npoints(s);
    if (ndims != 1 || npoints != n)
        return iohw_error_set(err, "attribute '%s' holds %lld value(s) in %d "
                              "dimension(s), but %d %s needed%s", name,
                              (long long)npoints, ndims, n,
                              n == 1 ? "is" : "are",
                              n == 1 ? "" : " (one per spatial axis)");
    return 0;
}

/* Decodes one native integer of `size` bytes. */
static int64_t decode_native(const unsigned char *p, size_t size, int sign,
                             uint64_t *u)
{
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    *u = 0;
    switch (size) {
    case 1:
        if (sign) { memcpy(&i8, p, 1); return i8; }
        memcpy(&u8, p, 1); *u = u8; return 0;
    case 2:
        if (sign) { memcpy(&i16, p, 2); return i16; }
        memcpy(&u16, p, 2); *u = u16; return 0;
    case 4:
        if (sign) { memcpy(&i32, p, 4); return i32; }
        memcpy(&u32, p, 4); *u = u32; return 0;
    default:
        if (sign) { memcpy(&i64, p, 8); return i64; }
        memcpy(&u64, p, 8); *u = u64; return 0;
    }
}

/* Reads n (<= 8) integers as int64 into v, or, for unsigned types, as
 * uint64 into u (*is_unsigned set). */
static int read_integers(hid_t a, hid_t t, const char *name, int n,
                         int64_t *v, uint64_t *u, int *is_unsigned,
                         iohw_error *err)
{
    H5T_class_t cls = H5Tget_class(t);
    hid_t base = cls == H5T_ENUM ? H5Tget_super(t) : H5Tcopy(t);
    char have[64];
    int rc = -1;

    if (cls != H5T_INTEGER && cls != H5T_ENUM) {
        iohw__h5_describe_type(t, have, sizeof have);
        iohw_error_set(err, "attribute '%s' has type %s, not an integer "
                       "type", name, have);
        goto done;
    }
    if (base < 0 || H5Tget_class(base) != H5T_INTEGER ||
        H5Tget_size(base) > 8) {
        iohw_error_set(err, "attribute '%s' is not an integer of at most "
                       "64 bits", name);
        goto done;
    }
    *is_unsigned = H5Tget_sign(base) == H5T_SGN_NONE;
    if (cls == H5T_INTEGER) {
        /* The library converts between integer types. */
        herr_t r = *is_unsigned ? H5Aread(a, H5T_NATIVE_UINT64, u)
                                : H5Aread(a, H5T_NATIVE_INT64, v);
        if (r < 0) {
            iohw__h5_fail(err, "attribute '%s': cannot read", name);
            goto done;
        }
    } else {
        /* An enum (h5py's bool): read as its own native type, decode. */
        unsigned char raw[64];
        hid_t mem = H5Tget_native_type(t, H5T_DIR_ASCEND);
        size_t size = mem < 0 ? 0 : H5Tget_size(mem);
        if (size != 1 && size != 2 && size != 4 && size != 8) {
            iohw__h5_fail(err, "attribute '%s': cannot read", name);
            iohw__h5_close(mem);
            goto done;
        }
        herr_t r = H5Aread(a, mem, raw);
        if (r < 0)
            iohw__h5_fail(err, "attribute '%s': cannot read", name);
        H5Tclose(mem);
        if (r < 0)
            goto done;
        for (int i = 0; i < n; i++)
            v[i] = decode_native(raw + (size_t)i * size, size, !*is_unsigned,
                                 &u[i]);
    }
    rc = 0;
done:
    iohw__h5_close(base);
    return rc;
}

int iohw__h5_read_ints(hid_t loc, const char *name, int n, int64_t *v,
                       iohw_error *err)
{
    hid_t a, t, s;
    uint64_t u[8];
    int is_unsigned = 0;
    int rc = -1;

    if (n < 1 || n > 8)
        return iohw_error_set(err, "attribute '%s': %d values requested",
                              name, n);
    if (open_attr(loc, name, &a, &t, &s, err) != 0 ||
        check_extent(s, name, n, err) != 0 ||
        read_integers(a, t, name, n, v, u, &is_unsigned, err) != 0)
        goto done;
    if (is_unsigned) {
        for (int i = 0; i < n; i++) {
            if (u[i] > (uint64_t)INT64_MAX) {
                iohw_error_set(err, "attribute '%s' holds %llu, beyond the "
                               "int64 range", name, (unsigned long long)u[i]);
                goto done;
            }
            v[i] = (int64_t)u[i];
        }
    }
    rc = 0;
done:
    close_attr(a, t, s);
    return rc;
}

int iohw__h5_read_u64(hid_t loc, const char *name, uint64_t *v,
                      iohw_error *err)
{
    hid_t a, t, s;
    int64_t sv = 0;
    int is_unsigned = 0;
    int rc = -1;

    if (open_attr(loc, name, &a, &t, &s, err) != 0 ||
        check_extent(s, name, 1, err) != 0 ||
        read_integers(a, t, name, 1, &sv, v, &is_unsigned, err) != 0)
        goto done;
    if (!is_unsigned) {
        if (sv < 0) {
            iohw_error_set(err, "attribute '%s' is %lld; it must not be "
                           "negative", name, (long long)sv);
            goto done;
        }
        *v = (uint64_t)sv;
    }
    rc = 0;
done:
    close_attr(a, t, s);
    return rc;
}

/* Reads the bytes of a string attribute into a malloc'd NUL-terminated
 * buffer. */
static int read_raw_string(hid_t a, hid_t t, const char *name, char **out,
                           iohw_error *err)
{
    *out = NULL;
    htri_t var = H5Tis_variable_str(t);
    if (var < 0)
        return iohw__h5_fail(err, "attribute '%s'", name);
    if (var) {
        hid_t mem = H5Tcopy(H5T_C_S1);
        char *p = NULL;
        if (mem < 0 || H5Tset_size(mem, H5T_VARIABLE) < 0 ||
            H5Tset_cset(mem, H5Tget_cset(t)) < 0 ||
            H5Aread(a, mem, &p) < 0) {
            iohw__h5_fail(err, "attribute '%s': cannot read", name);
            iohw__h5_close(mem);
            return -1;
        }
        H5Tclose(mem);
        size_t len = p == NULL ? 0 : strnlen(p, RAW_STRING_MAX + 1);
        if (len <= RAW_STRING_MAX) {
            *out = malloc(len + 1);
            if (*out != NULL) {
                memcpy(*out, len ? p : "", len);
                (*out)[len] = '\0';
            }
        }
        if (p != NULL)
            H5free_memory(p);
        if (len > RAW_STRING_MAX)
            return iohw_error_set(err, "attribute '%s' is longer than %zu "
                                  "bytes", name, RAW_STRING_MAX);
        if (*out == NULL)
            return iohw_error_set(err, "attribute '%s': out of memory", name);
        return 0;
    }

    /* Fixed length: the raw bytes, cut at the first NUL, and trailing
     * blanks dropped for space-padded strings. */
    size_t size = H5Tget_size(t);
    if (size == 0 || size > RAW_STRING_MAX)
        return iohw_error_set(err, "attribute '%s' is a %zu-byte string, "
                              "longer than %zu bytes", name, size,
                              RAW_STRING_MAX);
    char *buf = malloc(size + 1);
    if (buf == NULL)
        return iohw_error_set(err, "attribute '%s': out of memory", name);
    hid_t mem = H5Tcopy(t);
    if (mem < 0 || H5Aread(a, mem, buf) < 0) {
        iohw__h5_fail(err, "attribute '%s': cannot read", name);
        iohw__h5_close(mem);
        free(buf);
        return -1;
    }
    H5Tclose(mem);
    buf[size] = '\0';
    size_t len = strlen(buf);
    if (H5Tget_strpad(t) == H5T_STR_SPACEPAD)
        while (len > 0 && buf[len - 1] == ' ')
            buf[--len] = '\0';
    *out = buf;
    return 0;
}

int iohw__h5_read_string(hid_t loc, const char *name, size_t max, char **s,
                         iohw_error *err)
{
    hid_t a, t, sp;
    char *str = NULL;
    char have[64];
    int rc = -1;

    *s = NULL;
    if (open_attr(loc, name, &a, &t, &sp, err) != 0 ||
        check_extent(sp, name, 1, err) != 0)
        goto done;
    if (H5Tget_class(t) != H5T_STRING) {
        iohw__h5_describe_type(t, have, sizeof have);
        iohw_error_set(err, "attribute '%s' has type %s, not string", name,
                       have);
        goto done;
    }
    if (read_raw_string(a, t, name, &str, err) != 0)
        goto done;

    /* Length and characters. */
    size_t len = strlen(str);
    if (len > max) {
        iohw_error_set(err, "attribute '%s' is %zu characters long, more "
                       "than %zu", name, len, max);
        goto done;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)str[i];
        if (ch < 0x20 || ch == 0x7f) {
            iohw_error_set(err, "attribute '%s' holds the control character "
                           "0x%02x at offset %zu", name, ch, i);
            goto done;
        }
    }
    *s = str;
    str = NULL;
    rc = 0;
done:
    free(str);
    close_attr(a, t, sp);
    return rc;
}

/* --- writing ------------------------------------------------------------- */

/* Creates attribute `name` of file type ft and extent n (0 = scalar) and
 * writes buf of memory type mt into it. */
static int write_attr(hid_t loc, const char *name, hid_t ft, hid_t mt,
                      int n, const void *buf, iohw_error *err)
{
    hsize_t dims[1] = {(hsize_t)n};
    hid_t s = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    hid_t a = s < 0 ? -1 : H5Acreate2(loc, name, ft, s, H5P_DEFAULT,
                                      H5P_DEFAULT);
    int rc = 0;
    if (a < 0 || H5Awrite(a, mt, buf) < 0)
        rc = iohw__h5_fail(err, "cannot write attribute '%s'", name);
    iohw__h5_close(a);
    iohw__h5_close(s);
    return rc;
}

int iohw__h5_write_i32(hid_t loc, const char *name, int32_t v,
                       iohw_error *err)
{
    return write_attr(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, 0, &v, err);
}

int iohw__h5_write_i64(hid_t loc, const char *name, int64_t v,
                       iohw_error *err)
{
    return write_attr(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &v, err);
}

int iohw__h5_write_u64(hid_t loc, const char *name, uint64_t v,
                       iohw_error *err)
{
    return write_attr(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &v,
                      err);
}

int iohw__h5_write_i64s(hid_t loc, const char *name, int n, const int64_t *v,
                        iohw_error *err)
{
    return write_attr(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, n, v, err);
}

int iohw__h5_write_string(hid_t loc, const char *name, const char *s,
                          iohw_error *err)
{
    /* Fixed length, sized to the text (an empty text is one NUL). */
    const size_t len = strlen(s);
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, len > 0 ? len : 1) < 0 ||
        H5Tset_strpad(t, H5T_STR_NULLPAD) < 0 ||
        H5Tset_cset(t, H5T_CSET_ASCII) < 0) {
        iohw__h5_fail(err, "cannot make the type of attribute '%s'", name);
        iohw__h5_close(t);
        return -1;
    }
    int rc = write_attr(loc, name, t, t, 0, s, err);
    H5Tclose(t);
    return rc;
}

int iohw__h5_write_f32(hid_t loc, const char *name, float v, iohw_error *err)
{
    return write_attr(loc, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 0, &v, err);
}

int iohw__h5_read_f32(hid_t loc, const char *name, float *v, iohw_error *err)
{
    hid_t a, t, s;
    int rc = -1;
    if (open_attr(loc, name, &a, &t, &s, err) != 0 ||
        check_extent(s, name, 1, err) != 0)
        goto done;
    if (H5Tget_class(t) != H5T_FLOAT || H5Tget_size(t) != 4) {
        char have[64];
        iohw__h5_describe_type(t, have, sizeof have);
        iohw_error_set(err, "attribute '%s' has type %s; it must be float32",
                       name, have);
        goto done;
    }
    if (H5Aread(a, H5T_NATIVE_FLOAT, v) < 0) {
        iohw__h5_fail(err, "attribute '%s': cannot read", name);
        goto done;
    }
    rc = 0;
done:
    close_attr(a, t, s);
    return rc;
}
