/*
 * sandbox/loader.h - loading a backend shared object through the ABI of
 * iohw/backend.h: dlopen(RTLD_NOW | RTLD_LOCAL), the one entry point,
 * version negotiation, struct_size and required-callback checks, init/fini.
 */
#ifndef IOHW_LOADER_H
#define IOHW_LOADER_H

#include "iohw/backend.h"
#include "oracle/error.h"

typedef struct iohw_loaded_backend {
    void *handle;               /* from dlopen */
    const iohw_backend *table;  /* from iohw_backend_entry */
    void *ctx;                  /* from init, or NULL */
    char path[4096];            /* PATH_MAX: no longer path can be opened */
} iohw_loaded_backend;

/* Loads and initialises a backend.  Errors name the path and say what is
 * wrong: dlopen's dlerror() verbatim, a missing iohw_backend_entry, a NULL
 * table (the backend refused this host's ABI version), an abi_version or
 * struct_size the host cannot use, a NULL supports/run/last_error/name/
 * version, or init failing (with last_error's text).  On failure nothing
 * stays loaded. */
int iohw_backend_load(const char *path, iohw_loaded_backend *lb,
                      iohw_error *err);

/* The backend's last_error() text, never NULL (guards against a backend
 * that returns NULL anyway). */
const char *iohw_backend_last_error(const iohw_loaded_backend *lb);

/* The name of an iohw_status code ("IOHW_OK", "IOHW_UNSUPPORTED", ...), from
 * IOHW_STATUS_MAP; "not an iohw_status" for any other value (a backend may
 * return anything).  Never NULL; the string is static. */
const char *iohw_backend_status_name(int status);

/* fini (when present) and dlclose. */
void iohw_backend_unload(iohw_loaded_backend *lb);

#endif
