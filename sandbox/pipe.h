/*
 * sandbox/pipe.h - whole reads and writes on a pipe or socket, retrying
 * after EINTR: what the listing child, the channel between the run's
 * processes and the worker's replies are built on.
 */
#ifndef IOHW_PIPE_H
#define IOHW_PIPE_H

#include <stddef.h>

/* Reads exactly n bytes: 1 when n bytes were read, 0 at end of file before
 * any, -1 otherwise (an error, or end of file part way). */
int iohw__read_full(int fd, void *buf, size_t n);

/* Writes all n bytes: 0, or -1 on an error. */
int iohw__write_full(int fd, const void *buf, size_t n);

#endif
