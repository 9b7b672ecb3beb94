/*
 * cases/case.c - case ids, freeing a case, and opening, listing and closing
 * case files (specification section 4, schema 1).
 *
 * Opening checks, in order: the path names a non-empty regular file (a FIFO
 * would block HDF5), the file is HDF5, its root attribute iohw_schema is an
 * integer equal to IOHW_SCHEMA_VERSION, /cases is a group reached by a hard
 * link, and every link in /cases is a hard link whose name is a valid case
 * id.  The ids are kept sorted (strcmp order).  Each case is validated when
 * it is read (case_read.c).
 */
#include "cases/case.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cases/atomic.h"
#include "cases/case_internal.h"
#include "cases/h5util.h"
#include "oracle/oracle.h"

/* Longest fill name: iohw_case.fill is a char[16] with its NUL. */
#define FILL_NAME_MAX 15
/* Case ids one file may list (far beyond any real suite); the list is not
 * grown past it. */
#define IDS_MAX (1 << 28)
/* Characters of a name quoted in a message before "...". */
#define QUOTE_MAX 64

void iohw_case_free(iohw_case *c)
{
    if (c == NULL)
        return;
    free(c->tags);
    free(c->descriptor);
    free(c->x);
    free(c->w);
    free(c->bias);
    free(c->y);
    free(c->y_f64);
    free(c->err_bound);
    free(c->requant);
    free(c->dy);
    memset(c, 0, sizeof *c);
}

/* Letters and digits of ASCII, whatever the locale. */
static int is_alnum(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9');
}

int iohw_case_id_valid(const char *s)
{
    if (s == NULL)
        return 0;
    const size_t n = strnlen(s, IOHW_CASE_ID_MAX);
    if (n == 0 || n >= IOHW_CASE_ID_MAX)
        return 0;
    /* "." names the group itself in HDF5 paths; ".." is as confusing. */
    if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum(s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
            return 0;
    return 1;
}

int iohw__case_fill_valid(const char *s)
{
    const size_t n = strnlen(s, FILL_NAME_MAX + 1);
    if (n == 0 || n > FILL_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum(s[i]) && s[i] != '_' && s[i] != '-')
            return 0;
    return 1;
}

int iohw__case_check_terms(const iohw_problem *p, int64_t terms_max,
                           iohw_error *err)
{
    int64_t want;
    if (iohw_oracle_terms(p, &want, err) != 0)
        return -1;
    if (terms_max != want)
        return iohw_error_set(err, "terms_max is %lld, but the problem's "
                              "largest output element sums %lld products",
                              (long long)terms_max, (long long)want);
    return 0;
}

int iohw__case_check_err_bound(const char *what, const double *eb, int64_t n,
                               iohw_error *err)
{
    for (int64_t i = 0; i < n; i++)
        if (eb[i] < 0)
            return iohw_error_set(err, "%s holds the negative value %g at "
                                  "element %lld", what, eb[i], (long long)i);
    return 0;
}

/* --- the id list ----------------------------------------------------------- */

static int cmp_ids(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void iohw__case_ids_sort(iohw_case_file *f)
{
    if (f->count > 1)
        qsort(f->ids, (size_t)f->count, sizeof *f->ids, cmp_ids);
}

int iohw__case_ids_add(iohw_case_file *f, const char *id)
{
    if (f->count == f->cap) {
        if (f->cap > IDS_MAX)
            return -1;
        int cap = f->cap ? 2 * f->cap : 16;
        char **ids = realloc(f->ids, (size_t)cap * sizeof *ids);
        if (ids == NULL)
            return -1;
        f->ids = ids;
        f->cap = cap;
    }
    char *copy = strdup(id);
    if (copy == NULL)
        return -1;
    /* Keep the list sorted: the writer adds one at a time. */
    int i = f->count;
    while (i > 0 && strcmp(f->ids[i - 1], copy) > 0) {
        f->ids[i] = f->ids[i - 1];
        i--;
    }
    f->ids[i] = copy;
    f->count++;
    return 0;
}

iohw_case_file *iohw__case_file_new(const char *path, iohw_error *err)
{
    iohw_case_file *f = calloc(1, sizeof *f);
    if (f == NULL || (f->path = strdup(path)) == NULL) {
        free(f);
        iohw_error_set(err, "%s: out of memory", path);
        return NULL;
    }
    f->file = f->cases = -1;
    return f;
}

void iohw__case_file_release(iohw_case_file *f)
{
    for (int i = 0; i < f->count; i++)
        free(f->ids[i]);
    free(f->ids);
    free(f->path);
    free(f);
}

/* --- opening --------------------------------------------------------------- */

typedef struct collect_ctx {
    iohw_case_file *f;
    iohw_error *err;
    int failed;
} collect_ctx;

/* A printable, shortened copy of a name for messages. */
static void printable(const char *s, char *out, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; s[i] != '\0' && j + 4 < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        out[j++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
        if (i == QUOTE_MAX - 1 && s[i + 1] != '\0') {
            memcpy(out + j, "...", 3);
            j += 3;
            break;
        }
    }
    out[j] = '\0';
}

static herr_t collect(hid_t g, const char *name, const H5L_info_t *info,
                      void *data)
{
    collect_ctx *ctx = data;
    char shown[80];
    (void)g;
    ctx->failed = 1;
    if (!iohw_case_id_valid(name)) {
        printable(name, shown, sizeof shown);
        iohw_error_set(ctx->err, "/cases/%s: '%s' is not a valid case id "
                       "(1 to %d letters, digits, '.', '_', '-')", shown,
                       shown, IOHW_CASE_ID_MAX - 1);
        return -1;
    }
    if (info->type != H5L_TYPE_HARD) {
        iohw_error_set(ctx->err, "/cases/%s is a soft or external link; "
                       "case files hold only hard links", name);
        return -1;
    }
    if (iohw__case_ids_add(ctx->f, name) != 0) {
        iohw_error_set(ctx->err, "out of memory listing /cases");
        return -1;
    }
    ctx->failed = 0;
    return 0;
}

/* Schema, /cases and the id list of a freshly opened file. */
static int open_contents(iohw_case_file *f, iohw_error *err)
{
    int64_t schema;
    int has = iohw__h5_has_attr(f->file, "iohw_schema", err);
    if (has < 0)
        return -1;
    if (!has)
        return iohw_error_set(err, "no root attribute 'iohw_schema' (not "
                              "an iohw case file)");
    if (iohw__h5_read_ints(f->file, "iohw_schema", 1, &schema, err) != 0)
        return -1;
    if (schema != IOHW_SCHEMA_VERSION)
        return iohw_error_set(err, "schema %lld is not supported (this iohw "
                              "reads schema %d)", (long long)schema,
                              IOHW_SCHEMA_VERSION);
    f->cases = iohw__h5_open_child(f->file, "cases", H5I_GROUP, err);
    if (f->cases < 0)
        return -1;
    collect_ctx ctx = {f, err, 0};
    if (H5Literate(f->cases, H5_INDEX_NAME, H5_ITER_INC, NULL, collect,
                   &ctx) < 0) {
        if (ctx.failed) {
            H5Eclear2(H5E_DEFAULT);
            return -1;
        }
        return iohw__h5_fail(err, "cannot list /cases");
    }
    iohw__case_ids_sort(f);
    return 0;
}

iohw_case_file *iohw_case_file_open(const char *path, iohw_error *err)
{
    struct stat st;
    char ebuf[128];

    /* Test the arguments and the path. */
    if (path == NULL) {
        iohw_error_set(err, "case file path is NULL");
        return NULL;
    }
    if (path[0] == '\0') {
        iohw_error_set(err, "case file path is empty");
        return NULL;
    }
    iohw__h5_quiet();
    if (stat(path, &st) != 0) {
        iohw_error_set(err, "%s: %s", path,
                       strerror_r(errno, ebuf, sizeof ebuf));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        iohw_error_set(err, "%s: not a regular file", path);
        return NULL;
    }
    if (st.st_size == 0) {
        iohw_error_set(err, "%s: empty file (not an HDF5 file)", path);
        return NULL;
    }
    htri_t is = H5Fis_hdf5(path);
    if (is < 0) {
        iohw__h5_fail(err, "%s: cannot read", path);
        return NULL;
    }
    if (is == 0) {
        iohw_error_set(err, "%s: not an HDF5 file (no HDF5 signature)",
                       path);
        return NULL;
    }

    /* Open it. */
    iohw_case_file *f = iohw__case_file_new(path, err);
    if (f == NULL)
        return NULL;
    hid_t fapl = iohw__h5_fapl();
    f->file = fapl < 0 ? -1 : H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f->file < 0) {
        /* The reason first: every HDF5 call clears the error stack. */
        iohw__h5_fail(err, "%s: cannot open", path);
        iohw__h5_close(fapl);
        iohw__case_file_release(f);
        return NULL;
    }
    iohw__h5_close(fapl);
    if (open_contents(f, err) != 0) {
        iohw_error_prefix(err, "%s", path);
        iohw_case_file_close(f, NULL);
        return NULL;
    }
    return f;
}

int iohw_case_file_count(const iohw_case_file *f)
{
    return f == NULL ? 0 : f->count;
}

const char *iohw_case_file_id(const iohw_case_file *f, int i)
{
    if (f == NULL || i < 0 || i >= f->count)
        return NULL;
    return f->ids[i];
}

const char *iohw_case_file_path(const iohw_case_file *f)
{
    return f == NULL ? NULL : f->path;
}

int iohw_case_file_close(iohw_case_file *f, iohw_error *err)
{
    if (f == NULL)
        return 0;
    iohw__h5_quiet();
    int rc = 0;
    if (f->cases >= 0 && H5Gclose(f->cases) < 0)
        rc = iohw__h5_fail(err, "%s: cannot close /cases", f->path);
    if (f->file >= 0 && H5Fclose(f->file) < 0 && rc == 0)
        rc = iohw__h5_fail(err, "%s: cannot close (the file may be "
                           "incomplete)", f->path);
    if (rc == 0 && f->damaged)
        rc = iohw_error_set(err, "%s: a failed write left an incomplete case "
                            "in the file", f->path);
    /* A file being written lives under a temporary name until now. */
    if (f->writing && f->tmp[0] != '\0') {
        if (rc == 0)
            rc = iohw_atomic_commit(f->tmp, f->path, err);
        else
            iohw_atomic_abandon(f->tmp, f->path);
    }
    iohw__case_file_release(f);
    return rc;
}

void iohw_case_file_abandon(iohw_case_file *f)
{
    if (f == NULL)
        return;
    f->damaged = 1;
    iohw_case_file_close(f, NULL);
}
