/*
 * harness/listing.c - expanding suite directories and case files into the list
 * of cases a run covers (see listing.h).
 */
#include "harness/listing.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/pipe.h"

/* A growable list of malloc'd strings. */
typedef struct strlist {
    char **v;
    int n, cap;
} strlist;

static int strlist_push(strlist *l, const char *s)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (v == NULL)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n] = strdup(s);
    if (l->v[l->n] == NULL)
        return -1;
    l->n++;
    return 0;
}

static void strlist_free(strlist *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with_h5(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".h5") == 0;
}

static int already_listed(const strlist *files, const char *path)
{
    for (int i = 0; i < files->n; i++)
        if (strcmp(files->v[i], path) == 0)
            return 1;
    return 0;
}

/* Appends dir's *.h5 regular files, sorted by name. */
static int add_directory(const char *dir, strlist *files, iohw_error *err)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return iohw_error_set(err, "cannot read directory %s: %s", dir,
                              strerror(errno));
    strlist names = {0};
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!ends_with_h5(e->d_name))
            continue;
        if (strlist_push(&names, e->d_name) != 0) {
            closedir(d);
            strlist_free(&names);
            return iohw_error_set(err, "out of memory listing %s", dir);
        }
    }
    closedir(d);
    if (names.n > 0)
        qsort(names.v, (size_t)names.n, sizeof *names.v, cmp_str);

    int added = 0;
    size_t dlen = strlen(dir);
    int slash = dlen > 0 && dir[dlen - 1] == '/';
    for (int i = 0; i < names.n; i++) {
        size_t len = dlen + 1 + strlen(names.v[i]) + 1;
        char *path = malloc(len);
        if (path == NULL) {
            strlist_free(&names);
            return iohw_error_set(err, "out of memory listing %s", dir);
        }
        snprintf(path, len, "%s%s%s", dir, slash ? "" : "/", names.v[i]);
        struct stat st;
        int rc = 0;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (!already_listed(files, path))
                rc = strlist_push(files, path);
            added++;
        }
        free(path);
        if (rc != 0) {
            strlist_free(&names);
            return iohw_error_set(err, "out of memory listing %s", dir);
        }
    }
    strlist_free(&names);
    if (added == 0)
        return iohw_error_set(err, "suite directory %s holds no .h5 file", dir);
    return 0;
}

/* Appends an entry; takes descriptor, tags and invalid as borrowed strings
 * (copied; NULL reads as ""/none). */
static int add_entry(iohw_listing *s, int64_t *cap, const char *id, int file,
                     const char *descriptor, const char *tags,
                     const char *invalid)
{
    if (s->count == *cap) {
        int64_t ncap = *cap ? 2 * *cap : 64;
        iohw_listing_entry *v = realloc(s->entries, (size_t)ncap * sizeof *v);
        if (v == NULL)
            return -1;
        s->entries = v;
        *cap = ncap;
    }
    iohw_listing_entry *e = &s->entries[s->count];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->file = file;
    e->descriptor = strdup(descriptor ? descriptor : "");
    e->tags = strdup(tags ? tags : "");
    e->invalid = invalid ? strdup(invalid) : NULL;
    if (e->descriptor == NULL || e->tags == NULL || (invalid && !e->invalid)) {
        free(e->descriptor);
        free(e->tags);
        free(e->invalid);
        return -1;
    }
    s->count++;
    return 0;
}

/* Whether a case whose attributes could not be read is selected: it is
 * matched on its id alone. */
static int stub_match(const iohw_filter *filter, const char *id)
{
    if (filter == NULL)
        return 1;
    iohw_case stub;
    memset(&stub, 0, sizeof stub);
    snprintf(stub.id, sizeof stub.id, "%s", id);
    stub.p.struct_size = sizeof stub.p;
    char empty[1] = "";
    stub.tags = empty;
    stub.descriptor = empty;
    return iohw_filter_match(filter, &stub);
}

/* Adds the selected cases of one file. */
static int add_file_cases(iohw_listing *s, int64_t *cap, int fi,
                          const iohw_filter *filter, int shard_index,
                          int shard_count, iohw_error *err)
{
    const char *path = s->files[fi];
    iohw_error e = {{0}};
    iohw_case_file *f = iohw_case_file_open(path, &e);
    if (f == NULL) {
        if (!iohw_shard_match(path, shard_index, shard_count))
            return 0;
        if (add_entry(s, cap, "", fi, NULL, NULL, e.msg) != 0)
            return iohw_error_set(err, "out of memory listing %s", path);
        return 0;
    }
    int n = iohw_case_file_count(f);
    for (int i = 0; i < n; i++) {
        const char *id = iohw_case_file_id(f, i);
        if (id == NULL || !iohw_shard_match(id, shard_index, shard_count))
            continue;
        iohw_case c;
        memset(&c, 0, sizeof c);
        int rc;
        if (iohw_case_file_read(f, id, IOHW_READ_ATTRS, &c, &e) != 0) {
            rc = stub_match(filter, id)
                     ? add_entry(s, cap, id, fi, NULL, NULL, e.msg)
                     : 0;
        } else {
            rc = filter == NULL || iohw_filter_match(filter, &c)
                     ? add_entry(s, cap, id, fi, c.descriptor, c.tags, NULL)
                     : 0;
            iohw_case_free(&c);
        }
        if (rc != 0) {
            iohw_case_file_close(f, NULL);
            return iohw_error_set(err, "out of memory listing %s", path);
        }
    }
    iohw_case_file_close(f, NULL);
    return 0;
}

/* --- listing a file in a child process ------------------------------------
 *
 * A corrupt file can crash libhdf5 itself (heap errors on flipped bytes of
 * the old object format) or make it loop for ever, so each file is listed
 * in a guarded child (sandbox/guard.h: a time and a memory limit) that
 * sends its entries back: a crash, a hang or a runaway allocation there
 * becomes an INVALID entry for the file instead of the end of the run.
 * Records: four strings (id, descriptor, tags, invalid), each a uint32_t
 * length (UINT32_MAX for NULL) and its bytes; then a record whose id length
 * is UINT32_MAX - 1 ends the stream, or UINT32_MAX - 2 followed by a
 * message reports an error. */

#define LIST_END (UINT32_MAX - 1)
#define LIST_ERROR (UINT32_MAX - 2)

static int send_string(int fd, const char *str)
{
    uint32_t n = str != NULL ? (uint32_t)strlen(str) : UINT32_MAX;
    if (iohw__write_full(fd, &n, sizeof n) != 0)
        return -1;
    return str != NULL && n > 0 ? iohw__write_full(fd, str, n) : 0;
}

/* What the child sent, read front to back. */
typedef struct cursor {
    const char *p;
    size_t left;
} cursor;

/* Reads a string sent by send_string into *out (malloc'd, NULL for NULL);
 * *len receives the length word.  Returns 0, or -1 on a short stream. */
static int recv_string(cursor *c, uint32_t *len, char **out)
{
    *out = NULL;
    if (c->left < sizeof *len)
        return -1;
    memcpy(len, c->p, sizeof *len);
    c->p += sizeof *len, c->left -= sizeof *len;
    if (*len >= LIST_ERROR)
        return 0;
    if (*len > c->left)
        return -1;
    char *str = malloc((size_t)*len + 1);
    if (str == NULL)
        return -1;
    memcpy(str, c->p, *len);
    str[*len] = '\0';
    c->p += *len, c->left -= *len;
    *out = str;
    return 0;
}

typedef struct list_job {
    const iohw_listing *s;
    int fi;
    const iohw_filter *filter;
    int shard_index, shard_count;
} list_job;

/* In the child: lists file fi into a scratch suite and sends it. */
static int list_child(void *arg, int fd)
{
    const list_job *j = arg;
    iohw_listing t;
    memset(&t, 0, sizeof t);
    t.files = j->s->files;
    t.nfiles = j->s->nfiles;
    int64_t cap = 0;
    iohw_error err = {{0}};
    int rc = add_file_cases(&t, &cap, j->fi, j->filter, j->shard_index,
                            j->shard_count, &err);
    for (int64_t i = 0; rc == 0 && i < t.count; i++) {
        const iohw_listing_entry *e = &t.entries[i];
        rc = send_string(fd, e->id) | send_string(fd, e->descriptor) |
             send_string(fd, e->tags) | send_string(fd, e->invalid);
    }
    if (rc == 0) {
        uint32_t end = LIST_END;
        rc = iohw__write_full(fd, &end, sizeof end);
    } else if (err.msg[0] != '\0') {
        uint32_t e = LIST_ERROR;
        (void)iohw__write_full(fd, &e, sizeof e);
        (void)send_string(fd, err.msg);
    }
    return rc == 0 ? 0 : 1;
}

/* Adds the entries the child sent; *complete when the stream ended well,
 * *child_error (malloc'd) when the child reported an error. */
static int take_entries(iohw_listing *s, int64_t *cap, int fi, cursor *c,
                        int *complete, char **child_error)
{
    for (;;) {
        uint32_t n;
        char *str[4] = {NULL, NULL, NULL, NULL};
        if (recv_string(c, &n, &str[0]) != 0)
            return 0;
        if (n == LIST_END) {
            *complete = 1;
            return 0;
        }
        if (n == LIST_ERROR) {
            uint32_t m;
            if (recv_string(c, &m, child_error) != 0)
                *child_error = NULL;
            return 0;
        }
        int bad = 0, rc = 0;
        for (int k = 1; k < 4 && !bad; k++) {
            if (recv_string(c, &n, &str[k]) != 0)
                bad = 1;
            else if (n == LIST_END || n == LIST_ERROR)
                bad = 1;  /* a marker where a string belongs */
        }
        if (!bad)
            rc = add_entry(s, cap, str[0] ? str[0] : "", fi, str[1], str[2], str[3]);
        for (int k = 0; k < 4; k++)
            free(str[k]);
        if (rc != 0)
            return -1;
        if (bad)
            return 0;
    }
}

/* Adds file fi's selected cases, listed in a guarded child under lim
 * (NULL: the file's own iohw_guard_read_limits). */
static int add_file_isolated(iohw_listing *s, int64_t *cap, int fi,
                             const iohw_filter *filter, int shard_index,
                             int shard_count, const iohw_guard_limits *given,
                             iohw_error *err)
{
    const char *path = s->files[fi];
    const iohw_guard_limits own = iohw_guard_read_limits(path);
    const iohw_guard_limits *lim = given != NULL ? given : &own;
    list_job job = {s, fi, filter, shard_index, shard_count};
    iohw_guard_outcome out;
    if (iohw_guard_run(list_child, &job, path, lim, &out, err) != 0)
        return iohw_error_prefix(err, "listing %s", path);
    cursor c = {out.output, out.output_len};
    int complete = 0;
    char *child_error = NULL;
    int rc = take_entries(s, cap, fi, &c, &complete, &child_error);
    if (rc != 0) {
        free(child_error);
        iohw_guard_outcome_free(&out);
        return iohw_error_set(err, "out of memory listing %s", path);
    }
    if (child_error != NULL) {
        iohw_error_set(err, "%s", child_error);
        free(child_error);
        iohw_guard_outcome_free(&out);
        return -1;
    }
    if (!complete || !iohw_guard_ok(&out)) {
        /* The reader died or was stopped: what was not listed is INVALID. */
        char why[IOHW_ERROR_MAX];
        iohw_guard_describe(&out, lim, path, why, sizeof why);
        if (iohw_shard_match(path, shard_index, shard_count) &&
            add_entry(s, cap, "", fi, NULL, NULL, why) != 0)
            rc = iohw_error_set(err, "out of memory listing %s", path);
    }
    iohw_guard_outcome_free(&out);
    return rc;
}

int iohw_listing_build(const char *const *inputs, int ninputs,
                       const iohw_filter *filter, int shard_index,
                       int shard_count, iohw_listing *s, iohw_error *err)
{
    return iohw_listing_build_limited(inputs, ninputs, filter, shard_index,
                                      shard_count, NULL, s, err);
}

int iohw_listing_build_limited(const char *const *inputs, int ninputs,
                               const iohw_filter *filter, int shard_index,
                               int shard_count, const iohw_guard_limits *lim,
                               iohw_listing *s, iohw_error *err)
{
    memset(s, 0, sizeof *s);
    if (inputs == NULL || ninputs < 1)
        return iohw_error_set(err, "no suite directory or case file given");
    if (shard_count < 1 || shard_index < 1 || shard_index > shard_count)
        return iohw_error_set(err, "shard %d/%d: expected 1 <= I <= N",
                              shard_index, shard_count);

    /* Expand the inputs into files. */
    strlist files = {0};
    for (int i = 0; i < ninputs; i++) {
        const char *in = inputs[i];
        struct stat st;
        if (in == NULL || stat(in, &st) != 0) {
            iohw_error_set(err, "cannot read %s: %s", in ? in : "(null)",
                           strerror(errno));
            strlist_free(&files);
            return -1;
        }
        int rc;
        if (S_ISDIR(st.st_mode)) {
            rc = add_directory(in, &files, err);
        } else if (S_ISREG(st.st_mode)) {
            rc = already_listed(&files, in) ? 0 : strlist_push(&files, in);
            if (rc != 0)
                iohw_error_set(err, "out of memory listing %s", in);
        } else {
            rc = iohw_error_set(err, "%s is neither a case file nor a suite "
                                     "directory", in);
        }
        if (rc != 0) {
            strlist_free(&files);
            return -1;
        }
    }
    s->files = files.v;
    s->nfiles = files.n;

    /* Enumerate each file's cases. */
    int64_t cap = 0;
    for (int fi = 0; fi < s->nfiles; fi++) {
        if (add_file_isolated(s, &cap, fi, filter, shard_index, shard_count,
                              lim, err) != 0) {
            iohw_listing_free(s);
            return -1;
        }
    }
    return 0;
}

void iohw_listing_free(iohw_listing *s)
{
    for (int64_t i = 0; i < s->count; i++) {
        free(s->entries[i].descriptor);
        free(s->entries[i].tags);
        free(s->entries[i].invalid);
    }
    free(s->entries);
    for (int i = 0; i < s->nfiles; i++)
        free(s->files[i]);
    free(s->files);
    memset(s, 0, sizeof *s);
}
