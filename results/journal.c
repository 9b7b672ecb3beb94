/*
 * results/journal.c - writing the run journal (JSON lines of result records,
 * results/record.h) and reading it back line by line.
 */
#include "results/journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --- one line ------------------------------------------------------------ */

int iohw_journal_format(const iohw_result *r, char *buf, size_t n)
{
    int len = iohw_record_encode(r, buf, n > 0 ? n - 1 : 0);
    if (len < 0)
        return -1;
    buf[len] = '\n';
    buf[len + 1] = '\0';
    return len + 1;
}

int iohw_journal_parse(const char *line, iohw_result *r, iohw_error *err)
{
    size_t len = strlen(line);
    if (iohw_record_decode(line, len, r, err) != 0)
        return iohw_error_prefix(err, "journal line");
    return 0;
}

/* --- reading ------------------------------------------------------------- */

int iohw_journal_read(const char *path, iohw_result **items, int64_t *count,
                      FILE *warn, int64_t *skipped, iohw_error *err)
{
    *items = NULL;
    *count = 0;
    if (skipped != NULL)
        *skipped = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        if (errno == ENOENT)
            return 0;
        return iohw_error_set(err, "cannot read journal %s: %s", path,
                              strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0, icap = 0;
    ssize_t len;
    int64_t lineno = 0;
    int rc = 0;
    while ((len = getline(&line, &cap, f)) != -1) {
        lineno++;
        if (len == 0 || (len == 1 && line[0] == '\n'))
            continue;
        iohw_result r;
        iohw_error e = {{0}};
        if (iohw_journal_parse(line, &r, &e) != 0) {
            if (warn != NULL)
                fprintf(warn, "iohw: %s:%lld: %s (a line cut short by a "
                        "killed run?), ignored\n", path, (long long)lineno,
                        e.msg);
            if (skipped != NULL)
                (*skipped)++;
            continue;
        }
        if ((size_t)*count == icap) {
            size_t ncap = icap ? 2 * icap : 256;
            iohw_result *v = realloc(*items, ncap * sizeof *v);
            if (v == NULL) {
                rc = iohw_error_set(err, "out of memory reading journal %s",
                                    path);
                break;
            }
            *items = v;
            icap = ncap;
        }
        (*items)[(*count)++] = r;
    }
    if (rc == 0 && ferror(f))
        rc = iohw_error_set(err, "cannot read journal %s: %s", path,
                            strerror(errno));
    free(line);
    fclose(f);
    if (rc != 0) {
        free(*items);
        *items = NULL;
        *count = 0;
    }
    return rc;
}

/* --- writing ------------------------------------------------------------- */

struct iohw_journal {
    FILE *f;
    char *path;
    int failed;
};

/* 1 when the file is non-empty and its last byte is not '\n'. */
static int ends_mid_line(FILE *f)
{
    if (fseek(f, 0, SEEK_END) != 0)
        return 0;
    long size = ftell(f);
    if (size <= 0 || fseek(f, size - 1, SEEK_SET) != 0)
        return 0;
    int last = fgetc(f);
    fseek(f, 0, SEEK_END);
    return last != '\n';
}

iohw_journal *iohw_journal_open(const char *path, int append, iohw_error *err)
{
    iohw_journal *j = calloc(1, sizeof *j);
    if (j == NULL) {
        iohw_error_set(err, "out of memory opening journal %s", path);
        return NULL;
    }
    j->path = strdup(path);
    j->f = j->path != NULL ? fopen(path, append ? "a+" : "w") : NULL;
    if (j->f == NULL) {
        iohw_error_set(err, "cannot write journal %s: %s", path,
                       j->path != NULL ? strerror(errno) : "out of memory");
        free(j->path);
        free(j);
        return NULL;
    }
    if (append && ends_mid_line(j->f)) {
        fputc('\n', j->f);
        fflush(j->f);
    }
    return j;
}

int iohw_journal_append(iohw_journal *j, const iohw_result *r, iohw_error *err)
{
    size_t size = iohw_record_size(r) + 1;
    char *line = malloc(size);
    if (line == NULL || iohw_journal_format(r, line, size) < 0) {
        free(line);
        return iohw_error_set(err, "journal %s: out of memory writing a "
                              "result", j->path);
    }
    int bad = fputs(line, j->f) == EOF || fflush(j->f) != 0;
    free(line);
    if (bad) {
        j->failed = 1;
        return iohw_error_set(err, "cannot write journal %s: %s", j->path,
                              strerror(errno));
    }
    return 0;
}

int iohw_journal_close(iohw_journal *j, iohw_error *err)
{
    if (j == NULL)
        return 0;
    int rc = 0;
    if (fclose(j->f) != 0 || j->failed)
        rc = iohw_error_set(err, "cannot write journal %s", j->path);
    free(j->path);
    free(j);
    return rc;
}
