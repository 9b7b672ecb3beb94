/*
 * tests/fuzz/replay.c - feeds every file of the corpora named on the
 * command line (directories or files) to a harness's LLVMFuzzerTestOneInput,
 * so that the seeds and past findings replay under the normal build's
 * sanitizers (GCC's AddressSanitizer cannot link libFuzzer).
 */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    for (size_t k; buf != NULL && (k = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += k;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (buf == NULL)
        return -1;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir, in name order. */
static int replay_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof *names, cmp_names);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            rc |= replay_file(path);
            (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[i]);
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            rc |= replay_dir(argv[i], &count);
        } else {
            rc |= replay_file(argv[i]);
            count++;
        }
    }
    printf("replayed %d inputs\n", count);
    return rc != 0 || count == 0 ? 1 : 0;
}
