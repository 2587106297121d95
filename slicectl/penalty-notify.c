/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utmpx.h>

#include "escape.h"
#include "format.h"
#include "penalty-notify.h"
#include "plugin.h"
#include "proc-stat.h"
#include "slicectl-util.h"
#include "strv.h"
#include "time-util.h"
#include "trusted-path.h"

#define HOOK_TIMEOUT_USEC (10 * USEC_PER_SEC)
#define HOOK_TOP_PROCS 10

/* logind may give "/dev/pts/3" or "pts/3" */
static const char *startswith_dev(const char *tty) {
        return strncmp(tty, "/dev/", 5) == 0 ? tty + 5 : tty;
}

/* A utmp line names a terminal under /dev ("pts/3", "tty1"): nothing that leaves /dev. */
static bool tty_line_ok(const char *line) {
        return *line && line[0] != '/' && !strstr(line, "..") &&
               strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/_-") == strlen(line);
}

static void write_tty(const char *line, uid_t uid, const char *msg) {
        _cleanup_close_ int fd = -EBADF;
        char path[sizeof((struct utmpx) {}.ut_line) + 8];
        struct stat st;

        snprintf(path, sizeof path, "/dev/%s", line);
        /* O_NONBLOCK: a terminal that does not read (a stopped ssh) must not hold the pass */
        fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_uid != uid)
                return;
        (void) !write(fd, msg, strlen(msg));
}

/* Each terminal once, whichever list named it. */
static void add_tty(char ***ttys, size_t *n, const char *line) {
        char *copy;

        if (!tty_line_ok(line) || strv_contains(*ttys, line))
                return;
        copy = strdup(line);
        if (copy)
                (void) strv_consume(ttys, n, copy);
}

/* The user's terminals: logind's sessions (trixie and later keep no utmp), through sd-login in the
 * plugin (without it, no logind sessions are looked at), and utmp's entries (hosts without
 * systemd, and older ones). */
static void user_ttys(const UserIdent *u, char ***ttys, size_t *n) {
        _cleanup_strv_free_ char **sessions = NULL;
        const SystemdPlugin *plugin;
        struct utmpx *ut;

        if (slicectl_plugin(&plugin, NULL) >= 0 && plugin->uid_get_sessions(u->uid, 0, &sessions) > 0)
                for (size_t i = 0; sessions[i]; i++) {
                        _cleanup_free_ char *tty = NULL;

                        if (plugin->session_get_tty(sessions[i], &tty) >= 0)
                                add_tty(ttys, n, startswith_dev(tty));
                }
        setutxent();
        while ((ut = getutxent())) {
                char name[sizeof ut->ut_user + 1], line[sizeof ut->ut_line + 1];

                if (ut->ut_type != USER_PROCESS)
                        continue;
                snprintf(name, sizeof name, "%.*s", (int) sizeof ut->ut_user, ut->ut_user);
                snprintf(line, sizeof line, "%.*s", (int) sizeof ut->ut_line, ut->ut_line);
                if (strcmp(name, u->name) == 0)
                        add_tty(ttys, n, line);
        }
        endutxent();
}

void penalty_notify_user(const UserIdent *u, const char *text) {
        _cleanup_strv_free_ char **ttys = NULL;
        size_t n = 0;
        char msg[1024];

        snprintf(msg, sizeof msg, "\r\n\a*** pam_cpuslice: %s ***\r\n", text);
        user_ttys(u, &ttys, &n);
        for (size_t i = 0; i < n; i++)
                write_tty(ttys[i], u->uid, msg);
}

typedef struct TopProc {
        pid_t pid;
        ProcStat st;
} TopProc;

static int by_cpu(const void *a, const void *b) {
        const TopProc *x = a, *y = b;
        return x->st.cpu_usec < y->st.cpu_usec ? 1 : x->st.cpu_usec > y->st.cpu_usec ? -1 : 0;
}

/* "PID COMM CPU-SECONDS" lines, the busiest first, for the hook's stdin. */
static void write_top(FILE *f, const pid_t *pids, size_t n) {
        _cleanup_free_ TopProc *v = calloc(n ? n : 1, sizeof *v);
        size_t k = 0;

        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                if (proc_stat_read(pids[i], &v[k].st) >= 0)
                        v[k++].pid = pids[i];
        qsort(v, k, sizeof *v, by_cpu);
        for (size_t i = 0; i < k && i < HOOK_TOP_PROCS; i++) {
                _cleanup_free_ char *comm = escape_dup(v[i].st.comm);
                fprintf(f, "%d %s %.1f\n", (int) v[i].pid, comm ? comm : "?",
                        (double) v[i].st.cpu_usec / USEC_PER_SEC);
        }
}

static void wait_hook(pid_t pid, const char *path) {
        uint64_t deadline = usec_deadline(HOOK_TIMEOUT_USEC);
        int status;

        while (waitpid(pid, &status, WNOHANG) == 0) {
                if (now_usec() >= deadline) {
                        kill(pid, SIGKILL);
                        (void) waitpid(pid, &status, 0);
                        log_warning("%s: still running after 10s; killed", path);
                        return;
                }
                sleep_usec(10 * USEC_PER_MSEC);
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                log_warning("%s failed (status %d)", path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* The admin's hook, if there is one that root may trust: run with a clean environment, the
 * decision in its arguments and the top processes on stdin. */
static void run_hook(const PenaltyNote *n) {
        static char *const env[] = { (char *) "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                                     NULL };
        char path[PATH_MAX], uid[16], level[16], cap[CPU_FORMAT_MAX], until[24], why[128];
        _cleanup_close_ int fd = -EBADF;
        int pipefd[2];
        pid_t pid;
        FILE *f;

        snprintf(path, sizeof path, "%s" PENALTY_HOOK, strempty(arg_state_root));
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return;
        if (trusted_fd_check(fd, S_IFREG, why, sizeof why) < 0) {
                log_warning("%s is %s; not run", path, why);
                return;
        }
        snprintf(uid, sizeof uid, "%u", (unsigned) n->user->uid);
        snprintf(level, sizeof level, "%u", n->st->level);
        snprintf(until, sizeof until, "%" PRIu64, n->st->until / USEC_PER_SEC);
        cpu_quota_format(n->cap, cap);
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return;
        pid = fork();
        if (pid == 0) {
                char *argv[] = { path,          (char *) penalty_action_to_string(n->action),
                                 n->user->name, uid,
                                 level,         cap,
                                 until,         NULL };
                if (dup2(pipefd[0], STDIN_FILENO) < 0)
                        _exit(127);
                /* the file checked is the file run (a script's interpreter opens it by its fd) */
                if (fcntl(fd, F_SETFD, 0) < 0)
                        _exit(127);
                fexecve(fd, argv, env);
                _exit(127);
        }
        close(pipefd[0]);
        if (pid < 0) {
                close(pipefd[1]);
                return;
        }
        f = fdopen(pipefd[1], "w");
        if (f) {
                signal(SIGPIPE, SIG_IGN);
                write_top(f, n->pids, n->n_pids);
                fclose(f);
        } else
                close(pipefd[1]);
        wait_hook(pid, path);
}

void penalty_notify(const PenaltyNote *n) {
        char text[512], cap[CPU_FORMAT_MAX], use[CPU_FORMAT_MAX], above[CPU_FORMAT_MAX], until[FORMAT_MAX],
                win[FORMAT_MAX];

        if (n->action == PENALTY_LIFT)
                snprintf(text, sizeof text, "the CPU limit of your penalty has ended");
        else
                snprintf(text, sizeof text,
                         "your processes used %s of a CPU over the last %s, above the %s allowed here; they are "
                         "limited to %s until %s (penalty level %u; 'slicectl status' shows it)",
                         cpu_quota_format(n->st->cause_per_sec, use), format_usec(n->window, win),
                         cpu_quota_format(n->above, above), cpu_quota_format(n->cap, cap),
                         format_walltime(n->st->until, until), n->st->level);
        penalty_notify_user(n->user, text);
        run_hook(n);
}
