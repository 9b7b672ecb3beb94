/*
 * backends/exec/exec_files.c - the two files of the exec protocol
 * (docs/EXEC_PROTOCOL.md).
 *
 * IN.h5 is an ordinary case file (cases/case.h writer, schema 1) holding one
 * case, EXEC_CASE_ID: every attribute of the problem, x, w and bias; fill
 * "user", seed 0, the descriptor and tags derived from the problem,
 * terms_max.  The writer insists on complete cases, so y, y_f64 and
 * err_bound are there too, as placeholders full of NaN: a program reads
 * exactly what `iohw oracle` reads (IOHW_READ_USER) and ignores them.
 *
 * OUT.h5 holds the answer: a root attribute `unsupported` (a string, the
 * reason), or the result y as a root dataset /y, or as /cases/<id>/y (a
 * case file, such as `iohw oracle IN.h5 -o OUT.h5` writes; <id> is the
 * case's id, or any id when /cases holds one case).  y
 * has the case's y shape (data layout order, C = C_out) and the stored
 * type of the case dtype (bf16: uint16 with encoding = "bf16").
 */
#include "backends/exec/exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "cases/h5util.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

int iohw__exec_write_input(const char *path, const iohw_problem *p,
                           const void *x, const void *w, const void *bias,
                           iohw_error *err)
{
    const size_t es = iohw_dtype_size(p->dtype);
    const int64_t ny = iohw_problem_y_count(p);
    char desc[IOHW_DESC_MAX], tags[512];
    void *zx = NULL, *zw = NULL, *zb = NULL;
    iohw_case c;
    int rc = -1;

    /* The case: the problem, its inputs, NaN placeholders for outputs. */
    memset(&c, 0, sizeof c);
    strcpy(c.id, EXEC_CASE_ID);
    c.p = *p;
    strcpy(c.fill, "user");
    if (iohw_desc_format_problem(p, "user", 0, desc, sizeof desc) < 0)
        desc[0] = '\0';
    if (iohw_problem_tags(p, "user", tags, sizeof tags) < 0)
        tags[0] = '\0';
    c.descriptor = desc;
    c.tags = tags;
    c.terms_max = iohw_oracle_terms_max(p);
    if (x == NULL) {
        zx = calloc((size_t)iohw_problem_x_count(p), es);
        zw = calloc((size_t)iohw_problem_w_count(p), es);
        zb = p->has_bias ? calloc((size_t)p->out_channels, es) : NULL;
        x = zx;
        w = zw;
        bias = zb;
    }
    c.x = (void *)(uintptr_t)x;
    c.w = (void *)(uintptr_t)w;
    c.bias = p->has_bias ? (void *)(uintptr_t)bias : NULL;
    c.y = malloc((size_t)ny * es);
    c.y_f64 = malloc((size_t)ny * sizeof(double));
    c.err_bound = malloc((size_t)ny * sizeof(double));
    if (c.terms_max < 0 || x == NULL || w == NULL ||
        (p->has_bias && bias == NULL) || c.y == NULL || c.y_f64 == NULL ||
        c.err_bound == NULL) {
        iohw_error_set(err, "out of memory writing %s", path);
        goto done;
    }
    for (int64_t i = 0; i < ny; i++) {
        iohw_dtype_store(p->dtype, c.y, (size_t)i, NAN);
        c.y_f64[i] = NAN;
        c.err_bound[i] = NAN;
    }

    /* The file. */
    iohw_case_file *f = iohw_case_file_create(path, err);
    if (f == NULL)
        goto done;
    if (iohw_case_file_write(f, &c, err) != 0) {
        iohw_case_file_close(f, NULL);
        goto done;
    }
    rc = iohw_case_file_close(f, err);
done:
    free(c.y);
    free(c.y_f64);
    free(c.err_bound);
    free(zx);
    free(zw);
    free(zb);
    return rc;
}

/* Reads the dataset y (an open identifier) into buf after checking its
 * type and shape against the problem. */
static int read_y(hid_t d, const char *where, const iohw_problem *p,
                  void *buf, iohw_error *err)
{
    iohw_layout_map ym;
    hsize_t dims[IOHW_LAYOUT_MAX_DIMS];
    hid_t type = H5Dget_type(d), space = H5Dget_space(d), mt = -1;
    int rc = -1;

    if (type < 0 || space < 0) {
        iohw__h5_fail(err, "%s", where);
        goto done;
    }
    if (iohw__h5_check_type(type, p->dtype, "the case's y", err) != 0) {
        iohw_error_prefix(err, "%s", where);
        goto done;
    }
    if (p->dtype == IOHW_BF16) {
        char *enc = NULL;
        int ok = iohw__h5_read_string(d, "encoding", 16, &enc, err) == 0 &&
                 strcmp(enc, "bf16") == 0;
        free(enc);
        if (!ok) {
            iohw_error_set(err, "%s: a bf16 y needs the attribute encoding "
                           "= \"bf16\"", where);
            goto done;
        }
    }

    /* Shape: the data layout's order with C = C_out. */
    if (iohw_layout_data_map(p, 1, &ym, err) != 0)
        goto done;
    int nd = H5Sget_simple_extent_ndims(space);
    if (nd != ym.ndim || H5Sget_simple_extent_dims(space, dims, NULL) != nd) {
        iohw_error_set(err, "%s has %d dimensions; the case's y (%s) has %d",
                       where, nd, ym.letters, ym.ndim);
        goto done;
    }
    for (int a = 0; a < nd; a++)
        if ((int64_t)dims[a] != ym.shape[a]) {
            iohw_error_set(err, "%s: axis %d (%c) has %llu elements; the "
                           "case's y has %lld", where, a, ym.letters[a],
                           (unsigned long long)dims[a],
                           (long long)ym.shape[a]);
            goto done;
        }

    mt = iohw__h5_mem_type(p->dtype);
    if (mt < 0 || H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        iohw__h5_fail(err, "%s: cannot read", where);
        goto done;
    }
    rc = 0;
done:
    iohw__h5_close(mt);
    iohw__h5_close(space);
    iohw__h5_close(type);
    return rc;
}

/* The case group of a case-file answer: /cases/<EXEC_CASE_ID>, or the only
 * case in /cases. */
static hid_t open_case(hid_t cases, iohw_error *err)
{
    H5G_info_t info;
    char id[IOHW_CASE_ID_MAX];
    int has = iohw__h5_has_link(cases, EXEC_CASE_ID, err);
    if (has < 0)
        return -1;
    if (has)
        return iohw__h5_open_child(cases, EXEC_CASE_ID, H5I_GROUP, err);
    if (H5Gget_info(cases, &info) < 0) {
        iohw__h5_fail(err, "group /cases");
        return -1;
    }
    if (info.nlinks != 1) {
        iohw_error_set(err, "/cases holds %llu cases and none is '"
                       EXEC_CASE_ID "'", (unsigned long long)info.nlinks);
        return -1;
    }
    ssize_t len = H5Lget_name_by_idx(cases, ".", H5_INDEX_NAME, H5_ITER_INC,
                                     0, id, sizeof id, H5P_DEFAULT);
    if (len < 0 || (size_t)len >= sizeof id || !iohw_case_id_valid(id)) {
        H5Eclear2(H5E_DEFAULT);
        iohw_error_set(err, "the case in /cases has no valid case id");
        return -1;
    }
    return iohw__h5_open_child(cases, id, H5I_GROUP, err);
}

/* Opens /y, or else y of the case in /cases; -1 (err set) when neither
 * exists. */
static hid_t open_y(hid_t file, const char **where, iohw_error *err)
{
    int has = iohw__h5_has_link(file, "y", err);
    if (has < 0)
        return -1;
    if (has) {
        *where = "dataset /y";
        return iohw__h5_open_child(file, "y", H5I_DATASET, err);
    }
    *where = "dataset y of the case in /cases";
    if (iohw__h5_has_link(file, "cases", err) != 1) {
        iohw_error_set(err, "it holds neither /y, nor /cases/" EXEC_CASE_ID
                       "/y, nor the attribute 'unsupported'");
        return -1;
    }
    hid_t cases = iohw__h5_open_child(file, "cases", H5I_GROUP, err);
    hid_t g = cases < 0 ? -1 : open_case(cases, err);
    hid_t d = g < 0 ? -1 : iohw__h5_open_child(g, "y", H5I_DATASET, err);
    iohw__h5_close(g);
    iohw__h5_close(cases);
    return d;
}

int iohw__exec_read_output(const char *path, const iohw_problem *p,
                           int need_y, void *y, iohw_error *err)
{
    const char *where = "y";
    hid_t d = -1;
    int rc = -1;

    if (access(path, F_OK) != 0) {
        if (!need_y)
            return 0;
        return iohw_error_set(err, "the program wrote no %s", path);
    }
    iohw__h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return iohw__h5_fail(err, "%s: cannot open", path);

    /* The program's refusal. */
    int has = iohw__h5_has_attr(f, "unsupported", err);
    if (has != 0) {
        char *why = NULL;
        if (has > 0 && iohw__h5_read_string(f, "unsupported", 400, &why,
                                            err) == 0) {
            iohw_error_set(err, "the program does not claim this problem: "
                           "%s", why[0] != '\0' ? why : "(no reason given)");
            free(why);
            rc = 1;
        } else {
            iohw_error_prefix(err, "%s", path);
        }
        goto done;
    }
    if (!need_y) {
        rc = 0;
        goto done;
    }

    /* The result. */
    d = open_y(f, &where, err);
    if (d < 0 || read_y(d, where, p, y, err) != 0) {
        iohw_error_prefix(err, "%s", path);
        goto done;
    }
    rc = 0;
done:
    iohw__h5_close(d);
    H5Fclose(f);
    return rc;
}
