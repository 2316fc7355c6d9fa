#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/* pidfd_open(2) (Linux >= 5.3): syscall() is variadic and does not import into Swift. */
static inline int schedd_pidfd_open(pid_t pid, unsigned int flags) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, flags);
#else
    return (int)syscall(434, pid, flags);
#endif
}
