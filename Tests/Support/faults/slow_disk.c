/* A slow disk for the daemon under test (LD_PRELOAD): every fsync/fdatasync of a file first sleeps
 * 4 ms plus the bytes pwritten to that file since its last sync (SQLite's only write call; counted by
 * inode, whichever descriptor) divided by SLOW_DISK_BYTES_PER_SECOND (default 2,000,000). The data still goes to the real disk
 * through the real calls; only their latency is that of a slow device (a loaded CI machine's disk,
 * an SD card), which no mount option can give a tmpfs or the test's own disk.
 * Build: cc -shared -fPIC -O2 -o slow_disk.so slow_disk.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 65536
static long long pending[SLOTS];

static int slot(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    return (int)((st.st_ino * 2654435761u) % SLOTS);
}

static void account(int fd, ssize_t written) {
    int k = slot(fd);
    if (k >= 0 && written > 0) __atomic_add_fetch(&pending[k], written, __ATOMIC_RELAXED);
}

static void wait_for_device(int fd) {
    const char *rate = getenv("SLOW_DISK_BYTES_PER_SECOND");
    double bytes_per_second = rate ? atof(rate) : 2e6;
    int k = slot(fd);
    long long bytes = k >= 0 ? __atomic_exchange_n(&pending[k], 0, __ATOMIC_RELAXED) : 0;
    double seconds = 0.004 + (bytes_per_second > 0 ? bytes / bytes_per_second : 0);
    struct timespec pause = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    while (nanosleep(&pause, &pause) != 0) {}
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real) real = dlsym(RTLD_NEXT, "pwrite64");
    ssize_t written = real(fd, buffer, count, offset);
    account(fd, written);
    return written;
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real) real = dlsym(RTLD_NEXT, "pwrite");
    ssize_t written = real(fd, buffer, count, offset);
    account(fd, written);
    return written;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = dlsym(RTLD_NEXT, "fdatasync");
    wait_for_device(fd);
    return real(fd);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = dlsym(RTLD_NEXT, "fsync");
    wait_for_device(fd);
    return real(fd);
}
