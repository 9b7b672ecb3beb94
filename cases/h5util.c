/*
 * cases/h5util.c - HDF5 error stacks as iohw_error messages, the element
 * types of the case dtypes, and checked opening of links (see h5util.h).
 *
 * The element types (specification section 4):
 *   f32  IEEE binary32, little-endian in files (H5T_IEEE_F32LE)
 *   f64  IEEE binary64, little-endian in files (H5T_IEEE_F64LE)
 *   f16  IEEE binary16: sign bit 15, exponent bits 10..14 (bias 15),
 *        mantissa bits 0..9 - made as h5py makes its float16 type, from a
 *        binary32 type with its fields, size and bias changed
 *   bf16 the 16-bit pattern as an unsigned integer (H5T_STD_U16LE); the
 *        dataset carries the attribute encoding = "bf16"
 */
#include "cases/h5util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void iohw__h5_quiet(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* What the walk over an error stack keeps: the outermost (API) and the
 * innermost (most specific) descriptions. */
typedef struct stack_text {
    char outer[256];
    char inner[256];
    int n;
} stack_text;

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    stack_text *t = data;
    const char *desc = e->desc != NULL && e->desc[0] != '\0'
                           ? e->desc
                           : (e->func_name != NULL ? e->func_name : "?");
    /* Walking upward, the first entry is the innermost. */
    if (n == 0)
        snprintf(t->inner, sizeof t->inner, "%s", desc);
    snprintf(t->outer, sizeof t->outer, "%s", desc);
    t->n++;
    return 0;
}

int iohw__h5_fail(iohw_error *err, const char *fmt, ...)
{
    char ctx[IOHW_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);

    stack_text t;
    memset(&t, 0, sizeof t);
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &t);
    H5Eclear2(H5E_DEFAULT);
    if (t.n == 0)
        return iohw_error_set(err, "%s: HDF5 call failed", ctx);
    if (t.n == 1 || strcmp(t.outer, t.inner) == 0)
        return iohw_error_set(err, "%s: %s", ctx, t.inner);
    return iohw_error_set(err, "%s: %s (%s)", ctx, t.outer, t.inner);
}

hid_t iohw__h5_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return -1;
    if (H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
        H5Pclose(fapl);
        return -1;
    }
#if H5_VERSION_GE(1, 10, 7)
    if (H5Pset_file_locking(fapl, 1, 1) < 0) {
        H5Pclose(fapl);
        return -1;
    }
#endif
    return fapl;
}

void iohw__h5_close(hid_t id)
{
    if (id < 0)
        return;
    switch (H5Iget_type(id)) {
    case H5I_FILE: H5Fclose(id); break;
    case H5I_GROUP: H5Gclose(id); break;
    case H5I_DATASET: H5Dclose(id); break;
    case H5I_DATATYPE: H5Tclose(id); break;
    case H5I_DATASPACE: H5Sclose(id); break;
    case H5I_ATTR: H5Aclose(id); break;
    case H5I_GENPROP_LST: H5Pclose(id); break;
    default: break;
    }
}

/* A binary16 type made from a binary32 one (as h5py makes float16). */
static hid_t f16_from(hid_t f32)
{
    hid_t t = H5Tcopy(f32);
    if (t < 0)
        return -1;
    if (H5Tset_fields(t, 15, 10, 5, 0, 10) < 0 || H5Tset_size(t, 2) < 0 ||
        H5Tset_ebias(t, 15) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

hid_t iohw__h5_file_type(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F32: return H5Tcopy(H5T_IEEE_F32LE);
    case IOHW_F64: return H5Tcopy(H5T_IEEE_F64LE);
    case IOHW_F16: return f16_from(H5T_IEEE_F32LE);
    case IOHW_BF16: return H5Tcopy(H5T_STD_U16LE);
    case IOHW_S8: return H5Tcopy(H5T_STD_I8LE);
    case IOHW_U8: return H5Tcopy(H5T_STD_U8LE);
    case IOHW_S32: return H5Tcopy(H5T_STD_I32LE);
    }
    return -1;
}

hid_t iohw__h5_mem_type(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F32: return H5Tcopy(H5T_NATIVE_FLOAT);
    case IOHW_F64: return H5Tcopy(H5T_NATIVE_DOUBLE);
    case IOHW_F16: return f16_from(H5T_NATIVE_FLOAT);
    case IOHW_BF16: return H5Tcopy(H5T_NATIVE_UINT16);
    case IOHW_S8: return H5Tcopy(H5T_NATIVE_INT8);
    case IOHW_U8: return H5Tcopy(H5T_NATIVE_UINT8);
    case IOHW_S32: return H5Tcopy(H5T_NATIVE_INT32);
    }
    return -1;
}

/* 1 when a float type is the IEEE binary format of `size` bytes (either
 * byte order). */
static int is_ieee(hid_t t, size_t size)
{
    static const struct {
        size_t size, spos, epos, esize, mpos, msize, ebias;
    } fmt[] = {
        {2, 15, 10, 5, 0, 10, 15},
        {4, 31, 23, 8, 0, 23, 127},
        {8, 63, 52, 11, 0, 52, 1023},
    };
    size_t spos, epos, esize, mpos, msize;
    H5T_order_t order = H5Tget_order(t);

    if (H5Tget_class(t) != H5T_FLOAT || H5Tget_size(t) != size)
        return 0;
    if (order != H5T_ORDER_LE && order != H5T_ORDER_BE)
        return 0;
    if (H5Tget_precision(t) != 8 * size || H5Tget_offset(t) != 0 ||
        H5Tget_norm(t) != H5T_NORM_IMPLIED)
        return 0;
    if (H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) < 0)
        return 0;
    for (size_t i = 0; i < sizeof fmt / sizeof fmt[0]; i++)
        if (fmt[i].size == size)
            return spos == fmt[i].spos && epos == fmt[i].epos &&
                   esize == fmt[i].esize && mpos == fmt[i].mpos &&
                   msize == fmt[i].msize && H5Tget_ebias(t) == fmt[i].ebias;
    return 0;
}

void iohw__h5_describe_type(hid_t t, char *buf, size_t n)
{
    const size_t size = H5Tget_size(t);
    switch (H5Tget_class(t)) {
    case H5T_INTEGER:
        snprintf(buf, n, "%sint%zu",
                 H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", 8 * size);
        return;
    case H5T_FLOAT:
        if (is_ieee(t, size))
            snprintf(buf, n, "float%zu", 8 * size);
        else
            snprintf(buf, n, "float (%zu bits, not an IEEE format)",
                     8 * size);
        return;
    case H5T_STRING: snprintf(buf, n, "string"); return;
    case H5T_ENUM: snprintf(buf, n, "enum"); return;
    case H5T_COMPOUND: snprintf(buf, n, "compound"); return;
    case H5T_ARRAY: snprintf(buf, n, "array"); return;
    case H5T_VLEN: snprintf(buf, n, "variable-length sequence"); return;
    case H5T_REFERENCE: snprintf(buf, n, "reference"); return;
    case H5T_OPAQUE: snprintf(buf, n, "opaque"); return;
    case H5T_BITFIELD: snprintf(buf, n, "bitfield"); return;
    case H5T_TIME: snprintf(buf, n, "time"); return;
    default: snprintf(buf, n, "unknown type"); return;
    }
}

/* 1 when t is a plain integer type of `size` bytes and that sign. */
static int is_integer(hid_t t, size_t size, H5T_sign_t sign)
{
    H5T_order_t order = H5Tget_order(t);
    return H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == size &&
           H5Tget_sign(t) == sign && H5Tget_precision(t) == 8 * size &&
           H5Tget_offset(t) == 0 &&
           (order == H5T_ORDER_LE || order == H5T_ORDER_BE ||
            (size == 1 && order == H5T_ORDER_NONE));
}

int iohw__h5_check_type(hid_t t, iohw_dtype dt, const char *who,
                        iohw_error *err)
{
    const char *need = NULL;
    int ok = 0;
    switch (dt) {
    case IOHW_F32:
        need = "float32 (IEEE binary32)";
        ok = is_ieee(t, 4);
        break;
    case IOHW_F64:
        need = "float64 (IEEE binary64)";
        ok = is_ieee(t, 8);
        break;
    case IOHW_F16:
        need = "float16 (IEEE binary16)";
        ok = is_ieee(t, 2);
        break;
    case IOHW_BF16:
        need = "uint16 (bf16 bit patterns)";
        ok = is_integer(t, 2, H5T_SGN_NONE);
        break;
    case IOHW_S8:
        need = "int8";
        ok = is_integer(t, 1, H5T_SGN_2);
        break;
    case IOHW_U8:
        need = "uint8";
        ok = is_integer(t, 1, H5T_SGN_NONE);
        break;
    case IOHW_S32:
        need = "int32";
        ok = is_integer(t, 4, H5T_SGN_2);
        break;
    default:
        return iohw_error_set(err, "dtype %d is not f32, f64, f16, bf16, s8, "
                              "u8 or s32", (int)dt);
    }
    if (ok)
        return 0;
    char have[64];
    iohw__h5_describe_type(t, have, sizeof have);
    return iohw_error_set(err, "has type %s, but %s needs %s", have, who,
                          need);
}

int iohw__h5_has_link(hid_t loc, const char *name, iohw_error *err)
{
    htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
    if (e < 0)
        return iohw__h5_fail(err, "cannot look up '%s'", name);
    return e > 0;
}

static const char *kind_name(H5I_type_t k)
{
    switch (k) {
    case H5I_GROUP: return "group";
    case H5I_DATASET: return "dataset";
    case H5I_DATATYPE: return "named datatype";
    default: return "object of another kind";
    }
}

hid_t iohw__h5_open_child(hid_t loc, const char *name, H5I_type_t want,
                          iohw_error *err)
{
    const char *what = kind_name(want);
    int has = iohw__h5_has_link(loc, name, err);
    if (has < 0)
        return -1;
    if (!has) {
        iohw_error_set(err, "%s '%s' is missing", what, name);
        return -1;
    }
    H5L_info_t info;
    if (H5Lget_info(loc, name, &info, H5P_DEFAULT) < 0) {
        iohw__h5_fail(err, "%s '%s'", what, name);
        return -1;
    }
    if (info.type != H5L_TYPE_HARD) {
        iohw_error_set(err, "%s '%s' is a soft or external link; case files "
                       "hold only hard links", what, name);
        return -1;
    }
    hid_t id = H5Oopen(loc, name, H5P_DEFAULT);
    if (id < 0) {
        iohw__h5_fail(err, "%s '%s': cannot open", what, name);
        return -1;
    }
    H5I_type_t got = H5Iget_type(id);
    if (got != want) {
        H5Oclose(id);
        iohw_error_set(err, "'%s' is a %s, not a %s", name, kind_name(got),
                       what);
        return -1;
    }
    return id;
}
