/*
 * backends/exec/exec_supports.c - supports(): the program's answer to a
 * query, cached per problem class (exec_class.c), or per problem for a
 * program whose --describe answer says supports=problem
 * (docs/EXEC_PROTOCOL.md, "What the backend makes of it", "Protocol 3").
 * A query that fails is IOHW_BACKEND_ERROR, not a refusal; a protocol 2
 * or 3 program that failed one is replaced before the next request.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/exec/exec.h"
#include "backends/skeleton_check.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

/* OUT.h5 after a query that went through: claimed, refused or malformed
 * (what names the query in the message). */
static void read_answer(exec_ctx *c, const iohw_problem *p, exec_class *k,
                        const char *what)
{
    char *msg = NULL;
    int rc = iohw__exec_read_output(c->out, p, 0, NULL, &msg);
    k->claimed = rc == 0;
    k->failed = rc < 0;
    if (rc != 0)
        k->why = iohw__exec_fmt("%s%s%s", rc < 0 ? what : "",
                                rc < 0 ? "'s answer: " : "",
                                iohw__exec_text(msg));
    free(msg);
}

/* Protocol 2 and 3: the supports request. */
static void query2(exec_ctx *c, const iohw_problem *p, exec_class *k)
{
    int a = iohw__exec_ask2(c, "supports", 1, NULL);
    if (a == EXEC_ANSWER_GONE)
        iohw__exec_die_with_program(c);
    if (a == EXEC_ANSWER_OK) {
        read_answer(c, p, k, "the supports request");
        if (k->failed)
            iohw__exec_serve_kill(&c->server);
        return;
    }
    k->failed = a != EXEC_ANSWER_UNSUPPORTED;
    if (k->failed)   /* restarted before the next request */
        iohw__exec_serve_kill(&c->server);
    k->why = iohw__exec_fmt("%s%s", a == EXEC_ANSWER_UNSUPPORTED ?
                            "the program does not claim this problem: " :
                            "the supports request failed: ",
                            iohw__exec_text(c->msg));
}

/* The program's answer to the query for p, into k. */
static void query(exec_ctx *c, const iohw_problem *p, exec_class *k)
{
    iohw_error e;
    char *msg = NULL;
    k->failed = 1;
    if (iohw__exec_write_input(c->in, p, NULL, NULL, NULL, NULL, &e) != 0) {
        k->why = iohw__exec_fmt("cannot write the query: %s", e.msg);
        return;
    }
    if (c->protocol >= 2) {
        query2(c, p, k);
        return;
    }
    const char *const extra[] = {"--supports", c->in, c->out, NULL};
    if (iohw__exec_spawn(&c->cmd, extra, NULL, 0, NULL, NULL, &msg) != 0)
        k->why = iohw__exec_fmt("the --supports query failed: %s",
                                iohw__exec_text(msg));
    else
        read_answer(c, p, k, "the --supports query");
    free(msg);
}

/* 1 when the cached answer k answers for p (class q, described desc). */
static int answers(const exec_ctx *c, const exec_class *k, const exec_class *q,
                   const char *desc)
{
    return iohw__exec_same_class(k, q) &&
           (!c->about.per_problem || strcmp(k->asked, desc) == 0);
}

/* Asks the program about the problem's class (or the problem), once. */
static const exec_class *ask(exec_ctx *c, const iohw_problem *p)
{
    exec_class k;
    iohw__exec_class_of(p, &k);
    if (iohw_desc_format_problem(p, NULL, 0, k.asked, sizeof k.asked) < 0)
        k.asked[0] = '\0';
    for (int i = 0; i < c->nclasses; i++)
        if (answers(c, &c->classes[i], &k, k.asked))
            return &c->classes[i];

    /* The query: zeros for the inputs. */
    unlink(c->out);
    query(c, p, &k);
    unlink(c->in);
    unlink(c->out);

    /* Remember it. */
    int slot;
    if (c->nclasses < EXEC_CLASS_MAX) {
        slot = c->nclasses++;
    } else {
        slot = c->next;
        c->next = (c->next + 1) % EXEC_CLASS_MAX;
        free(c->classes[slot].why);
    }
    c->classes[slot] = k;
    return &c->classes[slot];
}

void iohw__exec_forget_answers(exec_ctx *c)
{
    for (int i = 0; i < c->nclasses; i++)
        free(c->classes[i].why);
    c->nclasses = 0;
    c->next = 0;
}

int iohw__exec_supports(exec_ctx *c, const iohw_problem *p)
{
    iohw_error e;
    if (!c->cmd_ok) {
        /* No program: nothing is claimed (docs/EXEC_PROTOCOL.md). */
        iohw__exec_say(&c->msg, "%s", iohw__exec_text(c->cmd_why));
        return IOHW_UNSUPPORTED;
    }
    if (skeleton_check(p, &e) != 0)
        return iohw__exec_say(&c->msg, "%s", e.msg), IOHW_UNSUPPORTED;
    if (iohw__exec_declared(c, p) != IOHW_OK)
        return IOHW_UNSUPPORTED;
    const exec_class *k = ask(c, p);
    if (k->claimed) {
        iohw__exec_say(&c->msg, "%s", "");
        return IOHW_OK;
    }
    /* An answer given for another problem of the class says so: its
     * numbers are that problem's. */
    char desc[IOHW_DESC_MAX];
    const char *why = iohw__exec_text(k->why);
    if (iohw_desc_format_problem(p, NULL, 0, desc, sizeof desc) < 0 ||
        strcmp(desc, k->asked) == 0)
        iohw__exec_say(&c->msg, "%s", why);
    else
        iohw__exec_say(&c->msg, "%s (the answer for this problem's class, "
                       "given for %s)", why, k->asked);
    return k->failed ? IOHW_BACKEND_ERROR : IOHW_UNSUPPORTED;
}
