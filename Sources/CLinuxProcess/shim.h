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
