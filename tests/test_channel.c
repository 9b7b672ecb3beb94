/*
 * tests/test_channel.c - the records `iohw run`'s processes exchange
 * (sandbox/channel.h): a u32 length then the payload, read in full; strings
 * of any length; a descriptor passed along on a Unix socket; garbage
 * lengths and cut records refused.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/channel.h"

Test(channel, a_record_larger_than_a_pipe_arrives_whole)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    /* A 4000-character path and a 1 MiB blob: far past PIPE_BUF and the
     * pipe's own buffer, so a child writes while the test reads. */
    static char path[4001], blob[1 << 20];
    memset(path, 'p', sizeof path - 1);
    for (size_t i = 0; i < sizeof blob; i++)
        blob[i] = (char)(i * 7);
    pid_t pid = fork();
    if (pid == 0) {
        iohw__msg m;
        memset(&m, 0, sizeof m);
        int64_t task = 42;
        iohw__msg_put(&m, &task, sizeof task);
        iohw__msg_put_str(&m, path);
        iohw__msg_put(&m, blob, sizeof blob);
        _exit(iohw__msg_send(fds[1], &m, -1) == 0 ? 0 : 1);
    }
    close(fds[1]);
    iohw__msg m;
    memset(&m, 0, sizeof m);
    cr_assert_eq(iohw__msg_recv(fds[0], &m, NULL), 1);
    int64_t task = 0;
    static char got[4096], back[1 << 20];
    iohw__msg_get(&m, &task, sizeof task);
    iohw__msg_get_str(&m, got, sizeof got);
    iohw__msg_get(&m, back, sizeof back);
    cr_assert_eq(m.bad, 0);
    cr_assert_eq(task, 42);
    cr_assert_str_eq(got, path);
    cr_assert_eq(memcmp(back, blob, sizeof blob), 0);
    /* Then end of file: 0, not an error. */
    cr_assert_eq(iohw__msg_recv(fds[0], &m, NULL), 0);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    iohw__msg_free(&m);
    close(fds[0]);
}

Test(channel, a_string_too_long_for_its_field_or_a_short_payload_is_bad)
{
    iohw__msg m;
    memset(&m, 0, sizeof m);
    iohw__msg_put_str(&m, "0123456789");
    char small[8];
    iohw__msg_get_str(&m, small, sizeof small);
    cr_assert_eq(m.bad, 1);
    cr_assert_str_empty(small);
    iohw__msg_reset(&m);
    uint32_t one = 1;
    iohw__msg_put(&m, &one, sizeof one);
    uint64_t wide = 7;
    iohw__msg_get(&m, &wide, sizeof wide);
    cr_assert_eq(m.bad, 1);
    cr_assert_eq(wide, 0);
    iohw__msg_free(&m);
}

Test(channel, a_garbage_length_or_a_cut_record_is_refused)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    uint32_t huge = IOHW_CHANNEL_MAX + 1;
    cr_assert_eq(write(fds[1], &huge, sizeof huge), (ssize_t)sizeof huge);
    iohw__msg m;
    memset(&m, 0, sizeof m);
    cr_assert_eq(iohw__msg_recv(fds[0], &m, NULL), -1);
    close(fds[0]);
    close(fds[1]);

    cr_assert_eq(pipe(fds), 0);
    uint32_t ten = 10;
    cr_assert_eq(write(fds[1], &ten, sizeof ten), (ssize_t)sizeof ten);
    cr_assert_eq(write(fds[1], "abc", 3), 3);
    close(fds[1]);
    cr_assert_eq(iohw__msg_recv(fds[0], &m, NULL), -1);
    close(fds[0]);
    iohw__msg_free(&m);
}

Test(channel, a_descriptor_travels_with_a_record_on_a_unix_socket)
{
    int sv[2], p[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    cr_assert_eq(pipe(p), 0);
    iohw__msg m;
    memset(&m, 0, sizeof m);
    iohw__msg_put_str(&m, "with a pipe");
    cr_assert_eq(iohw__msg_send(sv[0], &m, p[1]), 0);
    close(p[1]);
    int got = -1;
    cr_assert_eq(iohw__msg_recv(sv[1], &m, &got), 1);
    cr_assert_geq(got, 0);
    char text[32];
    iohw__msg_get_str(&m, text, sizeof text);
    cr_assert_str_eq(text, "with a pipe");
    /* The descriptor received writes into the same pipe. */
    cr_assert_eq(write(got, "x", 1), 1);
    char c = 0;
    cr_assert_eq(read(p[0], &c, 1), 1);
    cr_assert_eq(c, 'x');
    close(got);
    close(p[0]);
    close(sv[0]);
    close(sv[1]);
    iohw__msg_free(&m);
}

Test(channel, the_reply_codec_round_trips_a_result)
{
    iohw__msg m;
    memset(&m, 0, sizeof m);
    static iohw_result r, back;
    r.case_id = iohw_text_fmt("a.r1");
    r.warnings = iohw_text_fmt("run() left 2 thread(s) running");
    r.status = IOHW_RESULT_PASS;
    r.elements = 33;
    iohw__reply_encode(&m, 7, 1, &r);
    int64_t task = 0;
    int last = 0;
    cr_assert_eq(iohw__reply_decode(&m, &task, &last, &back), 0);
    cr_assert_eq(task, 7);
    cr_assert_eq(last, 1);
    cr_assert_str_eq(back.case_id, "a.r1");
    cr_assert_str_eq(back.warnings, r.warnings);
    cr_assert_eq(back.elements, 33);
    m.len -= 1;   /* cut short */
    cr_assert_eq(iohw__reply_decode(&m, &task, &last, &back), -1);
    iohw__msg_free(&m);
}
