// Linux process calls Swift's Glibc module does not import (pidfd_open is in <sys/pidfd.h>, glibc ≥ 2.36).
#include <sys/pidfd.h>
#include <poll.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>

/// statfs(2)'s f_type for `path`, or -1 with errno set (struct statfs shares its name with the function,
/// which Swift cannot call).
static inline long clinux_statfs_type(const char *path) {
    struct statfs buf;
    if (statfs(path, &buf) != 0) return -1;
    return (long)buf.f_type;
}
#include <spawn.h>

/// POSIX_SPAWN_SETSID (glibc ≥ 2.26; declared only with _GNU_SOURCE, which Swift's Glibc module lacks).
static inline short clinux_spawn_setsid(void) {
#ifdef POSIX_SPAWN_SETSID
    return POSIX_SPAWN_SETSID;
#else
    return 0x80;
#endif
}
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <unistd.h>

/// pipe2(2) (declared only with _GNU_SOURCE): both ends close-on-exec, and O_NONBLOCK when `nonblocking`.
int pipe2(int pipefd[2], int flags);
static inline int clinux_pipe(int ends[2], int nonblocking) {
    return pipe2(ends, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0));
}
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <errno.h>

/// Starts `path` (absolute) with `argv`/`envp` as a grandchild that is nobody's child but init's (or
/// the nearest subreaper's): fork, setsid in the child, fork again, the child exits at once and is
/// reaped here, the grandchild resets its signal mask and dispositions, puts stdin/stdout/stderr on
/// /dev/null and execs. Only async-signal-safe calls run between fork and exec (everything is
/// prepared before). Returns the grandchild's pid, or -errno (of fork, setsid or execve, reported
/// through a close-on-exec pipe: the read ends when the exec succeeded).
static inline int clinux_spawn_detached(const char *path, char *const argv[], char *const envp[]) {
    int report[2];
    if (pipe(report) != 0) return -errno;
    fcntl(report[0], F_SETFD, FD_CLOEXEC);
    fcntl(report[1], F_SETFD, FD_CLOEXEC);
    pid_t child = fork();
    if (child < 0) { int e = errno; close(report[0]); close(report[1]); return -e; }
    if (child == 0) {
        int message[2] = {0, 0};
        close(report[0]);
        if (setsid() < 0) { message[0] = errno; (void)!write(report[1], message, sizeof message); _exit(1); }
        pid_t grandchild = fork();
        if (grandchild != 0) {
            message[0] = grandchild < 0 ? errno : 0;
            message[1] = grandchild;
            (void)!write(report[1], message, sizeof message);
            _exit(grandchild < 0 ? 1 : 0);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int reset[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2};
        for (unsigned i = 0; i < sizeof reset / sizeof reset[0]; i++) signal(reset[i], SIG_DFL);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) { dup2(null, 0); dup2(null, 1); dup2(null, 2); if (null > 2) close(null); }
        execve(path, argv, envp);
        message[0] = errno;
        message[1] = -1;
        (void)!write(report[1], message, sizeof message);
        _exit(127);
    }
    close(report[1]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    int first[2] = {0, 0}, second[2] = {0, 0};
    ssize_t n;
    while ((n = read(report[0], first, sizeof first)) < 0 && errno == EINTR) {}
    if (n != (ssize_t)sizeof first) { close(report[0]); return -ECHILD; }
    if (first[0] != 0) { close(report[0]); return -first[0]; }
    while ((n = read(report[0], second, sizeof second)) < 0 && errno == EINTR) {}
    close(report[0]);
    if (n == (ssize_t)sizeof second && second[0] != 0) return -second[0];
    return first[1];
}
#include <sys/prctl.h>

/// Names the calling thread (prctl PR_SET_NAME: at most 15 bytes kept, what `ps -L` shows); prctl is
/// variadic, which Swift cannot call, and pthread_setname_np is declared only with _GNU_SOURCE.
static inline int clinux_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
