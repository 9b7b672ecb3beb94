/*
 * sandbox/channel.h - the records `iohw run`'s processes exchange (the
 * parent and its verifiers, a verifier and its worker): a u32 length, then
 * that many bytes of payload, always read in full.  A payload is built and
 * taken apart field by field (fixed-size values and length-prefixed
 * strings), so no field has a fixed width and no record is capped by
 * PIPE_BUF.  On a Unix socket a record can carry one descriptor
 * (SCM_RIGHTS).  Internal to the harness.
 */
#ifndef IOHW_CHANNEL_H
#define IOHW_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "results/result.h"

/* Larger records are refused as garbage. */
#define IOHW_CHANNEL_MAX (1u << 24)

/* A payload being built (put) or read (get, from pos). */
typedef struct iohw__msg {
    unsigned char *buf;
    size_t len, cap, pos;
    int bad;                /* an allocation failed or a get ran short */
} iohw__msg;

void iohw__msg_reset(iohw__msg *m);   /* empty, keeps the buffer */
void iohw__msg_free(iohw__msg *m);
void iohw__msg_put(iohw__msg *m, const void *p, size_t n);
void iohw__msg_put_str(iohw__msg *m, const char *s);
/* Copies the next n bytes; on a short payload zeroes p and sets bad. */
void iohw__msg_get(iohw__msg *m, void *p, size_t n);
/* The next string into dst (size cap); one that does not fit sets bad. */
void iohw__msg_get_str(iohw__msg *m, char *dst, size_t cap);
/* The next string as a kept text (results/text.h), whatever its length;
 * "" with bad set when the record ends before it. */
const char *iohw__msg_get_text(iohw__msg *m);

/* Sends m as one record; pass_fd >= 0 goes along (fd must be a Unix
 * socket).  0 or -1. */
int iohw__msg_send(int fd, const iohw__msg *m, int pass_fd);
/* Receives one record into m (pos 0).  got_fd, when not NULL, receives a
 * descriptor that came along, or -1.  1 on a record, 0 at end of file
 * before any byte, -1 otherwise. */
int iohw__msg_recv(int fd, iohw__msg *m, int *got_fd);

/* A case for a verifier: the task (entry index), the case file, the id. */
void iohw__request_encode(iohw__msg *m, int64_t task, const char *file,
                          const char *id);
int iohw__request_decode(iohw__msg *m, int64_t *task, char *file,
                         size_t file_cap, char *id, size_t id_cap);

/* The reply of a verifier to the parent: the task, whether the verifier
 * leaves after it (its worker died: a fresh pair takes over), and the
 * result.  (One place to change when the result gets its own codec.) */
void iohw__reply_encode(iohw__msg *m, int64_t task, int last,
                        const iohw_result *r);
int iohw__reply_decode(iohw__msg *m, int64_t *task, int *last,
                       iohw_result *r);

#endif
