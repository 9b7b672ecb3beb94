/*
 * harness/suite.c - expanding suite directories and case files into the list
 * of cases a run covers (see suite.h).
 */
#include "harness/suite.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
static int add_entry(iohw_suite *s, int64_t *cap, const char *id, int file,
                     const char *descriptor, const char *tags,
                     const char *invalid)
{
    if (s->count == *cap) {
        int64_t ncap = *cap ? 2 * *cap : 64;
        iohw_suite_entry *v = realloc(s->entries, (size_t)ncap * sizeof *v);
        if (v == NULL)
            return -1;
        s->entries = v;
        *cap = ncap;
    }
    iohw_suite_entry *e = &s->entries[s->count];
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
static int add_file_cases(iohw_suite *s, int64_t *cap, int fi,
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

int iohw_suite_build(const char *const *inputs, int ninputs,
                     const iohw_filter *filter, int shard_index,
                     int shard_count, iohw_suite *s, iohw_error *err)
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
        if (add_file_cases(s, &cap, fi, filter, shard_index, shard_count,
                           err) != 0) {
            iohw_suite_free(s);
            return -1;
        }
    }
    return 0;
}

void iohw_suite_free(iohw_suite *s)
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
