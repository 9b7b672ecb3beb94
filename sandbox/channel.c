/*
 * sandbox/channel.c - length-prefixed records between the processes of
 * `iohw run` (see channel.h).
 */
#include "sandbox/channel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/pipe.h"

void iohw__msg_reset(iohw__msg *m)
{
    m->len = m->pos = 0;
    m->bad = 0;
}

void iohw__msg_free(iohw__msg *m)
{
    free(m->buf);
    memset(m, 0, sizeof *m);
}

/* Room for n more bytes; 0 or -1 (bad set). */
static int reserve(iohw__msg *m, size_t n)
{
    if (m->len + n <= m->cap)
        return 0;
    size_t cap = m->cap ? m->cap : 256;
    while (cap < m->len + n)
        cap *= 2;
    unsigned char *b = realloc(m->buf, cap);
    if (b == NULL) {
        m->bad = 1;
        return -1;
    }
    m->buf = b;
    m->cap = cap;
    return 0;
}

void iohw__msg_put(iohw__msg *m, const void *p, size_t n)
{
    if (n == 0 || reserve(m, n) != 0)
        return;
    memcpy(m->buf + m->len, p, n);
    m->len += n;
}

void iohw__msg_put_str(iohw__msg *m, const char *s)
{
    uint32_t n = s != NULL ? (uint32_t)strlen(s) : 0;
    iohw__msg_put(m, &n, sizeof n);
    iohw__msg_put(m, s, n);
}

void iohw__msg_get(iohw__msg *m, void *p, size_t n)
{
    if (m->bad || m->len - m->pos < n) {
        m->bad = 1;
        memset(p, 0, n);
        return;
    }
    memcpy(p, m->buf + m->pos, n);
    m->pos += n;
}

void iohw__msg_get_str(iohw__msg *m, char *dst, size_t cap)
{
    uint32_t n = 0;
    iohw__msg_get(m, &n, sizeof n);
    if (m->bad || n >= cap || m->len - m->pos < n) {
        m->bad = 1;
        if (cap > 0)
            dst[0] = '\0';
        return;
    }
    memcpy(dst, m->buf + m->pos, n);
    dst[n] = '\0';
    m->pos += n;
}

/* Room for one descriptor in a message's control data. */
typedef union fd_ctl {
    struct cmsghdr h;
    char space[CMSG_SPACE(sizeof(int))];
} fd_ctl;

/* A message of one buffer with room for a descriptor. */
static void header(struct msghdr *mh, struct iovec *iov, fd_ctl *ctl)
{
    memset(ctl, 0, sizeof *ctl);
    memset(mh, 0, sizeof *mh);
    mh->msg_iov = iov;
    mh->msg_iovlen = 1;
    mh->msg_control = ctl->space;
    mh->msg_controllen = sizeof ctl->space;
}

int iohw__msg_send(int fd, const iohw__msg *m, int pass_fd)
{
    if (m->bad || m->len > IOHW_CHANNEL_MAX)
        return -1;
    uint32_t n = (uint32_t)m->len;
    if (pass_fd < 0)
        return iohw__write_full(fd, &n, sizeof n) != 0 ||
               iohw__write_full(fd, m->buf, m->len) != 0 ? -1 : 0;

    /* The descriptor travels with the length. */
    struct iovec iov = {&n, sizeof n};
    fd_ctl ctl;
    struct msghdr mh;
    header(&mh, &iov, &ctl);
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
    ssize_t k;
    while ((k = sendmsg(fd, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    if (k != (ssize_t)sizeof n)
        return -1;
    return iohw__write_full(fd, m->buf, m->len);
}

/* The length, and a descriptor sent with it. */
static int recv_head(int fd, uint32_t *n, int *got_fd)
{
    if (got_fd == NULL)
        return iohw__read_full(fd, n, sizeof *n);
    *got_fd = -1;
    struct iovec iov = {n, sizeof *n};
    fd_ctl ctl;
    struct msghdr mh;
    header(&mh, &iov, &ctl);
    ssize_t k;
    while ((k = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (k <= 0)
        return k == 0 ? 0 : -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(got_fd, CMSG_DATA(c), sizeof(int));
    if ((size_t)k < sizeof *n &&
        iohw__read_full(fd, (unsigned char *)n + k, sizeof *n - (size_t)k) != 1)
        return -1;
    return 1;
}

int iohw__msg_recv(int fd, iohw__msg *m, int *got_fd)
{
    uint32_t n = 0;
    iohw__msg_reset(m);
    int k = recv_head(fd, &n, got_fd);
    if (k != 1)
        return k;
    if (n > IOHW_CHANNEL_MAX || reserve(m, n) != 0)
        return -1;
    if (n > 0 && iohw__read_full(fd, m->buf, n) != 1)
        return -1;
    m->len = n;
    return 1;
}

const char *iohw__msg_get_text(iohw__msg *m)
{
    uint32_t n = 0;
    iohw__msg_get(m, &n, sizeof n);
    if (m->bad || m->len - m->pos < n) {
        m->bad = 1;
        return iohw_text_keep(NULL);
    }
    const char *t = iohw_text_keep_n((const char *)m->buf + m->pos, n);
    m->pos += n;
    return t;
}

void iohw__request_encode(iohw__msg *m, int64_t task, const char *file,
                          const char *id)
{
    iohw__msg_reset(m);
    iohw__msg_put(m, &task, sizeof task);
    iohw__msg_put_str(m, file);
    iohw__msg_put_str(m, id);
}

int iohw__request_decode(iohw__msg *m, int64_t *task, char *file,
                         size_t file_cap, char *id, size_t id_cap)
{
    m->pos = 0;
    iohw__msg_get(m, task, sizeof *task);
    iohw__msg_get_str(m, file, file_cap);
    iohw__msg_get_str(m, id, id_cap);
    return m->bad || m->pos != m->len ? -1 : 0;
}

void iohw__reply_encode(iohw__msg *m, int64_t task, int last,
                        const iohw_result *r)
{
    int32_t l = last;
    iohw__msg_reset(m);
    iohw__msg_put(m, &task, sizeof task);
    iohw__msg_put(m, &l, sizeof l);
    iohw__msg_put(m, r, sizeof *r);
    const char *const text[] = {r->case_id, r->file, r->descriptor, r->tags,
                                r->message, r->diagnosis, r->warnings};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        iohw__msg_put_str(m, text[i]);
}

int iohw__reply_decode(iohw__msg *m, int64_t *task, int *last,
                       iohw_result *r)
{
    int32_t l = 0;
    m->pos = 0;
    iohw__msg_get(m, task, sizeof *task);
    iohw__msg_get(m, &l, sizeof l);
    *last = l != 0;
    /* The numbers as they are; the texts after them, each with its
     * length, so that no pointer crosses the pipe. */
    iohw__msg_get(m, r, sizeof *r);
    const char **const text[] = {&r->case_id, &r->file, &r->descriptor,
                                 &r->tags, &r->message, &r->diagnosis,
                                 &r->warnings};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        *text[i] = iohw__msg_get_text(m);
    r->direction[sizeof r->direction - 1] = '\0';
    return m->bad || m->pos != m->len ? -1 : 0;
}
