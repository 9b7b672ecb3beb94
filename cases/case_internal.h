/*
 * cases/case_internal.h - the case-file handle, shared by the cases module's
 * files (case.c opens, lists and closes; case_write.c creates and writes;
 * case_read.c reads).
 */
#ifndef IOHW_CASE_INTERNAL_H
#define IOHW_CASE_INTERNAL_H

#include <hdf5.h>

#include "cases/case.h"

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

#endif
