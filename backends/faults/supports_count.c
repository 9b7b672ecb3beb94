/*
 * backends/faults/supports_count.c - a narrow, correct backend that counts its
 * supports() calls, for the bound on `iohw gen --for-backend`'s claim
 * search (specification section 7).  It claims what OpenCV's DNN module
 * runs of a transposed convolution: rank 2, f32, no dilation, the same pad
 * on both sides of an axis, output_padding below the stride.  Each
 * supports() call of a valid problem appends one line to the file named
 * by the environment variable IOHW_COUNT_FILE (none: nothing is counted).
 * Named libiohw_supports_count.so: not a seeded fault, the mutation test does
 * not count it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fault_common.h"
#include "oracle/error.h"

const char iohw__fault_name[] = "supports_count";
const char iohw__fault_about[] =
    "a narrow correct backend (2-d f32, no dilation, symmetric pads) that "
    "counts its supports() calls in $IOHW_COUNT_FILE";

static void count_one(void)
{
    const char *path = getenv("IOHW_COUNT_FILE");
    if (path == NULL || path[0] == '\0')
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0)
        return;
    if (write(fd, "s\n", 2) != 2) {
        /* a lost count only lowers the figure the test bounds */
    }
    close(fd);
}

static int claims(const iohw_problem *p, iohw_error *err)
{
    count_one();
    if (p->rank != 2 || p->dtype != IOHW_F32)
        return iohw_error_set(err, "only 2-d f32");
    for (int a = 0; a < 2; a++) {
        if (p->dilation[a] != 1)
            return iohw_error_set(err, "no dilation");
        if (p->pad_begin[a] != p->pad_end[a])
            return iohw_error_set(err, "asymmetric pads");
        if (p->output_padding[a] >= p->stride[a])
            return iohw_error_set(err, "output_padding >= stride");
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.claims = claims};
