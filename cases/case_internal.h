/*
 * cases/case_internal.h - the case-file handle, shared by the cases module's
 * files (case.c opens, lists and closes; case_write.c creates and writes;
 * case_read.c reads).
 */
#ifndef IOHW_CASE_INTERNAL_H
#define IOHW_CASE_INTERNAL_H

#include <hdf5.h>

#include "cases/case.h"
#include "oracle/layout.h"

struct iohw_case_file {
    hid_t file;       /* the HDF5 file */
    hid_t cases;      /* its group /cases */
    int writing;      /* 1 when made by iohw_case_file_create */
    int damaged;      /* a failed write left something behind */
    char *path;
    char tmp[4200];   /* writing: the temporary name renamed to path on close */
    char **ids;       /* case ids, sorted (strcmp) */
    int count;
    int cap;
};

/* Adds a copy of id to f's sorted id list; -1 when memory runs out. */
int iohw__case_ids_add(iohw_case_file *f, const char *id);

/* Sorts f's id list. */
void iohw__case_ids_sort(iohw_case_file *f);

/* A zeroed handle for path, with no HDF5 identifiers yet (-1); NULL with
 * the reason when memory runs out. */
iohw_case_file *iohw__case_file_new(const char *path, iohw_error *err);

/* Frees the handle's memory (not its HDF5 identifiers). */
void iohw__case_file_release(iohw_case_file *f);

/* 1 when s is a valid fill name: 1..15 of letters, digits, '_', '-'. */
int iohw__case_fill_valid(const char *s);

/* Checks terms_max against the oracle's count for a validated problem. */
int iohw__case_check_terms(const iohw_problem *p, int64_t terms_max,
                           iohw_error *err);

/* Checks that every err_bound value is >= 0 or NaN; `what` names the
 * array in the message. */
int iohw__case_check_err_bound(const char *what, const double *eb, int64_t n,
                               iohw_error *err);

/* The framework convention's attributes (case_conv.c): written only when
 * p states one; read into p's auto_pad, convention and out_shape (absent:
 * none), names checked; check: the convention resolves to p's explicit
 * members (specification section 12). */
int iohw__case_conv_write(hid_t g, const iohw_problem *p, iohw_error *err);
int iohw__case_conv_read(hid_t g, iohw_problem *p, iohw_error *err);
int iohw__case_conv_check(const iohw_problem *p, iohw_error *err);

/* The quantization block of a quantized case (cases/case_quant.c): its
 * attributes, written after the problem's and read before it is validated
 * (nothing for a float problem), and the check of c->requant's values. */
int iohw__case_write_quant_attrs(hid_t g, const iohw_problem *p,
                                 iohw_error *err);
int iohw__case_read_quant_attrs(hid_t g, iohw_problem *p, iohw_error *err);
int iohw__case_check_requant(const iohw_case *c, iohw_error *err);

/* --- the datasets a reader expects (case_read.c, case_backward.c) ------- */


/* The datasets of a case, in the order they are checked: the inputs (x,
 * w, bias, dy, and a quantized case's requant values: s_w, or multiplier
 * and shift), then the outputs (y in the case dtype, y_f64 and err_bound
 * in f64; a quantized case has neither of the last two), then a BWD_W
 * case's db, db_f64, db_err_bound, then the names a backward case must
 * not hold (y, y_f64, err_bound).  A backward case names the DS_Y slots
 * after its output: dx... or dw... (specification section 13). */
enum { DS_X, DS_W, DS_BIAS, DS_DY, DS_REQ_A, DS_REQ_B, DS_Y, DS_Y_F64,
       DS_ERR_BOUND, DS_DB, DS_DB_F64, DS_DB_ERR_BOUND, DS_BAN_Y,
       DS_BAN_Y_F64, DS_BAN_ERR_BOUND, NDATASETS };
#define IS_INPUT(i) ((i) < DS_Y)

/* One dataset of a case and what is expected of it. */
typedef struct ds_spec {
    const char *name;           /* NULL: no such dataset in this case */
    iohw_dtype dt;              /* stored type */
    char who[40];               /* who needs the type, for messages */
    char needs[96];             /* who needs the shape, for messages */
    int ndim;
    int64_t shape[IOHW_LAYOUT_MAX_DIMS];
    int64_t count;
    int required;
    int forbidden;              /* must be absent; why says so */
    const char *why;            /* "in a quantized case (its y is exact)" */
    int load;
    int present;
    void **dst;
} ds_spec;

/* A backward case's plan (case_backward.c): rewrites the forward plan ds
 * of c's validated problem for its direction; tail[3] receive db, db_f64
 * and db_err_bound when loaded. */
int iohw__case_plan_backward(const iohw_case *c, ds_spec *ds, void **tail,
                             iohw_error *err);

/* Appends the loaded tail (db, db_f64, db_err_bound) to the case's y, y_f64,
 * err_bound (dw then db); frees tail.  Checks db_err_bound's signs first. */
int iohw__case_join_backward(const ds_spec *ds, void **tail,
                             iohw_error *err);

/* The attribute 'direction' (absent = 0): read into p->direction and
 * checked to be a known direction; written only when p's is not 0. */
int iohw__case_read_direction(hid_t g, iohw_problem *p, iohw_error *err);
int iohw__case_write_direction(hid_t g, const iohw_problem *p,
                               iohw_error *err);

/* The writer's checks of a backward case's tensors (the direction's inputs
 * set, nothing else; its outputs, err_bound's signs over out_count), and
 * its datasets. */
int iohw__case_check_backward(const iohw_case *c, iohw_error *err);
int iohw__case_write_backward(hid_t g, const iohw_case *c, iohw_error *err);

/* Writes one dataset (case_write.c): extents shape, stored type dt. */
int iohw__case_write_dataset(hid_t g, const char *name, iohw_dtype dt,
                             int ndim, const int64_t *shape, const void *buf,
                             iohw_error *err);

#endif
