/*
 * cli/show_suite.c - `iohw show DIR`: a suite directory's cases counted by
 * file, rank, dtype, fill and tag, and checked against its manifest
 * (cli/show.h; specification section 9).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/case.h"
#include "cli/cli.h"
#include "cli/show.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

/* --- suite directories --------------------------------------------------- */

/* Named counts, kept sorted by name. */
typedef struct tally {
    char (*name)[64];
    long long *n;
    int count, cap;
} tally;

static int tally_add(tally *t, const char *name, size_t len)
{
    int lo = 0, hi = t->count;
    if (len >= 64)
        len = 63;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        int c = strncmp(t->name[mid], name, len);
        if (c == 0 && t->name[mid][len] != '\0')
            c = 1;
        if (c == 0) {
            t->n[mid]++;
            return 0;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (t->count == t->cap) {
        int cap = t->cap > 0 ? 2 * t->cap : 32;
        void *nv = realloc(t->name, (size_t)cap * sizeof *t->name);
        if (nv == NULL)
            return -1;
        t->name = nv;
        nv = realloc(t->n, (size_t)cap * sizeof *t->n);
        if (nv == NULL)
            return -1;
        t->n = nv;
        t->cap = cap;
    }
    memmove(t->name + lo + 1, t->name + lo, (size_t)(t->count - lo) * sizeof *t->name);
    memmove(t->n + lo + 1, t->n + lo, (size_t)(t->count - lo) * sizeof *t->n);
    memcpy(t->name[lo], name, len);
    t->name[lo][len] = '\0';
    t->n[lo] = 1;
    t->count++;
    return 0;
}

static void tally_print(const char *title, const tally *t)
{
    printf("%s\n", title);
    for (int i = 0; i < t->count; i++)
        printf("  %-24s %8lld\n", t->name[i], t->n[i]);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What a suite's cases are counted by. */
enum { BY_FILE, BY_RANK, BY_DTYPE, BY_FILL, BY_TAG, NTALLIES };

/* Counts the cases of one file into the tallies; -1 after a message. */

static int tally_file(const char *dir, const char *name, tally t[NTALLIES], long long *cases)
{
    char path[4096];
    iohw_error e;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    if (f == NULL) {
        iohw_cli_error("show: %s", e.msg);
        return -1;
    }
    int rc = 0;
    for (int j = 0; j < iohw_case_file_count(f) && rc == 0; j++) {
        iohw_case c;
        if (iohw_case_file_read(f, iohw_case_file_id(f, j), IOHW_READ_ATTRS, &c, &e) != 0) {
            iohw_cli_error("show: %s", e.msg);
            rc = -1;
            break;
        }
        char rank[8];
        snprintf(rank, sizeof rank, "%ud", (unsigned)c.p.rank);
        const char *dt = iohw_dtype_name(c.p.dtype);
        rc |= tally_add(&t[BY_FILE], name, strlen(name));
        rc |= tally_add(&t[BY_RANK], rank, strlen(rank));
        rc |= tally_add(&t[BY_DTYPE], dt, strlen(dt));
        rc |= tally_add(&t[BY_FILL], c.fill, strlen(c.fill));
        for (const char *s = c.tags; s != NULL && *s != '\0';) {
            const char *comma = strchr(s, ',');
            size_t len = comma != NULL ? (size_t)(comma - s) : strlen(s);
            rc |= tally_add(&t[BY_TAG], s, len);
            s = comma != NULL ? comma + 1 : NULL;
        }
        if (rc != 0)
            iohw_cli_error("show: out of memory");
        (*cases)++;
        iohw_case_free(&c);
    }
    iohw_case_file_close(f, NULL);
    return rc;
}

/* The *.h5 names in dir, sorted, into *names (malloc'd, each name too).
 * 0, or -1 after a message (none there, or out of memory). */
static int list_case_files(const char *dir, char ***names, int *nnames)
{
    int cap = 0, rc = 0;
    DIR *d = opendir(dir);
    if (d == NULL) {
        iohw_cli_error("show: cannot read directory %s", dir);
        return -1;
    }
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL && rc == 0) {
        size_t len = strlen(ent->d_name);
        if (len < 4 || strcmp(ent->d_name + len - 3, ".h5") != 0)
            continue;
        if (*nnames == cap) {
            cap = cap > 0 ? 2 * cap : 16;
            char **v = realloc(*names, (size_t)cap * sizeof *v);
            if (v == NULL) {
                rc = -1;
                break;
            }
            *names = v;
        }
        char *name = malloc(len + 1);
        if (name == NULL) {
            rc = -1;
            break;
        }
        memcpy(name, ent->d_name, len + 1);
        (*names)[(*nnames)++] = name;
    }
    closedir(d);
    if (rc != 0) {
        iohw_cli_error("show: out of memory listing %s", dir);
        return -1;
    }
    if (*nnames == 0) {
        iohw_cli_error("show: %s holds no *.h5 case file", dir);
        return -1;
    }
    qsort(*names, (size_t)*nnames, sizeof **names, cmp_names);
    return 0;
}

/* Says how many cases dir's manifest.txt lists, when it has one, and
 * whether that matches the files. */
static void print_manifest_check(const char *dir, long long cases)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    FILE *m = fopen(path, "r");
    if (m == NULL)
        return;
    long long lines = 0;
    int ch;
    while ((ch = fgetc(m)) != EOF)
        lines += ch == '\n';
    fclose(m);
    printf("manifest.txt lists %lld cases%s\n", lines,
           lines == cases ? "" : " (it does not match the files)");
}

/* `iohw show DIR`: the suite's cases counted by file, rank, dtype, fill and
 * tag. */
int iohw__show_suite(const char *dir)
{
    static const char *const titles[NTALLIES] = {
        [BY_FILE] = "file", [BY_RANK] = "rank", [BY_DTYPE] = "dtype",
        [BY_FILL] = "fill", [BY_TAG] = "tag"};
    tally t[NTALLIES];
    char **names = NULL;
    int nnames = 0;
    long long cases = 0, bytes = 0;

    int rc = list_case_files(dir, &names, &nnames);

    /* Count. */
    memset(t, 0, sizeof t);
    for (int k = 0; k < nnames && rc == 0; k++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        if (stat(path, &st) == 0)
            bytes += (long long)st.st_size;
        rc = tally_file(dir, names[k], t, &cases);
    }

    /* Print. */
    if (rc == 0) {
        printf("suite %s: %lld cases in %d files, %lld bytes\n", dir, cases, nnames, bytes);
        print_manifest_check(dir, cases);
        for (int k = 0; k < NTALLIES; k++)
            tally_print(titles[k], &t[k]);
    }
    for (int k = 0; k < NTALLIES; k++) {
        free(t[k].name);
        free(t[k].n);
    }
    for (int k = 0; k < nnames; k++)
        free(names[k]);
    free(names);
    return rc;
}

