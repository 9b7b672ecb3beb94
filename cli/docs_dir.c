/*
 * cli/docs_dir.c - where the documentation the help texts cite (docs/X.md)
 * is on this machine: beside an installed iohw, <prefix>/share/doc/iohw;
 * beside a build tree, the source tree's docs/.
 */
#include "cli/cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef IOHW_DOC_SUBDIR
#define IOHW_DOC_SUBDIR "share/doc/iohw"
#endif

static int is_folder(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *iohw_cli_docs_dir(void)
{
    static char dir[PATH_MAX + 32];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL)
            *slash = '\0';   /* <prefix>/bin */
        snprintf(dir, sizeof dir, "%s/../" IOHW_DOC_SUBDIR, exe);
        if (is_folder(dir) && realpath(dir, exe) != NULL) {
            snprintf(dir, sizeof dir, "%s", exe);
            return dir;
        }
    }
#ifdef IOHW_SOURCE_DOCS
    if (is_folder(IOHW_SOURCE_DOCS))
        return IOHW_SOURCE_DOCS;
#endif
    return "docs/ of the iohw source tree";
}
