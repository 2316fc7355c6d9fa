#!/usr/bin/env bash
# tether.sh COMMAND [ARG…]: runs COMMAND (stdin /dev/null, stdout inherited) in a process group of its
# own for as long as this script's stdin stays open, then stops that whole group with SIGTERM (SIGKILL
# after 5 s) and waits for COMMAND. The test harness gives it a pipe only the test process holds (close-on-exec), so the
# group stops when the harness closes it and also when the test process dies, even by SIGKILL: a
# killed test run leaves no dbus-daemon, Xvfb or dunst behind (docs/testing.md).
# COMMAND alone holds the stdout it was given (this script's own goes to /dev/null), so a reader sees
# end of file once COMMAND and whatever it started have closed theirs.
set -m   # job control: the background job below leads a process group of its own
"$@" </dev/null &
group=$!
exec >/dev/null
cat >/dev/null   # until end of file on the lifeline
kill -TERM -- "-$group" 2>/dev/null
# A command that ignores SIGTERM for 5 s is killed.
for _ in $(seq 100); do kill -0 "$group" 2>/dev/null || break; sleep 0.05; done
kill -KILL -- "-$group" 2>/dev/null
wait
