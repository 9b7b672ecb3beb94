/*
 * cases/answer.c - reading a program's answer file (see answer.h).
 */
#include "cases/answer.h"

#include <stdlib.h>
#include <string.h>

#include "cases/case.h"
#include "cases/h5util.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* Reads the dataset y (an open identifier) into buf after checking its
 * type and shape against the problem. */
static int read_y(hid_t d, const char *where, const iohw_problem *p,
                  void *buf, iohw_error *err)
{
    iohw_layout_map ym;
    hsize_t dims[IOHW_LAYOUT_MAX_DIMS];
    hid_t type = H5Dget_type(d), space = H5Dget_space(d), mt = -1;
    const iohw_dtype yd = iohw_problem_y_dtype(p);
    int rc = -1;

    if (type < 0 || space < 0) {
        iohw__h5_fail(err, "%s", where);
        goto done;
    }
    if (iohw__h5_check_type(type, yd, "the case's y", err) != 0) {
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

    mt = iohw__h5_mem_type(yd);
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

/* The case group of a case-file answer: /cases/<want>, or the only case in
 * /cases. */
static hid_t open_case(hid_t cases, const char *want, iohw_error *err)
{
    H5G_info_t info;
    char id[IOHW_CASE_ID_MAX];
    int has = iohw__h5_has_link(cases, want, err);
    if (has < 0)
        return -1;
    if (has)
        return iohw__h5_open_child(cases, want, H5I_GROUP, err);
    if (H5Gget_info(cases, &info) < 0) {
        iohw__h5_fail(err, "group /cases");
        return -1;
    }
    if (info.nlinks != 1) {
        iohw_error_set(err, "/cases holds %llu cases and none is '%s'",
                       (unsigned long long)info.nlinks, want);
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
static hid_t open_y(hid_t file, const char *want, const char **where,
                    iohw_error *err)
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
        iohw_error_set(err, "it holds neither /y, nor /cases/%s/y, nor the "
                       "attribute 'unsupported'", want);
        return -1;
    }
    hid_t cases = iohw__h5_open_child(file, "cases", H5I_GROUP, err);
    hid_t g = cases < 0 ? -1 : open_case(cases, want, err);
    hid_t d = g < 0 ? -1 : iohw__h5_open_child(g, "y", H5I_DATASET, err);
    iohw__h5_close(g);
    iohw__h5_close(cases);
    return d;
}

int iohw_answer_read(const char *path, const iohw_problem *p, const char *id,
                     int need_y, void *y, char **why, iohw_error *err)
{
    const char *where = "y";
    hid_t d = -1;
    int rc = -1;

    *why = NULL;
    iohw__h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return iohw__h5_fail(err, "%s: cannot open", path);

    /* The program's refusal. */
    int has = iohw__h5_has_attr(f, "unsupported", err);
    if (has != 0) {
        if (has > 0 && iohw__h5_read_string(f, "unsupported", 400, why,
                                            err) == 0)
            rc = 1;
        else
            iohw_error_prefix(err, "%s", path);
        goto done;
    }
    if (!need_y) {
        rc = 0;
        goto done;
    }

    /* The result. */
    d = open_y(f, id, &where, err);
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
