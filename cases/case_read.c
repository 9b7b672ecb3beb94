/*
 * cases/case_read.c - reading and validating one case (schema 1,
 * specification section 4).
 *
 * Order of the checks (nothing is allocated for a tensor before its
 * dataset's shape and type are known to be right):
 *   1. the arguments, the case id (a valid id cannot be an HDF5 path), the
 *      case's group (a hard link to a group);
 *   2. the problem attributes: rank first (1..3; it sets the length of every
 *      per-axis attribute), then each one present, integer or string as the
 *      schema says, of the right length; then iohw_problem_validate (the
 *      formula, layouts, groups, element counts within IOHW_MAX_ELEMENTS);
 *   3. fill, seed, tags, descriptor, terms_max (read);
 *   4. every dataset present or allowed to be absent; each a hard link to a
 *      dataset with the exact shape of its layout, the stored type of the
 *      dtype (bf16: encoding = "bf16"), stored in the file itself (no
 *      virtual or external storage);
 *   5. the tensors asked for are allocated and read; err_bound >= 0;
 *   6. terms_max (see check_terms).
 * Nothing is allocated in proportion to a declared size before the file
 * shows it stores that much (check_storage); an attributes-only read
 * (IOHW_READ_ATTRS) checks the datasets but loads none.
 *
 * What `what` loads: IOHW_READ_INPUTS x, w, bias; IOHW_READ_OUTPUTS y,
 * y_f64, err_bound.  A backward case (attribute 'direction', specification
 * section 13; case_backward.c) has its direction's inputs (BWD_D dy, w;
 * BWD_W x, dy) and outputs (dx...; dw... and with a bias db..., joined
 * into y, y_f64, err_bound).  IOHW_READ_USER reads a user-supplied case: it loads the
 * inputs as well, and out_size (computed when absent), fill ("user"), seed
 * (0), tags and descriptor (""), terms_max (0) and the outputs may be
 * absent; whatever is present is still checked, and outputs are loaded
 * only with IOHW_READ_OUTPUTS.
 */
#include "cases/case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/case_internal.h"
#include "cases/h5util.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* The attributes that describe a case beyond its problem (step 3). */
enum { META_FILL, META_SEED, META_TAGS, META_DESCRIPTOR, META_TERMS_MAX, NMETA };

#define MAX_RANK 3
/* Longest layout, dtype or fill name: a char[16] with its NUL. */
#define SHORT_STRING_MAX 15
/* Longest value of a bf16 dataset's attribute 'encoding' read. */
#define ENCODING_MAX 64

/* --- attributes ------------------------------------------------------------ */

static int read_layout(hid_t g, const char *name, char *dst,
                       iohw_error *err)
{
    char *s = NULL;
    if (iohw__h5_read_string(g, name, SHORT_STRING_MAX, &s, err) != 0)
        return -1;
    memcpy(dst, s, strlen(s) + 1);
    free(s);
    return 0;
}

/* Step 2: the problem. */
static int read_problem(hid_t g, int user, iohw_problem *p, iohw_error *err)
{
    int64_t v[1];
    iohw_problem_init(p);

    /* Rank first: it sets the length of every per-axis attribute. */
    if (iohw__h5_read_ints(g, "rank", 1, v, err) != 0)
        return -1;
    if (v[0] < 1 || v[0] > MAX_RANK)
        return iohw_error_set(err, "attribute 'rank' is %lld; it must be 1, "
                              "2 or 3", (long long)v[0]);
    const int R = (int)v[0];
    p->rank = (uint32_t)R;

    /* Channels and per-axis sizes. */
    const struct {
        const char *name;
        int64_t *dst;
        int n;
    } ints[] = {
        {"batch", &p->batch, 1},
        {"in_channels", &p->in_channels, 1},
        {"out_channels", &p->out_channels, 1},
        {"groups", &p->groups, 1},
        {"in_size", p->in_size, R},
        {"kernel", p->kernel, R},
        {"stride", p->stride, R},
        {"dilation", p->dilation, R},
        {"pad_begin", p->pad_begin, R},
        {"pad_end", p->pad_end, R},
        {"output_padding", p->output_padding, R},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (iohw__h5_read_ints(g, ints[i].name, ints[i].n, ints[i].dst,
                               err) != 0)
            return -1;
    for (int a = R; a < MAX_RANK; a++)
        p->stride[a] = p->dilation[a] = 0;

    /* Flags and strings. */
    char *dt = NULL;
    if (iohw__h5_read_ints(g, "has_bias", 1, v, err) != 0)
        return -1;
    if (v[0] != 0 && v[0] != 1)
        return iohw_error_set(err, "attribute 'has_bias' is %lld; it must be "
                              "0 or 1", (long long)v[0]);
    p->has_bias = (int32_t)v[0];
    if (read_layout(g, "data_layout", p->data_layout, err) != 0 ||
        read_layout(g, "weight_layout", p->weight_layout, err) != 0 ||
        iohw__h5_read_string(g, "dtype", SHORT_STRING_MAX, &dt, err) != 0)
        return -1;
    if (iohw_dtype_parse(dt, &p->dtype) != 0) {
        iohw_error_set(err, "attribute 'dtype' is '%s'; it must be f32, f64, "
                       "f16, bf16, s8 or u8", dt);
        free(dt);
        return -1;
    }
    free(dt);

    /* Output sizes: read, or computed for a user case without them. */
    int has = iohw__h5_has_attr(g, "out_size", err);
    if (has < 0)
        return -1;
    if (has || !user) {
        if (iohw__h5_read_ints(g, "out_size", R, p->out_size, err) != 0)
            return -1;
    } else {
        for (int a = 0; a < R; a++)
            p->out_size[a] = iohw_problem_out_axis(p, a);
    }
    if (iohw__case_read_quant_attrs(g, p, err) != 0 ||
        iohw__case_read_direction(g, p, err) != 0)
        return -1;
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "invalid problem");
    if (iohw__case_conv_read(g, p, err) != 0 || iohw__case_conv_check(p, err) != 0)
        return -1;
    return 0;
}

/* Step 3: what describes the case beyond the problem. */
static int read_meta(hid_t g, int user, iohw_case *c, int *has_terms,
                     iohw_error *err)
{
    const char *names[NMETA] = {"fill", "seed", "tags", "descriptor", "terms_max"};
    int has[NMETA];
    for (int i = 0; i < NMETA; i++) {
        has[i] = iohw__h5_has_attr(g, names[i], err);
        if (has[i] < 0)
            return -1;
        if (!has[i] && !user)
            return iohw_error_set(err, "attribute '%s' is missing", names[i]);
    }

    char *fill = NULL;
    if (has[META_FILL]) {
        if (iohw__h5_read_string(g, "fill", SHORT_STRING_MAX, &fill, err) != 0)
            return -1;
        if (!iohw__case_fill_valid(fill)) {
            iohw_error_set(err, "attribute 'fill' is '%s'; a fill name is 1 "
                           "to 15 letters, digits, '_', '-'", fill);
            free(fill);
            return -1;
        }
        memcpy(c->fill, fill, strlen(fill) + 1);
        free(fill);
    } else {
        memcpy(c->fill, "user", 5);
    }
    c->seed = 0;
    if (has[META_SEED] && iohw__h5_read_u64(g, "seed", &c->seed, err) != 0)
        return -1;
    if (has[META_TAGS]) {
        if (iohw__h5_read_string(g, "tags", IOHW_H5_STRING_MAX, &c->tags,
                                 err) != 0)
            return -1;
    } else if ((c->tags = strdup("")) == NULL) {
        return iohw_error_set(err, "out of memory");
    }
    if (has[META_DESCRIPTOR]) {
        if (iohw__h5_read_string(g, "descriptor", IOHW_H5_STRING_MAX,
                                 &c->descriptor, err) != 0)
            return -1;
    } else if ((c->descriptor = strdup("")) == NULL) {
        return iohw_error_set(err, "out of memory");
    }
    c->terms_max = 0;
    if (has[META_TERMS_MAX] &&
        iohw__h5_read_ints(g, "terms_max", 1, &c->terms_max, err) != 0)
        return -1;
    *has_terms = has[META_TERMS_MAX];
    return 0;
}

/* Step 6: terms_max against the oracle's count, which takes 8 bytes per
 * output element of the longest axis.  That is spent only when the axis is
 * short or an output dataset showed, by what the file stores, that the
 * output is as large as the attributes say; otherwise (a user case without
 * outputs) the check is left out: `iohw oracle` computes terms_max anew. */
static int check_terms(const iohw_case *c, int confirmed, iohw_error *err)
{
    int64_t longest = 0;
    for (uint32_t a = 0; a < c->p.rank && a < MAX_RANK; a++)
        if (c->p.out_size[a] > longest)
            longest = c->p.out_size[a];
    if (longest > IOHW_CASE_TERMS_AXIS_MAX && !confirmed)
        return 0;
    return iohw__case_check_terms(&c->p, c->terms_max, err);
}

/* --- datasets -------------------------------------------------------------- */

/* "[2,3,5]" */
static void format_shape(char *buf, size_t n, int ndim, const hsize_t *dims)
{
    size_t at = 0;
    at += (size_t)snprintf(buf, n, "[");
    for (int a = 0; a < ndim && at < n; a++)
        at += (size_t)snprintf(buf + at, n - at, "%s%llu", a ? "," : "",
                               (unsigned long long)dims[a]);
    if (at < n)
        snprintf(buf + at, n - at, "]");
}

/* A quantized case: the requant datasets, [n] each (none for an s32 y),
 * and no y_f64 or err_bound. */
static void plan_quant(const iohw_problem *p, ds_spec *ds)
{
    const int64_t n = iohw_quant_requant_count(p);
    const int fixed = p->m_form == IOHW_QM_FIXED;
    ds[DS_REQ_A].name = n == 0 ? NULL : fixed ? "multiplier" : "s_w";
    ds[DS_REQ_B].name = n == 0 || !fixed ? NULL : "shift";
    for (int i = DS_REQ_A; i <= DS_REQ_B; i++) {
        ds_spec *r = &ds[i];
        r->dt = i == DS_REQ_A && !fixed ? IOHW_F32 : IOHW_S32;
        r->ndim = 1;
        r->shape[0] = r->count = n;
        r->required = r->name != NULL;
        snprintf(r->who, sizeof r->who, "a requant dataset");
        snprintf(r->needs, sizeof r->needs, "per_channel = %d (%lld value%s)",
                 (int)p->per_channel, (long long)n, n == 1 ? "" : "s");
    }
    if (!iohw_problem_is_quant(p))
        return;
    for (int i = DS_Y_F64; i <= DS_ERR_BOUND; i++) {
        ds[i].required = 0;
        ds[i].forbidden = 1;
        ds[i].why = "in a quantized case (its y is exact)";
    }
}

/* One planned dataset of map m's shape. */
static void plan_one(ds_spec *s, const char *name, void **dst, iohw_dtype dt,
                     const iohw_layout_map *m, int input, int in_case_dtype,
                     int user, unsigned what)
{
    s->name = name;
    s->dst = dst;
    s->dt = dt;
    s->ndim = m->ndim;
    memcpy(s->shape, m->shape, sizeof m->shape);
    s->count = m->count;
    s->required = input || !user;
    s->load = input ? (what & IOHW_READ_INPUTS) != 0 || user
                    : (what & IOHW_READ_OUTPUTS) != 0;
    if (in_case_dtype)
        snprintf(s->who, sizeof s->who, "the case dtype %s",
                 iohw_dtype_name(dt));
    else
        snprintf(s->who, sizeof s->who, "this dataset");
}

/* The expected datasets of a validated problem: a forward case's, then
 * rewritten for a backward one (case_backward.c). */
static int plan_datasets(iohw_case *c, unsigned what, ds_spec *ds,
                         void **tail, iohw_error *err)
{
    const iohw_problem *p = &c->p;
    const int user = (what & IOHW_READ_USER) != 0;
    iohw_layout_map xm, wm, ym;
    if (iohw_layout_data_map(p, 0, &xm, err) != 0 ||
        iohw_layout_weight_map(p, &wm, err) != 0 ||
        iohw_layout_data_map(p, 1, &ym, err) != 0)
        return -1;

    memset(ds, 0, NDATASETS * sizeof *ds);
    plan_one(&ds[DS_X], "x", &c->x, p->dtype, &xm, 1, 1, user, what);
    plan_one(&ds[DS_W], "w", &c->w, iohw_problem_w_dtype(p), &wm, 1, 1, user,
             what);
    plan_one(&ds[DS_BIAS], "bias", &c->bias, iohw_problem_bias_dtype(p), &ym,
             1, 1, user, what);
    plan_one(&ds[DS_REQ_A], NULL, &c->requant, IOHW_F32, &ym, 1, 0, user, what);
    plan_one(&ds[DS_REQ_B], NULL, NULL, IOHW_S32, &ym, 1, 0, user, what);
    plan_one(&ds[DS_Y], "y", &c->y, iohw_problem_y_dtype(p), &ym, 0, 1, user,
             what);
    plan_one(&ds[DS_Y_F64], "y_f64", (void **)&c->y_f64, IOHW_F64, &ym, 0, 0,
             user, what);
    plan_one(&ds[DS_ERR_BOUND], "err_bound", (void **)&c->err_bound, IOHW_F64,
             &ym, 0, 0, user, what);
    snprintf(ds[DS_X].needs, sizeof ds[DS_X].needs, "the data layout '%s'",
             p->data_layout);
    snprintf(ds[DS_W].needs, sizeof ds[DS_W].needs, "the weight layout '%s'",
             p->weight_layout);
    for (int i = DS_Y; i <= DS_ERR_BOUND; i++)
        snprintf(ds[i].needs, sizeof ds[i].needs, "the data layout '%s' with "
                 "C = out_channels", p->data_layout);
    /* bias: [C_out], only with has_bias. */
    ds_spec *b = &ds[DS_BIAS];
    b->ndim = 1;
    b->shape[0] = p->out_channels;
    b->count = p->out_channels;
    b->required = p->has_bias;
    b->forbidden = !p->has_bias;
    b->why = "but has_bias is 0";
    snprintf(b->needs, sizeof b->needs, "out_channels = %lld",
             (long long)p->out_channels);
    /* dy: an input of the backward directions only (section 13). */
    ds[DS_DY].name = "dy";
    ds[DS_DY].forbidden = 1;
    ds[DS_DY].why = "in a forward case (dy is an input of the backward "
                    "directions; the case has no attribute 'direction')";
    plan_quant(p, ds);
    if (iohw_problem_is_backward(p))
        return iohw__case_plan_backward(c, ds, tail, err);
    return 0;
}

/* Puts "dataset 'name' " in front of a message that continues it. */
static int name_first(iohw_error *err, const char *name)
{
    char old[IOHW_ERROR_MAX];
    if (err == NULL)
        return -1;
    memcpy(old, err->msg, sizeof old);
    return iohw_error_set(err, "dataset '%s' %s", name, old);
}

/* What reading a dataset will allocate, against the documented limit and
 * what the file actually stores for it: unfiltered data must be stored
 * whole, filtered (compressed) data at least 1/IOHW_CASE_EXPANSION_MAX of
 * it.  A dataset declared large but never written stores nothing. */
static int check_storage(hid_t d, hid_t dcpl, const ds_spec *s, iohw_error *err)
{
    const uint64_t need = (uint64_t)s->count * iohw_dtype_size(s->dt);
    if (need > IOHW_CASE_TENSOR_BYTES_MAX)
        return iohw_error_set(err, "needs %llu bytes; a reader allocates at most "
                              "%llu for one tensor (IOHW_CASE_TENSOR_BYTES_MAX)",
                              (unsigned long long)need,
                              (unsigned long long)IOHW_CASE_TENSOR_BYTES_MAX);
    const uint64_t stored = (uint64_t)H5Dget_storage_size(d);
    const int filtered = H5Pget_nfilters(dcpl) > 0;
    if (filtered ? stored < need / IOHW_CASE_EXPANSION_MAX : stored < need)
        return iohw_error_set(err, "stores %llu bytes but its shape needs %llu%s "
                              "(written only in part, or not at all?)",
                              (unsigned long long)stored, (unsigned long long)need,
                              filtered ? " (compressed beyond any real ratio)" : "");
    return 0;
}

/* Step 4, shape: a simple dataspace of exactly s's shape. */
static int check_shape(hid_t space, const ds_spec *s, iohw_error *err)
{
    hsize_t dims[H5S_MAX_RANK];
    char have[128], need[128];
    hsize_t want[IOHW_LAYOUT_MAX_DIMS];
    for (int a = 0; a < s->ndim; a++)
        want[a] = (hsize_t)s->shape[a];
    format_shape(need, sizeof need, s->ndim, want);
    H5S_class_t cls = H5Sget_simple_extent_type(space);
    if (cls != H5S_SIMPLE)
        return iohw_error_set(err, "is %s, but %s needs %s",
                              cls == H5S_SCALAR ? "a scalar" : "empty (no extent)",
                              s->needs, need);
    int ndim = H5Sget_simple_extent_dims(space, dims, NULL);
    if (ndim < 0)
        return iohw__h5_fail(err, "shape could not be read");
    int same = ndim == s->ndim;
    for (int a = 0; same && a < ndim; a++)
        same = dims[a] == want[a];
    if (!same) {
        format_shape(have, sizeof have, ndim, dims);
        return iohw_error_set(err, "has shape %s but %s needs %s", have, s->needs,
                              need);
    }
    return 0;
}

/* Step 4, bf16: the dataset says encoding = "bf16". */
static int check_bf16_encoding(hid_t d, iohw_error *err)
{
    char *enc = NULL;
    int has = iohw__h5_has_attr(d, "encoding", err);
    if (has < 0)
        return -1;
    if (!has)
        return iohw_error_set(err, "has no attribute 'encoding' (a bf16 dataset "
                              "needs encoding = \"bf16\")");
    if (iohw__h5_read_string(d, "encoding", ENCODING_MAX, &enc, err) != 0)
        return -1;
    if (strcmp(enc, "bf16") != 0) {
        iohw_error_set(err, "has encoding '%s', but a bf16 dataset needs "
                       "encoding = \"bf16\"", enc);
        free(enc);
        return -1;
    }
    free(enc);
    return 0;
}

/* Step 4, storage: inside this file, and as much as the shape needs. */
static int check_in_file(hid_t d, hid_t dcpl, const ds_spec *s, iohw_error *err)
{
    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS &&
        layout != H5D_CHUNKED)
        return iohw_error_set(err, "uses virtual storage; case files keep their "
                              "data in themselves");
    if (H5Pget_external_count(dcpl) != 0)
        return iohw_error_set(err, "keeps its data in external files; case files "
                              "keep their data in themselves");
    return check_storage(d, dcpl, s, err);
}

/* Step 4 for one open dataset: shape, type, storage. */
static int check_dataset(hid_t d, const ds_spec *s, iohw_error *err)
{
    hid_t space = -1, type = -1, dcpl = -1;
    int rc = -1;
    if ((space = H5Dget_space(d)) < 0 || (type = H5Dget_type(d)) < 0 ||
        (dcpl = H5Dget_create_plist(d)) < 0)
        iohw__h5_fail(err, "could not be inspected");
    else if (check_shape(space, s, err) == 0
             && iohw__h5_check_type(type, s->dt, s->who, err) == 0
             && (s->dt != IOHW_BF16 || check_bf16_encoding(d, err) == 0)
             && check_in_file(d, dcpl, s, err) == 0)
        rc = 0;
    iohw__h5_close(dcpl);
    iohw__h5_close(type);
    iohw__h5_close(space);
    return rc;
}

/* iohw_case_read_watch's callback. */
static void (*watch_fn)(void *ctx, const char *dataset);
static void *watch_ctx;

void iohw_case_read_watch(void (*fn)(void *ctx, const char *dataset),
                          void *ctx)
{
    watch_fn = fn;
    watch_ctx = ctx;
}

/* Step 5 for one open, checked dataset. */
static int load_dataset(hid_t d, const ds_spec *s, iohw_error *err)
{
    const size_t bytes = (size_t)s->count * iohw_dtype_size(s->dt);
    void *buf = malloc(bytes);
    if (buf == NULL)
        return iohw_error_set(err, "out of memory (%zu bytes)", bytes);
    hid_t mt = iohw__h5_mem_type(s->dt);
    if (mt < 0 || H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        iohw__h5_fail(err, "could not be read");
        iohw__h5_close(mt);
        free(buf);
        return -1;
    }
    H5Tclose(mt);
    *s->dst = buf;
    return 0;
}

/* The fixed form's two datasets as one requant tensor: multiplier[n]
 * then shift[n] (shift is freed). */
static int join_requant(iohw_case *c, void *shift, int64_t n, iohw_error *err)
{
    if (shift == NULL)
        return 0;
    void *both = realloc(c->requant, (size_t)n * 2 * sizeof(int32_t));
    if (both == NULL) {
        free(shift);
        return iohw_error_set(err, "out of memory");
    }
    memcpy((int32_t *)both + n, shift, (size_t)n * sizeof(int32_t));
    free(shift);
    c->requant = both;
    return 0;
}

/* Frees what a failed read loaded beyond the case: the fixed form's shift
 * and a BWD_W case's db, db_f64, db_err_bound. */
static void drop_loaded(void *shift, void **tail)
{
    free(shift);
    for (int i = 0; i < 3; i++)
        free(tail[i]);
}

/* Steps 4 and 5. */
static int read_datasets(hid_t g, unsigned what, iohw_case *c,
                         int *confirmed, iohw_error *err)
{
    ds_spec ds[NDATASETS];
    void *shift = NULL;
    void *tail[3] = {NULL, NULL, NULL};
    if (plan_datasets(c, what, ds, tail, err) != 0)
        return -1;
    ds[DS_REQ_B].dst = &shift;

    /* A dataset the case must not hold is named first (a backward case
     * whose attribute 'direction' was lost holds dy), then every dataset
     * is checked before any is loaded. */
    for (int i = 0; i < NDATASETS; i++) {
        if (ds[i].name == NULL || !ds[i].forbidden)
            continue;
        int has = iohw__h5_has_link(g, ds[i].name, err);
        if (has != 0)
            return has < 0 ? -1
                           : iohw_error_set(err, "dataset '%s' is present %s",
                                            ds[i].name, ds[i].why);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < NDATASETS; i++) {
            ds_spec *s = &ds[i];
            if (s->name == NULL)
                continue;
            if (pass == 0) {
                int has = iohw__h5_has_link(g, s->name, err);
                if (has < 0)
                    return -1;
                if (!has && s->required)
                    return iohw_error_set(err, "dataset '%s' is missing",
                                          s->name);
                s->present = has;
            }
            if (!s->present || (pass == 1 && !s->load))
                continue;
            if (watch_fn != NULL)
                watch_fn(watch_ctx, s->name);
            hid_t d = iohw__h5_open_child(g, s->name, H5I_DATASET, err);
            if (d < 0) {
                drop_loaded(shift, tail);
                return -1;
            }
            int rc = pass == 0 ? check_dataset(d, s, err)
                               : load_dataset(d, s, err);
            H5Dclose(d);
            if (rc != 0) {
                drop_loaded(shift, tail);
                return name_first(err, s->name);
            }
            if (!IS_INPUT(i))
                *confirmed = 1;  /* an output's size is backed by the file */
        }
    }
    char eb_name[64];
    snprintf(eb_name, sizeof eb_name, "dataset '%s'", ds[DS_ERR_BOUND].name);
    if (c->err_bound != NULL &&
        iohw__case_check_err_bound(eb_name, c->err_bound,
                                   ds[DS_ERR_BOUND].count, err) != 0) {
        drop_loaded(shift, tail);
        return -1;
    }
    if (iohw__case_join_backward(ds, tail, err) != 0) {
        free(shift);
        return -1;
    }
    if (join_requant(c, shift, ds[DS_REQ_A].count, err) != 0)
        return -1;
    if (c->requant != NULL && iohw__case_check_requant(c, err) != 0)
        return -1;
    return 0;
}

/* --- the entry point ------------------------------------------------------- */

int iohw_case_file_read(iohw_case_file *f, const char *id, unsigned what,
                        iohw_case *c, iohw_error *err)
{
    /* Test the arguments. */
    if (c == NULL)
        return iohw_error_set(err, "case is NULL");
    memset(c, 0, sizeof *c);
    if (f == NULL)
        return iohw_error_set(err, "case file is NULL");
    if (id == NULL)
        return iohw_error_set(err, "%s: case id is NULL", f->path);
    if (what > (IOHW_READ_ALL | IOHW_READ_USER))
        return iohw_error_set(err, "%s: what = %u is not a combination of "
                              "IOHW_READ_* flags", f->path, what);
    if (!iohw_case_id_valid(id))
        return iohw_error_set(err, "%s: '%.*s' is not a valid case id",
                              f->path, IOHW_CASE_ID_MAX, id);
    iohw__h5_quiet();
    memcpy(c->id, id, strlen(id) + 1);

    /* The case's group. */
    int has = iohw__h5_has_link(f->cases, id, err);
    if (has == 0)
        iohw_error_set(err, "no such case in the file");
    hid_t g = has > 0 ? iohw__h5_open_child(f->cases, id, H5I_GROUP, err) : -1;
    if (g < 0) {
        iohw_case_free(c);  /* zeroed, id included */
        return iohw_error_prefix(err, "%s: case '%s'", f->path, id);
    }

    /* Attributes, then datasets. */
    const int user = (what & IOHW_READ_USER) != 0;
    int has_terms = 0, confirmed = 0;
    int rc = read_problem(g, user, &c->p, err);
    if (rc == 0)
        rc = read_meta(g, user, c, &has_terms, err);
    if (rc == 0)
        rc = read_datasets(g, what, c, &confirmed, err);
    if (rc == 0 && has_terms)
        rc = check_terms(c, confirmed, err);
    H5Gclose(g);
    if (rc != 0) {
        iohw_case_free(c);
        return iohw_error_prefix(err, "%s: case '%s'", f->path, id);
    }
    return 0;
}
