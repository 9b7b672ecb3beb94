/*
 * backends/exec/exec.h - the exec adapter's internal interface: the
 * command, running it, and the two files of the protocol
 * (docs/EXEC_PROTOCOL.md).
 */
#ifndef IOHW_EXEC_H
#define IOHW_EXEC_H

#include <stdint.h>
#include <sys/types.h>

#include "iohw/backend.h"
#include "oracle/descriptor.h"
#include "oracle/error.h"

/* Most words in IOHW_EXEC_COMMAND. */
#define EXEC_MAX_WORDS 32

/* The case id the adapter writes into IN.h5. */
#define EXEC_CASE_ID "case"

/* A command split into words; argv has room for 3 more arguments and the
 * terminating NULL. */
typedef struct exec_cmd {
    char *text;                       /* the words, NUL-separated */
    int argc;
    char *argv[EXEC_MAX_WORDS + 4];
} exec_cmd;

/* Splits text at blanks (no quoting, no shell).  -1 when it is empty, has
 * too many words or memory runs out. */
int iohw__exec_cmd_parse(const char *text, exec_cmd *cmd, iohw_error *err);
void iohw__exec_cmd_free(exec_cmd *cmd);

/* Starts the command with the extra arguments (NULL-terminated) appended,
 * fds[0] as its stdin (-1: /dev/null), fds[1] and fds[2] as its stdout and
 * stderr; it dies with the calling process (PR_SET_PDEATHSIG).  The pid, or
 * -1 (errno set). */
pid_t iohw__exec_fork(const exec_cmd *cmd, const char *const *extra,
                      const int fds[3]);

/* Runs the command with the extra arguments (NULL-terminated) appended,
 * stdin from /dev/null, stdout and stderr captured; waits for it.  0 when
 * it exited with status 0; -1 otherwise, err saying how it ended ("exited
 * with status 3", "was killed by signal 9 (Killed)", "cannot be executed")
 * followed by its output: all of it when short, else its first and last
 * few hundred bytes.  captured (may be NULL) gets the first ncap - 1 bytes
 * of the output as they are, NUL-terminated. */
int iohw__exec_spawn(const exec_cmd *cmd, const char *const *extra,
                     char *captured, size_t ncap, iohw_error *err);

/* How a wait status ended ("exited with status 3", "was killed by signal 9
 * (Killed)"). */
void iohw__exec_how(int status, char *how, size_t n);

/* Reads fd to its end into "; its output: ..." (all of it when short, else
 * its first and last few hundred bytes; "" when there is none). */
void iohw__exec_output_text(int fd, char *out, size_t n);

/* Programs are held to resident memory: the watch of one. */
#define EXEC_WATCH_MS 50
typedef struct exec_watch {
    pid_t pid;
    int64_t limit;           /* bytes; 0 = none */
    int64_t over;            /* the resident bytes it was killed at, or 0 */
} exec_watch;

/* The resident memory a program may use, in bytes (0 = no limit):
 * IOHW_EXEC_MEMORY_LIMIT_MB when set, else the address-space limit the
 * caller runs under (iohw run's --memory-limit on its worker), which the
 * program itself does not get. */
int64_t iohw__exec_memory_limit(void);

/* Waits until fd is readable; meanwhile, every EXEC_WATCH_MS, kills the
 * watched program (w may be NULL) when its resident memory passes the
 * limit, noting it in w->over.  0, or -1 on a poll error. */
int iohw__exec_wait_readable(int fd, exec_watch *w);

/* " by the exec backend: its resident memory reached ..." when the watch
 * killed the program, else "". */
void iohw__exec_watch_text(const exec_watch *w, char *out, size_t n);

/* --- protocol 2: one program serving requests (exec_serve.c) ------------- */

/* Largest message either side sends (bytes after the length). */
#define EXEC_MSG_MAX 65536

/* A program started with --serve: requests go to its stdin, replies come
 * from its stdout, its stderr goes to the file log_path. */
typedef struct exec_server {
    pid_t pid;               /* 0: not running */
    int req, rep, log;
    int status;              /* its wait status once it has ended */
    exec_watch watch;        /* its resident memory */
    char label[256];         /* the program, in messages */
    char log_path[4200];
} exec_server;

enum { EXEC_REPLY = 0, EXEC_GONE = 1, EXEC_GARBAGE = 2, EXEC_NOSTART = 3 };

/* Starts the program (`PROGRAM --serve`) unless it runs; 0, or -1 with err
 * set. */
int iohw__exec_serve_start(exec_server *s, const exec_cmd *cmd,
                           iohw_error *err);

/* Sends one request and reads its reply into reply[n] (NUL-terminated).
 * EXEC_REPLY; EXEC_GONE when the program ended meanwhile (s->status holds
 * how, err says so with its stderr); EXEC_GARBAGE when the reply is not a
 * message (err says what came; the program is stopped). */
int iohw__exec_serve_ask(exec_server *s, const exec_cmd *cmd,
                         const char *request, char *reply, size_t n,
                         iohw_error *err);

/* Closes its stdin, gives it a moment to leave, then kills it. */
void iohw__exec_serve_stop(exec_server *s);

/* --- problem classes (exec_class.c) ------------------------------------ */

/* The class of a problem (what the program's answer to a query covers)
 * and the program's answer. */
typedef struct exec_class {
    uint32_t rank;
    iohw_dtype dtype;
    int32_t has_bias;
    uint32_t flags;          /* groups, per-axis shape facts, convention */
    uint32_t quant;          /* quantized parameters; 0 for a float problem */
    int32_t direction;       /* IOHW_DIR_* (specification section 13) */
    char data_layout[16];
    char weight_layout[16];
    int claimed;
    int failed;              /* the query itself failed (not a refusal) */
    char asked[IOHW_DESC_MAX];  /* the problem the answer is for */
    char why[400];
} exec_class;

/* The class of a validated problem (its answer not filled in). */
void iohw__exec_class_of(const iohw_problem *p, exec_class *k);

/* 1 when two classes are the same. */
int iohw__exec_same_class(const exec_class *a, const exec_class *b);

/* --- what the program says about itself (exec_describe.c) -------------- */

typedef struct exec_about {
    char name[64];
    char version[160];
    int protocol2;           /* it serves protocol 2 (--serve) */
    int quantized;           /* quantized=1: it reads quantized cases */
    unsigned directions;     /* bit IOHW_DIR_*: the directions it computes
                                (directions=fwd bwd_d bwd_w; fwd only when
                                the line is absent) */
    char data_layouts[512];  /* blank-separated; "" = any */
    char weight_layouts[1024];
} exec_about;

/* Parses a --describe answer (key=value lines; unknown keys ignored). */
void iohw__exec_about_parse(const char *text, exec_about *a);

/* 1 when layout is among list (blank-separated words), or list is empty. */
int iohw__exec_layout_listed(const char *list, const char *layout);

/* Writes IN.h5: one case EXEC_CASE_ID (schema 1) holding the problem and
 * the inputs of its direction (specification section 13; NULL: zeros, for
 * a --supports query): forward in0 = x, in1 = w, bias; BWD_D in0 = dy,
 * in1 = w; BWD_W in0 = x, in1 = dy.  The outputs (y, or dx, or dw and db,
 * with their f64 values and bounds) are placeholders filled with NaN.  A
 * quantized problem (section 11.4) also gets its requant values (requant;
 * NULL: s_w 1, or multiplier 2^30 and shift 0, for a query) and a y of
 * zeros. */
int iohw__exec_write_input(const char *path, const iohw_problem *p,
                           const void *in0, const void *in1, const void *bias,
                           const void *requant, iohw_error *err);

/* Reads OUT.h5 (the direction's output in the problem's y dtype: y, dx,
 * or dw then db; cases/answer.h).  Returns 0 with y filled (need_y) or
 * with nothing to read
 * (a query's answer "claimed"); 1 when the program said `unsupported`
 * (the reason in err); -1 on a missing or malformed file (err set). */
int iohw__exec_read_output(const char *path, const iohw_problem *p,
                           int need_y, void *y, iohw_error *err);

#endif
