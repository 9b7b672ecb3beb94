/*
 * cli/shard_from_env.c - applies the CI engine's shard (cli/shard_env.h) to
 * `iohw run`: says which engine, touches its status file.
 */
#include "cli/shard_env.h"
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *from_process(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

/* Creates the file, or updates its time. */
static int touch(const char *path, iohw_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || futimens(fd, NULL) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return iohw_error_set(err, "cannot touch the shard status file '%s': %s",
                              path, strerror(e));
    }
    close(fd);
    return 0;
}

int iohw_cli_shard_from_env(int shard_given, int shard_total, int touch_status,
                            int *index, int *count, const char **junit)
{
    iohw_shard_env env;
    iohw_error err = {{0}};
    if (shard_given && shard_total > 0)
        return iohw_cli_usage("run", "--shard-total goes with Kubernetes' "
                              "JOB_COMPLETION_INDEX, not with --shard I/N");
    if (shard_given) {  /* --shard wins: the engines are not read */
        if (*junit == NULL)
            *junit = iohw_cli_xml_output(from_process, NULL);
        return 0;
    }
    if (iohw_cli_shard_detect(from_process, NULL, shard_total, &env, &err) != 0)
        return iohw_cli_usage("run", "%s", err.msg);
    if (*junit == NULL)
        *junit = env.junit;
    if (env.source[0] == '\0')
        return 0;
    *index = env.index;
    *count = env.count;
    iohw_cli_error("sharding: %d/%d from %s", env.index, env.count, env.source);
    if (touch_status && env.status_file != NULL && env.status_file[0] != '\0'
        && touch(env.status_file, &err) != 0) {
        iohw_cli_error("run: %s", err.msg);
        return IOHW_EXIT_USAGE;
    }
    return 0;
}
