/*
 * cli/filter_tags.c - when a --filter selects no case, name each tag it
 * asks for that no case carries, with the nearest tag the cases do carry
 * ("unknown tag 'dilate'; did you mean 'dilated'?").
 */
#include "cli/cli.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cases/case.h"

#define TAGS_MAX 512
#define TAG_LEN 64

/* The distinct tags of the cases read so far. */
typedef struct tag_set {
    char names[TAGS_MAX][TAG_LEN];
    const char *list[TAGS_MAX];
    int count;
} tag_set;

static void add_tags(tag_set *s, const char *tags)
{
    for (const char *p = tags; *p != '\0'; ) {
        size_t len = strcspn(p, ",");
        int seen = len == 0 || len >= TAG_LEN;
        for (int i = 0; i < s->count && !seen; i++)
            seen = strlen(s->names[i]) == len && strncmp(s->names[i], p, len) == 0;
        if (!seen && s->count < TAGS_MAX) {
            memcpy(s->names[s->count], p, len);
            s->names[s->count][len] = '\0';
            s->list[s->count] = s->names[s->count];
            s->count++;
        }
        p += len + (p[len] == ',');
    }
}

/* The tags of every case of one case file (unreadable files add none). */
static void add_file(tag_set *s, const char *path)
{
    iohw_error err = {{0}};
    iohw_case_file *f = iohw_case_file_open(path, &err);
    if (f == NULL)
        return;
    for (int i = 0; i < iohw_case_file_count(f); i++) {
        iohw_case c;
        if (iohw_case_file_read(f, iohw_case_file_id(f, i), IOHW_READ_ATTRS, &c, &err) != 0)
            continue;
        add_tags(s, c.tags);
        iohw_case_free(&c);
    }
    iohw_case_file_close(f, &err);
}

/* A case file, or the *.h5 files of a suite directory. */
static void add_input(tag_set *s, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        add_file(s, path);
        return;
    }
    DIR *d = opendir(path);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        char file[4200];
        if (n < 3 || strcmp(e->d_name + n - 3, ".h5") != 0)
            continue;
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        add_file(s, file);
    }
    if (d != NULL)
        closedir(d);
}

/* The tag a condition asks about ("tag=NAME", "tag != NAME"), into buf;
 * 0 when the condition is about something else. */
static int condition_tag(const char *cond, size_t n, char *buf, size_t size)
{
    while (n > 0 && isspace((unsigned char)*cond))
        cond++, n--;
    if (n < 4 || strncmp(cond, "tag", 3) != 0)
        return 0;
    size_t k = 3;
    while (k < n && isspace((unsigned char)cond[k]))
        k++;
    if (k < n && cond[k] == '!')
        k++;
    if (k >= n || cond[k] != '=')
        return 0;
    for (k++; k < n && isspace((unsigned char)cond[k]); k++)
        ;
    while (n > k && isspace((unsigned char)cond[n - 1]))
        n--;
    snprintf(buf, size, "%.*s", (int)(n - k), cond + k);
    return buf[0] != '\0';
}

int iohw_cli_unknown_tags(const char *filter, const char *const *inputs, int ninputs)
{
    tag_set *s = filter != NULL && strstr(filter, "tag") ? calloc(1, sizeof *s) : NULL;
    int named = 0;
    if (s == NULL)
        return 0;
    for (int i = 0; i < ninputs; i++)
        add_input(s, inputs[i]);
    for (const char *p = filter; *p != '\0'; ) {
        size_t len = strcspn(p, ",");
        char tag[TAG_LEN * 2];
        int known = 0;
        if (condition_tag(p, len, tag, sizeof tag)) {
            for (int i = 0; i < s->count && !known; i++)
                known = strcmp(s->names[i], tag) == 0;
            const char *near = known ? NULL : iohw_cli_nearest(tag, s->list, s->count);
            if (!known && near != NULL)
                iohw_cli_error("unknown tag '%s'; did you mean '%s'?", tag, near);
            else if (!known)
                iohw_cli_error("unknown tag '%s': no case carries it", tag);
            named += !known;
        }
        p += len + (p[len] == ',');
    }
    free(s);
    return named;
}
