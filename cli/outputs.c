/*
 * cli/outputs.c - before a run starts, make sure every file it will write
 * can be written: the missing folders of each path are made (as mkdir -p
 * does) and the folder, or the file when it exists, must be writable.
 */
#include "cli/cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Makes the folder dir and its missing parents; 0, or -1 with errno. */
static int make_folders(const char *dir)
{
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; ; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        if (stat(path, &st) != 0)
            return -1;
        if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return -1;
        }
        *p = c;
        if (c == '\0')
            return 0;
    }
}

void iohw_cli_folder_of(const char *path, char *buf, size_t n)
{
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    if (slash == NULL)
        snprintf(buf, n, ".");
    else if (slash == path)
        snprintf(buf, n, "/");
    else
        snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

int iohw_cli_writable_folder(const char *what, const char *dir)
{
    if (make_folders(dir) != 0 || access(dir, W_OK | X_OK) != 0) {
        iohw_cli_error("cannot write %s in '%s': %s", what, dir, strerror(errno));
        return -1;
    }
    return 0;
}

int iohw_cli_writable_file(const char *what, const char *path)
{
    char dir[4096];
    struct stat st;
    if (path == NULL)
        return 0;
    iohw_cli_folder_of(path, dir, sizeof dir);
    if (iohw_cli_writable_folder(what, dir) != 0)
        return -1;
    if (stat(path, &st) != 0)
        return 0;
    if (S_ISDIR(st.st_mode) || access(path, W_OK) != 0) {
        iohw_cli_error("cannot write %s '%s': %s", what, path,
                       S_ISDIR(st.st_mode) ? strerror(EISDIR) : strerror(errno));
        return -1;
    }
    return 0;
}
