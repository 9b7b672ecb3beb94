/* tests/fuzz/fuzz_case_file.c - the case-file reader (cases/case.h): the
 * input is written to a file and every case is read attributes-only, then
 * whole and as a user case.  Each read succeeds or fails with a message
 * naming the file and the case, and leaves the case zeroed when it fails.
 * (libhdf5's own faults on such files are what the guarded child of
 * sandbox/guard.h is for; this harness looks for iohw's.) */
#include "fuzz.h"

#include <stdio.h>
#include <unistd.h>

#include "cases/case.h"

static const unsigned modes[] = {IOHW_READ_ATTRS, IOHW_READ_ALL,
                                 IOHW_READ_USER | IOHW_READ_INPUTS};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/iohw-fuzz-%d.h5", (int)getpid());
    FILE *out = fopen(path, "wb");
    FUZZ_ASSERT(out != NULL);
    fwrite(data, 1, size, out);
    fclose(out);
    iohw_error err = {{0}};
    iohw_case_file *f = iohw_case_file_open(path, &err);
    if (f == NULL) {
        FUZZ_ASSERT(strstr(err.msg, path) != NULL);
    }
    for (int i = 0; f != NULL && i < iohw_case_file_count(f) && i < 8; i++) {
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            iohw_case c, zero;
            memset(&zero, 0, sizeof zero);
            if (iohw_case_file_read(f, iohw_case_file_id(f, i), modes[m], &c, &err) == 0) {
                iohw_case_free(&c);
            } else {
                FUZZ_ASSERT(strstr(err.msg, path) != NULL);
                FUZZ_ASSERT(memcmp(&c, &zero, sizeof c) == 0);
            }
        }
    }
    iohw_case_file_close(f, NULL);
    unlink(path);
    return 0;
}
