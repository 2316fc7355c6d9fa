#!/usr/bin/python3
"""Starts `sleep SECONDS` with PID exactly TARGET (as root: /proc/sys/kernel/ns_last_pid = TARGET-1,
then fork), retrying while other processes on the machine take the PID first. Prints the child's pid
(TARGET on success, else the last pid it got) and exits, leaving the child running (reparented).

    take_pid.py TARGET SECONDS [ATTEMPTS]
"""
import os, sys

target, seconds = int(sys.argv[1]), sys.argv[2]
attempts = int(sys.argv[3]) if len(sys.argv) > 3 else 200
pid = -1
for _ in range(attempts):
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(target - 1))
    pid = os.fork()
    if pid == 0:
        null = os.open("/dev/null", os.O_RDWR)  # not the caller's pipes: it must not wait for this child
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 65536)  # nor any inherited pipe end
        os.execv("/bin/sleep", ["sleep", seconds])
    if pid == target:
        break
    os.kill(pid, 9)
    os.waitpid(pid, 0)
print(pid, flush=True)
os._exit(0)
