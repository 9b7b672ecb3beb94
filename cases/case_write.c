/*
 * cases/case_write.c - creating case files and writing cases (schema 1,
 * specification section 4).
 *
 * Layout of a file:
 *   /                 attribute iohw_schema = 1 (int32)
 *   /cases/<id>       one group per case, attributes in the order of the
 *                     specification's table, then the datasets x, w,
 *                     [bias], y, y_f64, err_bound (a backward case:
 *                     attribute direction last, then its direction's
 *                     datasets, case_backward.c)
 *
 * Determinism: the same cases written in the same order give the same bytes.
 * No object records times (H5Pset_obj_track_times off on the file, every
 * group and every dataset), strings are fixed-length and NUL-padded to their
 * own length.
 *
 * Format: the HDF5 1.8 file format, both as the lowest and the highest
 * bound - readable by every HDF5 since 1.8 and by h5py; its superblock,
 * object headers (which hold every attribute and the small datasets) and
 * group indexes carry checksums, so most damage is an HDF5 error rather
 * than a misread (the 1.6 format has none).
 *
 * Storage (specification section 4): datasets of at most COMPACT_MAX bytes
 * are stored in their object header.  Of a larger one, up to DEFLATE_MAX
 * bytes, the writer measures the entropy of the byte planes of a sample,
 * its first PROBE_BYTES; when they code to half their size or less, the
 * dataset is stored in chunks of about CHUNK_TARGET bytes, byte-shuffled
 * and deflated (deflate's Adler-32 catches damaged data), else
 * contiguously without filters: random floats shrink by 10 to 15% only,
 * and deflating them took 88% of the work of writing such a case.  Larger
 * datasets, contiguously too: they are the outputs of single large
 * problems, where deflate (about 70 instructions a byte at level 1) cost
 * ten times the rest of the case; no dataset of the smoke and ci profiles
 * is that large.  Without both filters in the library, contiguously.
 *
 * A case is checked completely before anything is written (the problem,
 * the id, the fill, the strings, the tensors, terms_max against the
 * oracle's count, err_bound >= 0), so the writer never produces a file the
 * reader rejects.  A write that fails midway removes the case's group.  The
 * file is written under a temporary name (cases/atomic.h) and renamed into
 * place by iohw_case_file_close when every write worked.
 */
#include "cases/case.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cases/atomic.h"
#include "cases/case_internal.h"
#include "cases/h5util.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

#define COMPACT_MAX 4096
#define CHUNK_TARGET ((int64_t)256 * 1024)
#define DEFLATE_LEVEL 1
#define DEFLATE_MAX ((int64_t)1024 * 1024)
#define PROBE_BYTES 16384
/* A case's 22 attributes stay in its object header (HDF5 moves them to a
 * separate heap past 8 by default, which costs about 4 KiB a case). */
#define ATTR_COMPACT_MAX 32

iohw_case_file *iohw_case_file_create(const char *path, iohw_error *err)
{
    if (path == NULL || path[0] == '\0') {
        iohw_error_set(err, "case file path is %s",
                       path == NULL ? "NULL" : "empty");
        return NULL;
    }
    iohw__h5_quiet();
    iohw_case_file *f = iohw__case_file_new(path, err);
    if (f == NULL)
        return NULL;
    f->writing = 1;

    /* Property lists: no times, format bounded to HDF5 1.8. */
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    hid_t fapl = iohw__h5_fapl();
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    int rc = -1;
    if (fcpl < 0 || fapl < 0 || gcpl < 0 ||
        H5Pset_obj_track_times(fcpl, 0) < 0 ||
        H5Pset_obj_track_times(gcpl, 0) < 0 ||
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0) {
        iohw__h5_fail(err, "%s: cannot set up property lists", path);
        goto done;
    }

    /* The file, its schema and /cases. */
    if (iohw_atomic_create(path, f->tmp, sizeof f->tmp, err) != 0) {
        f->tmp[0] = '\0';
        goto done;
    }
    f->file = H5Fcreate(f->tmp, H5F_ACC_TRUNC, fcpl, fapl);
    if (f->file < 0) {
        iohw__h5_fail(err, "%s: cannot create", path);
        goto done;
    }
    if (iohw__h5_write_i32(f->file, "iohw_schema", IOHW_SCHEMA_VERSION,
                           err) != 0) {
        iohw_error_prefix(err, "%s", path);
        goto done;
    }
    f->cases = H5Gcreate2(f->file, "cases", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (f->cases < 0) {
        iohw__h5_fail(err, "%s: cannot create /cases", path);
        goto done;
    }
    rc = 0;
done:
    iohw__h5_close(fcpl);
    iohw__h5_close(fapl);
    iohw__h5_close(gcpl);
    if (rc != 0) {
        f->damaged = 1;  /* nothing of it goes under the real name */
        iohw_case_file_close(f, NULL);
        return NULL;
    }
    return f;
}

/* 0 when a string may be stored as tags or descriptor. */
static int check_text(const char *name, const char *s, iohw_error *err)
{
    const size_t len = strnlen(s, IOHW_H5_STRING_MAX + 1);
    if (len > IOHW_H5_STRING_MAX)
        return iohw_error_set(err, "%s is longer than %d characters", name,
                              IOHW_H5_STRING_MAX);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f)
            return iohw_error_set(err, "%s holds the control character "
                                  "0x%02x at offset %zu", name, ch, i);
    }
    return 0;
}

/* A quantized case: y, the requant values; no y_f64, err_bound. */
static int check_quant_case(const iohw_case *c, iohw_error *err)
{
    if (c->y == NULL)
        return iohw_error_set(err, "y is NULL (a written case needs its "
                              "outputs)");
    if (c->y_f64 != NULL || c->err_bound != NULL)
        return iohw_error_set(err, "a quantized case has no y_f64 or "
                              "err_bound: its y is exact");
    if (iohw__case_check_terms(&c->p, c->terms_max, err) != 0)
        return -1;
    return iohw__case_check_requant(c, err);
}

/* Everything about a case that the reader will check. */
static int check_case(const iohw_case *c, iohw_error *err)
{
    const iohw_problem *p = &c->p;
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "invalid problem");
    if (iohw__case_conv_check(p, err) != 0)
        return -1;
    if (memchr(c->fill, '\0', sizeof c->fill) == NULL ||
        !iohw__case_fill_valid(c->fill))
        return iohw_error_set(err, "fill '%.15s' is not a fill name (1 to 15 "
                              "letters, digits, '_', '-')", c->fill);
    if (c->tags != NULL && check_text("tags", c->tags, err) != 0)
        return -1;
    if (c->descriptor != NULL &&
        check_text("descriptor", c->descriptor, err) != 0)
        return -1;
    if (iohw_problem_is_backward(p))
        return iohw__case_check_backward(c, err);  /* case_backward.c */
    if (c->dy != NULL)
        return iohw_error_set(err, "dy is set in a forward case (dy is an "
                              "input of the backward directions)");
    if (c->x == NULL || c->w == NULL)
        return iohw_error_set(err, "%s is NULL", c->x == NULL ? "x" : "w");
    if (p->has_bias && c->bias == NULL)
        return iohw_error_set(err, "has_bias is 1 but bias is NULL");
    if (iohw_problem_is_quant(p))
        return check_quant_case(c, err);
    if (c->y == NULL || c->y_f64 == NULL || c->err_bound == NULL)
        return iohw_error_set(err, "%s is NULL (a written case needs its "
                              "outputs)", c->y == NULL ? "y"
                              : c->y_f64 == NULL ? "y_f64" : "err_bound");
    if (iohw__case_check_terms(p, c->terms_max, err) != 0)
        return -1;
    return iohw__case_check_err_bound("err_bound", c->err_bound,
                                      iohw_problem_y_count(p), err);
}

/* Chunk extents of about CHUNK_TARGET bytes: whole inner axes, a part of
 * the first axis that does not fit, single elements of the outer ones. */
static void chunk_shape(int ndim, const hsize_t *dims, size_t esize,
                        hsize_t *chunk)
{
    int64_t inner = (int64_t)esize;
    int a = ndim - 1;
    for (; a >= 0; a--) {
        if (inner * (int64_t)dims[a] <= CHUNK_TARGET) {
            chunk[a] = dims[a];
            inner *= (int64_t)dims[a];
            continue;
        }
        int64_t part = CHUNK_TARGET / inner;
        chunk[a] = part < 1 ? 1 : (hsize_t)part;
        break;
    }
    for (a--; a >= 0; a--)
        chunk[a] = 1;
}

/* 1 when deflating pays for a dataset of `bytes` bytes at buf (elements of
 * esize bytes): the order-0 entropy of each byte plane of its first
 * PROBE_BYTES (HDF5's shuffle filter stores the planes one after the other)
 * says that they code to half their size or less.  Counting costs a
 * twentieth of deflating the sample and decides as deflate's own size
 * would for all but a few datasets near the boundary. */
static int deflate_pays(const void *buf, int64_t bytes, size_t esize)
{
    const size_t n = (bytes < PROBE_BYTES ? (size_t)bytes : PROBE_BYTES) / esize;
    const unsigned char *src = buf;
    double bits = 0.0;
    for (size_t b = 0; b < esize; b++) {
        uint32_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[src[i * esize + b]]++;
        for (int v = 0; v < 256; v++)
            if (count[v] > 0)
                bits -= (double)count[v] * log2((double)count[v] / (double)n);
    }
    return bits <= 0.5 * 8.0 * (double)(n * esize);
}

/* Writes one dataset of ndim extents `shape` holding buf (stored type dt;
 * bf16 datasets get their encoding attribute). */
int iohw__case_write_dataset(hid_t g, const char *name, iohw_dtype dt,
                             int ndim, const int64_t *shape, const void *buf,
                             iohw_error *err)
{
    hsize_t dims[IOHW_LAYOUT_MAX_DIMS], chunk[IOHW_LAYOUT_MAX_DIMS];
    const size_t esize = iohw_dtype_size(dt);
    int64_t bytes = (int64_t)esize;
    for (int a = 0; a < ndim; a++) {
        dims[a] = (hsize_t)shape[a];
        bytes *= shape[a];
    }

    hid_t space = H5Screate_simple(ndim, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ft = iohw__h5_file_type(dt);
    hid_t mt = iohw__h5_mem_type(dt);
    hid_t d = -1;
    int rc = -1;
    if (space < 0 || dcpl < 0 || ft < 0 || mt < 0 ||
        H5Pset_obj_track_times(dcpl, 0) < 0) {
        iohw__h5_fail(err, "dataset '%s': cannot set up", name);
        goto done;
    }

    /* Storage: compact, chunked and compressed where that pays and the
     * dataset is not large, or contiguous. */
    herr_t st = 0;
    if (bytes <= COMPACT_MAX) {
        st = H5Pset_layout(dcpl, H5D_COMPACT);
    } else if (bytes <= DEFLATE_MAX &&
               H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0 &&
               H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 &&
               deflate_pays(buf, bytes, esize)) {
        chunk_shape(ndim, dims, esize, chunk);
        if (H5Pset_chunk(dcpl, ndim, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
            H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0)
            st = -1;
    }
    if (st < 0) {
        iohw__h5_fail(err, "dataset '%s': cannot set its storage", name);
        goto done;
    }

    d = H5Dcreate2(g, name, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0 || H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        iohw__h5_fail(err, "cannot write dataset '%s'", name);
        goto done;
    }
    if (dt == IOHW_BF16 && iohw__h5_write_string(d, "encoding", "bf16", err))
        goto done;
    rc = 0;
done:
    iohw__h5_close(d);
    iohw__h5_close(mt);
    iohw__h5_close(ft);
    iohw__h5_close(dcpl);
    iohw__h5_close(space);
    return rc;
}

/* The attributes of a case, in the order of the specification. */
static int write_attrs(hid_t g, const iohw_case *c, iohw_error *err)
{
    const iohw_problem *p = &c->p;
    const int R = (int)p->rank;
    const struct {
        const char *name;
        int64_t v;
    } scalars[] = {
        {"batch", p->batch},
        {"in_channels", p->in_channels},
        {"out_channels", p->out_channels},
        {"groups", p->groups},
    };
    const struct {
        const char *name;
        const int64_t *v;
    } axes[] = {
        {"in_size", p->in_size},     {"kernel", p->kernel},
        {"stride", p->stride},       {"dilation", p->dilation},
        {"pad_begin", p->pad_begin}, {"pad_end", p->pad_end},
        {"output_padding", p->output_padding}, {"out_size", p->out_size},
    };

    if (iohw__h5_write_i32(g, "rank", R, err) != 0)
        return -1;
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        if (iohw__h5_write_i64(g, scalars[i].name, scalars[i].v, err) != 0)
            return -1;
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
        if (iohw__h5_write_i64s(g, axes[i].name, R, axes[i].v, err) != 0)
            return -1;
    if (iohw__h5_write_string(g, "data_layout", p->data_layout, err) != 0 ||
        iohw__h5_write_string(g, "weight_layout", p->weight_layout, err) ||
        iohw__h5_write_string(g, "dtype", iohw_dtype_name(p->dtype), err) ||
        iohw__h5_write_i32(g, "has_bias", p->has_bias, err) != 0 ||
        iohw__h5_write_string(g, "fill", c->fill, err) != 0 ||
        iohw__h5_write_u64(g, "seed", c->seed, err) != 0 ||
        iohw__h5_write_string(g, "tags", c->tags ? c->tags : "", err) ||
        iohw__h5_write_string(g, "descriptor",
                              c->descriptor ? c->descriptor : "", err) ||
        iohw__h5_write_i64(g, "terms_max", c->terms_max, err) != 0)
        return -1;
    if (iohw__case_write_quant_attrs(g, p, err) != 0 ||
        iohw__case_conv_write(g, p, err) != 0)
        return -1;
    return iohw__case_write_direction(g, p, err);
}

/* A quantized case's requant values: s_w[n], or multiplier[n] and
 * shift[n] (none for an s32 y). */
static int write_requant(hid_t g, const iohw_case *c, iohw_error *err)
{
    const int64_t n[1] = {iohw_quant_requant_count(&c->p)};
    if (n[0] == 0)
        return 0;
    if (c->p.m_form == IOHW_QM_SCALES)
        return iohw__case_write_dataset(g, "s_w", IOHW_F32, 1, n, c->requant, err);
    const int32_t *mult = c->requant;
    if (iohw__case_write_dataset(g, "multiplier", IOHW_S32, 1, n, mult, err) != 0 ||
        iohw__case_write_dataset(g, "shift", IOHW_S32, 1, n, mult + n[0], err) != 0)
        return -1;
    return 0;
}

/* The datasets of a case. */
static int write_data(hid_t g, const iohw_case *c, iohw_error *err)
{
    const iohw_problem *p = &c->p;
    if (iohw_problem_is_backward(p))
        return iohw__case_write_backward(g, c, err);  /* case_backward.c */
    iohw_layout_map xm, wm, ym;
    if (iohw_layout_data_map(p, 0, &xm, err) != 0 ||
        iohw_layout_weight_map(p, &wm, err) != 0 ||
        iohw_layout_data_map(p, 1, &ym, err) != 0)
        return -1;
    const int64_t bias_shape[1] = {p->out_channels};
    if (iohw__case_write_dataset(g, "x", p->dtype, xm.ndim, xm.shape, c->x, err) != 0 ||
        iohw__case_write_dataset(g, "w", iohw_problem_w_dtype(p), wm.ndim, wm.shape, c->w,
                      err) != 0)
        return -1;
    if (p->has_bias &&
        iohw__case_write_dataset(g, "bias", iohw_problem_bias_dtype(p), 1, bias_shape,
                      c->bias, err) != 0)
        return -1;
    if (write_requant(g, c, err) != 0 ||
        iohw__case_write_dataset(g, "y", iohw_problem_y_dtype(p), ym.ndim, ym.shape, c->y,
                      err) != 0)
        return -1;
    if (iohw_problem_is_quant(p))
        return 0;
    if (iohw__case_write_dataset(g, "y_f64", IOHW_F64, ym.ndim, ym.shape, c->y_f64,
                      err) != 0 ||
        iohw__case_write_dataset(g, "err_bound", IOHW_F64, ym.ndim, ym.shape,
                      c->err_bound, err) != 0)
        return -1;
    return 0;
}

int iohw_case_file_write(iohw_case_file *f, const iohw_case *c,
                         iohw_error *err)
{
    /* Test the arguments. */
    if (f == NULL)
        return iohw_error_set(err, "case file is NULL");
    if (c == NULL)
        return iohw_error_set(err, "%s: case is NULL", f->path);
    if (!f->writing)
        return iohw_error_set(err, "%s: opened for reading; cannot write",
                              f->path);
    if (!iohw_case_id_valid(c->id))
        return iohw_error_set(err, "%s: case id '%.*s' is not valid (1 to %d "
                              "letters, digits, '.', '_', '-')", f->path,
                              IOHW_CASE_ID_MAX - 1, c->id,
                              IOHW_CASE_ID_MAX - 1);
    iohw__h5_quiet();
    if (check_case(c, err) != 0)
        return iohw_error_prefix(err, "%s: case '%s'", f->path, c->id);
    int has = iohw__h5_has_link(f->cases, c->id, err);
    if (has != 0)
        return has < 0 ? iohw_error_prefix(err, "%s", f->path)
                       : iohw_error_set(err, "%s: case '%s' is already in "
                                        "the file", f->path, c->id);

    /* The group, its attributes and datasets. */
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    hid_t g = -1;
    if (gcpl >= 0 && H5Pset_obj_track_times(gcpl, 0) >= 0 &&
        H5Pset_attr_phase_change(gcpl, ATTR_COMPACT_MAX, ATTR_COMPACT_MAX) >= 0)
        g = H5Gcreate2(f->cases, c->id, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (g < 0) {
        iohw__h5_fail(err, "%s: case '%s': cannot create its group", f->path,
                      c->id);
        iohw__h5_close(gcpl);
        return -1;
    }
    iohw__h5_close(gcpl);
    int rc = write_attrs(g, c, err);
    if (rc == 0)
        rc = write_data(g, c, err);
    H5Gclose(g);
    if (rc != 0) {
        if (H5Ldelete(f->cases, c->id, H5P_DEFAULT) < 0) {
            H5Eclear2(H5E_DEFAULT);
            f->damaged = 1;
        }
        return iohw_error_prefix(err, "%s: case '%s'", f->path, c->id);
    }
    if (iohw__case_ids_add(f, c->id) != 0)
        return iohw_error_set(err, "%s: case '%s': out of memory", f->path,
                              c->id);
    return 0;
}
