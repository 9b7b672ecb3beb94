/*
 * cases/answer.c - reading a program's answer file (see answer.h).
 */
#include "cases/answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/case.h"
#include "cases/h5util.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* One dataset of the answer: its name and what it holds (specification
 * section 13): y, dx and db after dw. */
typedef struct answer_part {
    const char *name;
    int what;                /* PART_Y, PART_DX, PART_DW or PART_DB */
} answer_part;

enum { PART_Y, PART_DX, PART_DW, PART_DB };

/* The shape a part must have, in memory order, into dims/letters; its
 * count in *count.  0, or -1 (err set). */
static int part_shape(const iohw_problem *p, int what, int *nd, int64_t *dims,
                      char *letters, int64_t *count, iohw_error *err)
{
    iohw_layout_map m;
    if (what == PART_DB) {
        *nd = 1;
        dims[0] = p->out_channels;
        strcpy(letters, "C");
        *count = p->out_channels;
        return 0;
    }
    if ((what == PART_DW ? iohw_layout_weight_map(p, &m, err)
                         : iohw_layout_data_map(p, what == PART_Y, &m, err)) != 0)
        return -1;
    *nd = m.ndim;
    memcpy(dims, m.shape, sizeof m.shape);
    memcpy(letters, m.letters, sizeof m.letters);
    *count = m.count;
    return 0;
}

/* "1x1x4x4" (at most IOHW_LAYOUT_MAX_DIMS extents) into buf. */
static void shape_text(const hsize_t *dims, const int64_t *want, int nd,
                       char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int a = 0; a < nd && len < n; a++)
        len += (size_t)snprintf(buf + len, n - len, "%s%llu", a ? "x" : "",
                                dims != NULL ? (unsigned long long)dims[a]
                                             : (unsigned long long)want[a]);
}

/* A forward y of the problem's rank and type but another shape
 * (specification section 3.5): its values are read densely into buf when
 * they fit (at most count elements: the buffer's size, so a hostile file
 * gets no more room), and err names both shapes after
 * IOHW_ANSWER_SHAPE_WORDS.  Returns 2. */
static int wrong_shape(hid_t d, const char *where, iohw_dtype yd,
                       const hsize_t *dims, int nd, int a, const int64_t *want,
                       const char *letters, int64_t count, void *buf,
                       iohw_error *err)
{
    char got[IOHW_LAYOUT_MAX_DIMS * 24], right[IOHW_LAYOUT_MAX_DIMS * 24];
    uint64_t have = 1;
    for (int i = 0; i < nd; i++)
        have = dims[i] == 0 || have > (uint64_t)count / dims[i]
                   ? (uint64_t)count + 1 : have * dims[i];
    shape_text(dims, NULL, nd, got, sizeof got);
    shape_text(NULL, want, nd, right, sizeof right);
    int kept = 0;
    hid_t mt = have <= (uint64_t)count ? iohw__h5_mem_type(yd) : -1;
    if (mt >= 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
        kept = 1;
    H5Eclear2(H5E_DEFAULT);
    iohw__h5_close(mt);
    iohw_error_set(err, "%s: axis %d (%c) has %llu elements, the case's y "
                   "%lld: " IOHW_ANSWER_SHAPE_WORDS "%s where the case's y is "
                   "%s (%s)%s", where, a, letters[a],
                   (unsigned long long)dims[a], (long long)want[a], got, right,
                   letters, kept ? "" : "; its values were not kept");
    return 2;
}

int iohw_answer_shape_parse(const char *text, int64_t *dims, int max)
{
    const char *s = text != NULL ? strstr(text, IOHW_ANSWER_SHAPE_WORDS) : NULL;
    int nd = 0;
    if (s == NULL)
        return 0;
    s += sizeof IOHW_ANSWER_SHAPE_WORDS - 1;
    for (;;) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 1 || nd >= max)
            return 0;
        dims[nd++] = v;
        if (*end != 'x')
            return strstr(end, "its values were not kept") != NULL ? -nd : nd;
        s = end + 1;
    }
}

/* Reads a dataset of the answer (an open identifier) into buf after
 * checking its type and shape against the problem. */
static int read_part(hid_t d, const char *where, const iohw_problem *p,
                     const answer_part *part, void *buf, iohw_error *err)
{
    int64_t want[IOHW_LAYOUT_MAX_DIMS], count;
    char letters[IOHW_LAYOUT_MAX_DIMS + 1], who[32];
    hsize_t dims[IOHW_LAYOUT_MAX_DIMS];
    hid_t type = H5Dget_type(d), space = H5Dget_space(d), mt = -1;
    const iohw_dtype yd = iohw_problem_y_dtype(p);
    int rc = -1, wnd;

    snprintf(who, sizeof who, "the case's %s", part->name);
    if (type < 0 || space < 0) {
        iohw__h5_fail(err, "%s", where);
        goto done;
    }
    if (iohw__h5_check_type(type, yd, who, err) != 0) {
        iohw_error_prefix(err, "%s", where);
        goto done;
    }
    if (p->dtype == IOHW_BF16) {
        char *enc = NULL;
        int ok = iohw__h5_read_string(d, "encoding", 16, &enc, err) == 0 &&
                 strcmp(enc, "bf16") == 0;
        free(enc);
        if (!ok) {
            iohw_error_set(err, "%s: a bf16 %s needs the attribute encoding "
                           "= \"bf16\"", where, part->name);
            goto done;
        }
    }

    /* Shape: y in the data layout's order with C = C_out, dx with C = C_in,
     * dw in the weight layout's, db [C_out]. */
    if (part_shape(p, part->what, &wnd, want, letters, &count, err) != 0)
        goto done;
    int nd = H5Sget_simple_extent_ndims(space);
    if (nd != wnd || H5Sget_simple_extent_dims(space, dims, NULL) != nd) {
        iohw_error_set(err, "%s has %d dimensions; %s (%s) has %d", where, nd,
                       who, letters, wnd);
        goto done;
    }
    for (int a = 0; a < nd; a++)
        if ((int64_t)dims[a] != want[a]) {
            if (part->what == PART_Y) {
                rc = wrong_shape(d, where, yd, dims, nd, a, want, letters,
                                 count, buf, err);
                goto done;
            }
            iohw_error_set(err, "%s: axis %d (%c) has %llu elements; %s has "
                           "%lld", where, a, letters[a],
                           (unsigned long long)dims[a], who,
                           (long long)want[a]);
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

/* Opens /NAME, or else NAME of the case in /cases; -1 (err set, naming
 * the dataset) when neither exists.  where gets the dataset's place. */
static hid_t open_part(hid_t file, const char *want, const char *name,
                       char *where, size_t nwhere, iohw_error *err)
{
    int has = iohw__h5_has_link(file, name, err);
    if (has < 0)
        return -1;
    if (has) {
        snprintf(where, nwhere, "dataset /%s", name);
        return iohw__h5_open_child(file, name, H5I_DATASET, err);
    }
    snprintf(where, nwhere, "dataset %s of the case in /cases", name);
    if (iohw__h5_has_link(file, "cases", err) != 1) {
        iohw_error_set(err, "it holds neither /%s, nor /cases/%s/%s, nor the "
                       "attribute 'unsupported'", name, want, name);
        return -1;
    }
    hid_t cases = iohw__h5_open_child(file, "cases", H5I_GROUP, err);
    hid_t g = cases < 0 ? -1 : open_case(cases, want, err);
    hid_t d = -1;
    if (g >= 0) {
        has = iohw__h5_has_link(g, name, err);
        if (has == 0)
            iohw_error_set(err, "the case in /cases holds no dataset %s", name);
        else if (has > 0)
            d = iohw__h5_open_child(g, name, H5I_DATASET, err);
    }
    iohw__h5_close(g);
    iohw__h5_close(cases);
    return d;
}

/* The datasets of p's direction (specification section 13), in the order
 * they follow each other in the output buffer; their number. */
static int parts_of(const iohw_problem *p, answer_part parts[2])
{
    if (p->direction == IOHW_DIR_BWD_D) {
        parts[0] = (answer_part){"dx", PART_DX};
        return 1;
    }
    if (p->direction == IOHW_DIR_BWD_W) {
        parts[0] = (answer_part){"dw", PART_DW};
        parts[1] = (answer_part){"db", PART_DB};
        return p->has_bias ? 2 : 1;
    }
    parts[0] = (answer_part){"y", PART_Y};
    return 1;
}

/* Reads every dataset of p's direction into y, one after the other. */
static int read_parts(hid_t f, const iohw_problem *p, const char *id, void *y,
                      iohw_error *err)
{
    answer_part parts[2];
    const int n = parts_of(p, parts);
    const size_t esize = iohw_dtype_size(iohw_problem_y_dtype(p));
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        char where[IOHW_CASE_ID_MAX + 64], letters[IOHW_LAYOUT_MAX_DIMS + 1];
        int64_t dims[IOHW_LAYOUT_MAX_DIMS], count;
        int nd;
        hid_t d = open_part(f, id, parts[i].name, where, sizeof where, err);
        int rc = d < 0 ? -1
                       : read_part(d, where, p, &parts[i], (char *)y + at * esize,
                                   err);
        iohw__h5_close(d);
        if (rc != 0)
            return rc;
        if (part_shape(p, parts[i].what, &nd, dims, letters, &count, err) != 0)
            return -1;
        at += (size_t)count;
    }
    return 0;
}

int iohw_answer_read(const char *path, const iohw_problem *p, const char *id,
                     int need_y, void *y, char **why, iohw_error *err)
{
    int rc = -1;

    *why = NULL;
    iohw__h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return iohw__h5_fail(err, "%s: cannot open", path);

    /* The program's refusal. */
    int has = iohw__h5_has_attr(f, "unsupported", err);
    if (has != 0) {
        if (has > 0 && iohw__h5_read_string(f, "unsupported", 65536, why,
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
    if ((rc = read_parts(f, p, id, y, err)) != 0) {
        iohw_error_prefix(err, "%s", path);
        if (rc != 2)
            rc = -1;
        goto done;
    }
    rc = 0;
done:
    H5Fclose(f);
    return rc;
}
