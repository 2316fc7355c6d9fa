#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <signal.h>
