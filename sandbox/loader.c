/*
 * sandbox/loader.c - loading a backend shared object (iohw/backend.h).
 *
 * Steps, each failure naming the path and the reason:
 *   1. dlopen(path, RTLD_NOW | RTLD_LOCAL)  - dlerror() verbatim;
 *   2. dlsym("iohw_backend_entry")         - dlerror() verbatim;
 *   3. entry(IOHW_ABI_VERSION)             - NULL: the backend refused us;
 *   4. abi_version, then struct_size       - read before any other member,
 *                                            so a short table is never read
 *                                            past its end;
 *   5. required members: name, version, supports, run, last_error;
 *   6. init (optional)                     - its status and last_error text.
 * On any failure the library is closed again and *lb is zeroed.
 *
 * A path without a '/' would make dlopen search the system's library path
 * instead of the current directory; when such a file exists in the current
 * directory the loader opens "./path", which is what a user typing
 * `--backend libmine.so` means.
 */
#include "sandbox/loader.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ENTRY_SYMBOL "iohw_backend_entry"

const char *iohw_backend_status_name(int status)
{
    switch (status) {
#define STATUS_CASE(name, code, meaning) case code: return "IOHW_" #name;
    IOHW_STATUS_MAP(STATUS_CASE)
#undef STATUS_CASE
    default: return "not an iohw_status";
    }
}

/* The text dlerror() holds, never NULL. */
static const char *dl_message(void)
{
    const char *s = dlerror();
    return s != NULL ? s : "unknown dynamic loader error";
}

/* Closes a half-loaded backend and passes the error through. */
static int fail(iohw_loaded_backend *lb, void *handle)
{
    if (handle != NULL)
        dlclose(handle);
    memset(lb, 0, sizeof *lb);
    return -1;
}

/* Checks the members a version 1 host needs; 0 or -1. */
static int check_table(const char *path, const iohw_backend *t, iohw_error *err)
{
    /* abi_version and struct_size first: nothing else may be read before
     * we know the table is long enough. */
    if (t->abi_version != IOHW_ABI_VERSION)
        return iohw_error_set(err,
            "backend '%s': abi_version is %u but this host implements ABI "
            "version %u (iohw_backend_entry(%u) must return a version %u "
            "table or NULL)", path, (unsigned)t->abi_version,
            (unsigned)IOHW_ABI_VERSION, (unsigned)IOHW_ABI_VERSION,
            (unsigned)IOHW_ABI_VERSION);
    if ((size_t)t->struct_size < IOHW_BACKEND_SIZE_V1)
        return iohw_error_set(err,
            "backend '%s': struct_size is %u bytes, smaller than the %zu "
            "bytes of an ABI version %u iohw_backend table", path,
            (unsigned)t->struct_size, (size_t)IOHW_BACKEND_SIZE_V1,
            (unsigned)IOHW_ABI_VERSION);

    /* Required members, in table order. */
    if (t->name == NULL)
        return iohw_error_set(err, "backend '%s': name is NULL", path);
    if (t->version == NULL)
        return iohw_error_set(err, "backend '%s': version is NULL", path);
    if (t->supports == NULL)
        return iohw_error_set(err,
            "backend '%s': supports is NULL (a required callback)", path);
    if (t->run == NULL)
        return iohw_error_set(err,
            "backend '%s': run is NULL (a required callback)", path);
    if (t->last_error == NULL)
        return iohw_error_set(err,
            "backend '%s': last_error is NULL (a required callback)", path);
    return 0;
}

int iohw_backend_load(const char *path, iohw_loaded_backend *lb,
                      iohw_error *err)
{
    char open_path[sizeof lb->path + 2];

    /* Test the arguments. */
    if (lb == NULL)
        return iohw_error_set(err, "iohw_backend_load: lb is NULL");
    memset(lb, 0, sizeof *lb);
    if (path == NULL || path[0] == '\0')
        return iohw_error_set(err, "iohw_backend_load: no backend path given");
    if (strlen(path) >= sizeof lb->path)
        return iohw_error_set(err, "backend path is longer than %zu bytes: "
                              "'%.64s...'", sizeof lb->path - 1, path);

    /* A bare file name in the current directory means that file. */
    if (strchr(path, '/') == NULL && access(path, F_OK) == 0)
        snprintf(open_path, sizeof open_path, "./%s", path);
    else
        snprintf(open_path, sizeof open_path, "%s", path);

    /* Open and find the entry point. */
    dlerror();
    void *handle = dlopen(open_path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        iohw_error_set(err, "cannot load backend '%s': %s", path,
                       dl_message());
        return fail(lb, NULL);
    }
    dlerror();
    void *sym = dlsym(handle, ENTRY_SYMBOL);
    if (sym == NULL) {
        const char *why = dlerror();
        if (why != NULL)
            iohw_error_set(err, "backend '%s' has no " ENTRY_SYMBOL ": %s",
                           path, why);
        else
            iohw_error_set(err, "backend '%s': " ENTRY_SYMBOL " is NULL",
                           path);
        return fail(lb, handle);
    }
    iohw_backend_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);

    /* Negotiate the version and check the table. */
    const iohw_backend *t = entry(IOHW_ABI_VERSION);
    if (t == NULL) {
        iohw_error_set(err,
            "backend '%s' refused this host's ABI version %u "
            "(" ENTRY_SYMBOL " returned NULL)", path,
            (unsigned)IOHW_ABI_VERSION);
        return fail(lb, handle);
    }
    if (check_table(path, t, err) != 0)
        return fail(lb, handle);

    /* Create the backend's context. */
    void *ctx = NULL;
    if (t->init != NULL) {
        int rc = t->init(&ctx);
        if (rc != IOHW_OK) {
            const char *why = t->last_error(ctx);
            iohw_error_set(err, "backend '%s' (%s %s): init failed with "
                           "status %d (%s): %s", path, t->name, t->version,
                           rc, iohw_backend_status_name(rc),
                           why != NULL && why[0] != '\0' ? why
                                                         : "no message");
            return fail(lb, handle);
        }
    }

    lb->handle = handle;
    lb->table = t;
    lb->ctx = ctx;
    snprintf(lb->path, sizeof lb->path, "%s", path);
    return 0;
}

const char *iohw_backend_last_error(const iohw_loaded_backend *lb)
{
    if (lb == NULL || lb->table == NULL)
        return "no backend loaded";
    const char *s = lb->table->last_error(lb->ctx);
    return s != NULL ? s : "(the backend's last_error returned NULL)";
}

void iohw_backend_unload(iohw_loaded_backend *lb)
{
    if (lb == NULL)
        return;
    if (lb->table != NULL && lb->table->fini != NULL)
        lb->table->fini(lb->ctx);
    if (lb->handle != NULL)
        dlclose(lb->handle);
    memset(lb, 0, sizeof *lb);
}
