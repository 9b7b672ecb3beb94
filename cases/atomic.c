/*
 * cases/atomic.c - temporary files renamed into place (see atomic.h).
 */
#include "cases/atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when path exists and is not a regular file (a device, a FIFO). */
static int special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

int iohw_atomic_create(const char *path, char *tmp, size_t n, iohw_error *err)
{
    int len = snprintf(tmp, n, special(path) ? "%s" : "%s.tmp-XXXXXX", path);
    if (len < 0 || (size_t)len >= n)
        return iohw_error_set(err, "%s: path too long for a temporary name", path);
    if (strcmp(tmp, path) == 0)
        return 0;
    int fd = mkstemp(tmp);
    if (fd < 0)
        return iohw_error_set(err, "%s: %s", path, strerror(errno));
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return iohw_error_set(err, "%s: %s", path, strerror(e));
    }
    return 0;
}

FILE *iohw_atomic_fopen(const char *path, char *tmp, size_t n, iohw_error *err)
{
    if (iohw_atomic_create(path, tmp, n, err) != 0)
        return NULL;
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        iohw_error_set(err, "%s: %s", path, strerror(errno));
        iohw_atomic_abandon(tmp, path);
    }
    return f;
}

int iohw_atomic_commit(const char *tmp, const char *path, iohw_error *err)
{
    if (strcmp(tmp, path) == 0)
        return 0;
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return iohw_error_set(err, "%s: %s", path, strerror(e));
    }
    return 0;
}

void iohw_atomic_abandon(const char *tmp, const char *path)
{
    if (tmp != NULL && tmp[0] != '\0' && strcmp(tmp, path) != 0)
        unlink(tmp);
}

int iohw_atomic_fclose(FILE *f, int ok, const char *tmp, const char *path,
                       iohw_error *err)
{
    errno = 0;
    int closed = fclose(f) == 0;
    int e = errno;
    if (!ok || !closed) {
        iohw_atomic_abandon(tmp, path);
        return ok ? iohw_error_set(err, "%s: %s", path,
                                   e != 0 ? strerror(e) : "write error")
                  : -1;
    }
    return iohw_atomic_commit(tmp, path, err);
}
