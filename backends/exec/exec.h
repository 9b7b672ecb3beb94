/*
 * backends/exec/exec.h - the exec adapter's internal interface: the
 * command, running it, and the two files of the protocol
 * (docs/EXEC_PROTOCOL.md).
 */
#ifndef IOHW_EXEC_H
#define IOHW_EXEC_H

#include <limits.h>
#include <stdarg.h>
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

/* --- messages of any length (exec_text.c) ------------------------------ */

/* printf into a new malloc'd string; NULL when memory runs out. */
char *iohw__exec_vfmt(const char *fmt, va_list ap);
char *iohw__exec_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Replaces *msg (malloc'd or NULL) with the formatted text; returns -1 so
 * that callers can `return iohw__exec_say(...)`. */
int iohw__exec_say(char **msg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Puts "prefix: " in front of *msg; returns -1. */
int iohw__exec_prefix(char **msg, const char *prefix);

/* msg, or a fixed text when it is NULL (memory ran out). */
const char *iohw__exec_text(const char *msg);

/* Splits text at blanks (no quoting, no shell).  -1 when it is empty, has
 * too many words or memory runs out. */
int iohw__exec_cmd_parse(const char *text, exec_cmd *cmd, char **msg);
void iohw__exec_cmd_free(exec_cmd *cmd);

/* Starts the command with the extra arguments (NULL-terminated) appended,
 * fds[0] as its stdin (-1: /dev/null), fds[1] and fds[2] as its stdout and
 * stderr; it dies with the calling process (PR_SET_PDEATHSIG).  The pid, or
 * -1 (errno set). */
pid_t iohw__exec_fork(const exec_cmd *cmd, const char *const *extra,
                      const int fds[3]);

/* Runs the command with the extra arguments (NULL-terminated) appended,
 * stdin from /dev/null, stdout and stderr captured; waits for it.  0 when
 * it exited with status 0; -1 otherwise, *msg saying how it ended ("exited
 * with status 3", "was killed by signal 9 (Killed)", "cannot be executed")
 * followed by its output: all of it up to EXEC_OUTPUT_HEAD bytes, else its
 * first EXEC_OUTPUT_HEAD and last EXEC_OUTPUT_TAIL bytes.  captured (may be
 * NULL) gets the first ncap - 1 bytes of the output as they are,
 * NUL-terminated.  *status (may be NULL) gets its wait status; *killed
 * (may be NULL) 1 when the memory watch killed it. */
int iohw__exec_spawn(const exec_cmd *cmd, const char *const *extra,
                     char *captured, size_t ncap, int *status, int *killed,
                     char **msg);

/* The program's output quoted in a message. */
#define EXEC_OUTPUT_HEAD 8192
#define EXEC_OUTPUT_TAIL 2048

/* How a wait status ended ("exited with status 3", "was killed by signal 9
 * (Killed)"). */
void iohw__exec_how(int status, char *how, size_t n);

/* Reads fd to its end into a new "; its output: ..." (all of it when short,
 * else its first and last bytes; "" when there is none); NULL when memory
 * runs out. */
char *iohw__exec_output_text(int fd);

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
    const char *label;       /* the program, in messages (not owned) */
    char *log_path;          /* malloc'd */
} exec_server;

enum { EXEC_REPLY = 0, EXEC_GONE = 1, EXEC_GARBAGE = 2, EXEC_NOSTART = 3 };

/* Starts the program (`PROGRAM --serve`) unless it runs; 0, or -1 with err
 * set. */
int iohw__exec_serve_start(exec_server *s, const exec_cmd *cmd, char **msg);

/* Sends one request and reads its reply into reply[n] (NUL-terminated).
 * EXEC_REPLY; EXEC_GONE when the program ended meanwhile (s->status holds
 * how, *msg says so with its stderr); EXEC_GARBAGE when the reply is not a
 * message (*msg says what came; the program is stopped). */
int iohw__exec_serve_ask(exec_server *s, const exec_cmd *cmd,
                         const char *request, char *reply, size_t n,
                         char **msg);

/* Closes its stdin, gives it a moment to leave, then kills it. */
void iohw__exec_serve_stop(exec_server *s);

/* Kills it at once (a restart after a failure: it is not trusted to
 * leave). */
void iohw__exec_serve_kill(exec_server *s);

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
    char *why;               /* malloc'd; NULL when claimed */
} exec_class;

/* The class of a validated problem (its answer not filled in). */
void iohw__exec_class_of(const iohw_problem *p, exec_class *k);

/* 1 when two classes are the same. */
int iohw__exec_same_class(const exec_class *a, const exec_class *b);

/* --- what the program says about itself (exec_describe.c) -------------- */

typedef struct exec_about {
    char *name;              /* malloc'd, whole; "" when not given */
    char *version;
    int protocol2;           /* it serves protocol 2 (--serve) */
    int protocol3;           /* it lists protocol 3 */
    int per_problem;         /* supports=problem: ask about every problem */
    int restart_each;        /* restart=each: a fresh program per case */
    int quantized;           /* quantized=1: it reads quantized cases */
    unsigned directions;     /* bit IOHW_DIR_*: the directions it computes
                                (directions=fwd bwd_d bwd_w; fwd only when
                                the line is absent) */
    char *data_layouts;      /* blank-separated; "" = any */
    char *weight_layouts;
} exec_about;

/* Parses a --describe answer (key=value lines; unknown keys ignored).
 * -1 when memory runs out. */
int iohw__exec_about_parse(const char *text, exec_about *a);
void iohw__exec_about_free(exec_about *a);

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
 * (the reason, whole, in *msg); -1 on a missing or malformed file (*msg
 * set). */
int iohw__exec_read_output(const char *path, const iohw_problem *p,
                           int need_y, void *y, char **msg);

/* --- the backend's context (exec.c, exec_ask.c) ------------------------- */

#define EXEC_CLASS_MAX 64

/* When a protocol 2 or 3 program is replaced (docs/EXEC_PROTOCOL.md,
 * "Protocol 3"). */
enum { EXEC_RESTART_FAILURE = 0, EXEC_RESTART_EACH = 1 };

typedef struct exec_ctx {
    exec_cmd cmd;
    int cmd_ok;
    char *cmd_why;           /* why there is no usable command */
    char *label;             /* the program, in messages */
    int protocol;            /* 1, 2 or 3 (3: 2 with --describe's keys) */
    int restart;             /* EXEC_RESTART_* */
    exec_about about;
    exec_server server;
    char *dir, *in, *out;    /* the private directory and its files */
    exec_class classes[EXEC_CLASS_MAX];  /* answers, by class or problem */
    int nclasses;
    int next;                /* the slot to replace when full */
    char *msg;               /* last_error(), whole */
} exec_ctx;

/* What supports() says (exec_ask.c): IOHW_OK, IOHW_UNSUPPORTED or
 * IOHW_BACKEND_ERROR, c->msg saying why. */
int iohw__exec_supports(exec_ctx *c, const iohw_problem *p);

/* Refusals made without asking the program (its --describe answer):
 * IOHW_UNSUPPORTED with c->msg set, else IOHW_OK. */
int iohw__exec_declared(exec_ctx *c, const iohw_problem *p);
/* The same for the kind of problem only (quantized, direction). */
int iohw__exec_kind_declared(exec_ctx *c, const iohw_problem *p);

/* The program computes the output for the inputs in c->in (a run
 * request): 0 with OUT.h5 whole, or an iohw status (c->msg set).  A
 * program that was killed after writing a whole OUT.h5 leaves y kept and a
 * warning on stderr (the case's warnings in iohw run). */
int iohw__exec_compute(exec_ctx *c, const iohw_problem *p, void *y);

/* One request of protocol 2 or 3 ("describe"; VERB IN OUT when files):
 * EXEC_ANSWER_*; text (may be NULL) gets the reply's text, malloc'd. */
enum { EXEC_ANSWER_OK, EXEC_ANSWER_UNSUPPORTED, EXEC_ANSWER_ERROR,
       EXEC_ANSWER_FAILED, EXEC_ANSWER_GONE };
int iohw__exec_ask2(exec_ctx *c, const char *verb, int files, char **text);

/* The program ended in the middle of a request: this process ends the
 * same way after removing the private files. */
_Noreturn void iohw__exec_die_with_program(exec_ctx *c);

/* Forgets every cached answer. */
void iohw__exec_forget_answers(exec_ctx *c);

#endif
