#!/usr/bin/env bash
# Fails when Package.swift and the code drift apart, or a layer reaches where it must not
# (docs/architecture.md):
#   1. each target's declared dependencies are exactly the modules its files import (Foundation,
#      Glibc, XCTest and the other toolchain modules aside): no unused dependency, none missing (a test
#      target may declare an executable it runs without importing it);
#   2. only the shims import the C libraries' modules (CSQLite, CSystemd, CSchedBus, CCrypto,
#      CLinuxProcess): SQLiteShim.swift, the ScheddBus shims, CryptoShim.swift, ScheddSystem;
#   3. the pure layers (SchedCalendar, Scheduler) read no environment (getenv, nor ScheddSystem's
#      CurrentProcess.environment), no system clock (SystemTime), have no global zone database, and
#      import no Glibc/Foundation;
#   4. docs/architecture.md's target table lists every target with exactly its dependencies;
#   5. no Swift file in Sources/ makes a system call outside the seam (Sources/ScheddSystem): no
#      syscall by name (getuid, fstat, fcntl, clock_gettime, sigprocmask, socket, getenv, kill…), no
#      `Glibc.`-qualified call (Glibc.read, Glibc.close…), no Foundation stand-in (ProcessInfo's
#      environment, FileManager). The other libraries' own calls (sd-bus, sqlite3, libcrypto) go
#      through their one shim each (rule 2);
#   6. no script, doc or test starts a bus with `dbus-daemon --fork` (a forked bus outlives a killed
#      run): buses run `--nofork`, tethered or killed by PID (docs/testing.md).
#   7. no Swift file in Sources/ matches on an error's message text (errors travel typed).
#   8. threads and clocks only in the seam: no file in Sources/ outside Sources/ScheddSystem (and the C
#      targets' own code) names pthread_* (pthread_create, pthread_self, pthread_t…), reads a clock
#      (clock_gettime, a CLOCK_* id, gettimeofday, time(nil), Date(), Date.now, ContinuousClock,
#      SuspendingClock, DispatchTime.now) or starts a Foundation Thread: ScheddSystem's SystemThread,
#      ThreadIdentity and SystemTime are the one way to them.
# Run by scripts/test.sh; standalone: scripts/check-layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
swift package dump-package > "${TMPDIR:-/tmp}/schedd-package-$$.json"
trap 'rm -f "${TMPDIR:-/tmp}/schedd-package-$$.json"' EXIT
python3 - "${TMPDIR:-/tmp}/schedd-package-$$.json" <<'PY'
import json, os, re, sys
package = json.load(open(sys.argv[1]))
toolchain = {"Foundation", "FoundationEssentials", "Glibc", "Darwin", "XCTest", "Testing", "Synchronization",
             "Dispatch", "_Concurrency"}
names = {t["name"] for t in package["targets"]}
problems = []
for target in package["targets"]:
    if target["type"] == "system":
        continue
    path = target.get("path") or ("Sources/" + target["name"])
    if not any(f.endswith(".swift") for _, _, fs in os.walk(path) for f in fs):
        continue  # a C target (CSchedBus): its dependencies are headers
    declared = set()
    for dependency in target["dependencies"]:
        declared.add(list(dependency.values())[0][0])
    imported = {}
    for root, _, files in os.walk(path):
        for file in files:
            if not file.endswith(".swift"):
                continue
            full = os.path.join(root, file)
            for line in open(full, encoding="utf-8"):
                m = re.match(r"\s*(?:@testable\s+|@_exported\s+)?import\s+(?:(?:struct|enum|class|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)", line)
                if m:
                    imported.setdefault(m.group(1), full)
    used = {m for m in imported if m in names}
    for module in sorted(used - declared):
        problems.append(f"{target['name']}: imports {module} ({imported[module]}) but does not declare it")
    executables = {t["name"] for t in package["targets"] if t["type"] == "executable"}
    for module in sorted(declared - used - (executables if target["type"] == "test" else set())):
        problems.append(f"{target['name']}: declares {module} but no file imports it")
    for module in sorted(m for m in set(imported) - names - toolchain if m[0].isupper()):
        problems.append(f"{target['name']}: imports {module} ({imported[module]}), which is no target of this package")
shims = {
    "CSQLite": ["Sources/Scheduler/SQLiteShim.swift", "Benchmarks/"],
    "CSystemd": ["Sources/ScheddBus/SDBusShim", "Sources/ScheddBus/SDEventShim", "Sources/schedd/Daemon/SystemdShim.swift",
                 "Sources/schedd/Bus/SchedulerBus.swift"],
    "CSchedBus": ["Sources/ScheddBus/SDBusShim", "Sources/schedd/Bus/SchedulerBus.swift",
                  "Sources/ScheddPush/PushConnector.swift"],
    "CCrypto": ["Sources/ScheddCrypto/CryptoShim.swift"],
    "CLinuxProcess": ["Sources/ScheddSystem/"],
}
for root in ["Sources", "Benchmarks", "Tests"]:
    for directory, _, files in os.walk(root):
        for file in files:
            if not file.endswith(".swift"):
                continue
            full = os.path.join(directory, file)
            for line in open(full, encoding="utf-8"):
                m = re.match(r"\s*import\s+(C[A-Za-z]+)\b", line)
                if m and m.group(1) in shims and not any(full.startswith(p) for p in shims[m.group(1)]):
                    problems.append(f"{full}: imports {m.group(1)} outside its shim")
for pure in ["Sources/Calendar", "Sources/Scheduler"]:
    for directory, _, files in os.walk(pure):
        for file in files:
            full = os.path.join(directory, file)
            for number, line in enumerate(open(full, encoding="utf-8"), 1):
                if re.search(r"ZoneDatabase\.shared|getenv|CurrentProcess\.(set|unset)?[eE]nvironment|SystemTime\.|^\s*import\s+(Glibc|Foundation|Darwin)\b", line):
                    problems.append(f"{full}:{number}: the pure layers read no environment: {line.strip()}")
# 5. System calls only in the seam. A name of this list called as a free function (not `.name(` nor
# `func name(`) outside Sources/ScheddSystem is a syscall outside the seam; so is any call written
# `Glibc.name(` (how Swift reaches read/write/close/open/poll, whose bare names are also methods).
# Glibc constants and types (errno values, uid_t) stay allowed: they are values, not calls.
syscalls = ("getuid geteuid getgid getegid getpid getppid getpgrp setsid setpgid getgroups getgrouplist "
            "getpwnam getpwnam_r getpwuid getpwuid_r getgrnam getgrnam_r "
            "openat creat stat fstat lstat fstatat statfs fstatfs fcntl ioctl dup dup2 dup3 pipe pipe2 "
            "lseek pread pwrite readv writev fsync fdatasync ftruncate truncate mkdir mkdirat rmdir unlink "
            "unlinkat rename renameat link symlink readlink readlinkat chmod fchmod chown fchown umask access "
            "faccessat opendir fdopendir readdir closedir mkdtemp mkstemp realpath chdir getcwd "
            "ppoll select epoll_create1 epoll_ctl epoll_wait eventfd timerfd_create timerfd_settime "
            "inotify_init1 inotify_add_watch kill raise sigaction sigprocmask pthread_sigmask sigtimedwait "
            "sigwaitinfo sigsuspend fork vfork execve execv execvp posix_spawn posix_spawnp waitpid waitid "
            "pidfd_open pidfd_send_signal socket socketpair bind listen accept accept4 connect sendto sendmsg "
            "recvfrom recvmsg shutdown getsockopt setsockopt clock_gettime clock_settime gettimeofday "
            "nanosleep usleep sleep getenv secure_getenv setenv unsetenv putenv clearenv sysconf getrandom "
            "mmap munmap isatty").split()
call = re.compile(r"(?<![A-Za-z0-9_.])(" + "|".join(syscalls) + r")\s*\(")
qualified = re.compile(r"\bGlibc\.(?!errno\b)[a-z_][A-Za-z0-9_]*\s*\(")
foundation = re.compile(r"\bProcessInfo\.processInfo\.environment\b|\bFileManager\b")
for directory, _, files in os.walk("Sources"):
    for file in files:
        full = os.path.join(directory, file)
        if not file.endswith(".swift") or full.startswith("Sources/ScheddSystem/"):
            continue
        lines = open(full, encoding="utf-8").readlines()
        # Only a file that imports the C library can call it (the names bind, select, stat… are also
        # the store's and the bus's own methods elsewhere).
        if not any(re.match(r"\s*import\s+(Glibc|Foundation|Darwin)\b", l) for l in lines):
            continue
        for number, line in enumerate(lines, 1):
            code = re.sub(r'//.*$|"(?:[^"\\]|\\.)*"', '""', line)
            if re.search(r"\bfunc\s+(" + "|".join(syscalls) + r")\b", code):
                continue
            m = call.search(code) or qualified.search(code) or foundation.search(code)
            if m:
                problems.append(f"{full}:{number}: a system call outside the seam (ScheddSystem): {m.group(0).strip()}")
# 6. No forked bus anywhere a bus is started (BENCHMARKS.md keeps the history of what was measured).
for root in ["scripts", "docs", "clients", "Tests", "README.md", ".ci"]:
    paths = [root] if os.path.isfile(root) else [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs]
    for full in paths:
        if "/__pycache__/" in full or full.endswith((".pyc", ".png")) or full == "scripts/check-layers.sh":
            continue
        try:
            lines = open(full, encoding="utf-8").readlines()
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(lines, 1):
            if re.search(r"dbus-daemon\b.*(?<![-\w])--fork\b", line) or re.search(r"['\"]--fork['\"]", line):
                problems.append(f"{full}:{number}: a bus started with --fork outlives a killed run (use --nofork, tethered): {line.strip()}")
# docs/architecture.md's target table names every non-test target with exactly its dependencies.
doc = open("docs/architecture.md", encoding="utf-8").read()
documented = {}
for line in doc.split("\n"):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if not line.startswith("| `") or len(cells) != 3:
        continue
    for name in re.findall(r"`([A-Za-z]+)`", cells[0]):
        documented[name] = cells[2]
for target in package["targets"]:
    name = target["name"]
    if target["type"] == "test" or name in ("SeededRandomness", "TestPrerequisites", "schedd-bench"):
        continue
    declared = {list(d.values())[0][0] for d in target["dependencies"]}
    if name not in documented:
        problems.append(f"docs/architecture.md: target {name} is not in the table")
    elif documented[name] != "everything above it":
        listed = set() if documented[name] == "—" else {x.strip() for x in documented[name].split(",")}
        if listed != declared:
            problems.append(f"docs/architecture.md: {name} imports {sorted(declared)}, the table says {sorted(listed)}")
# 7. No layer parses another's message text (issue 32 item 3): errors travel typed (PushError's member,
# rule and position, CalendarError's stage and rule, SchedulerErrorDetail on the bus), so no Sources
# file takes an error's message apart: no `error.message.hasPrefix(`, `message.dropFirst(`,
# `Substring(error.message)`, nor a `hasPrefix("member: …")` on a message-like prefix.
error_text = re.compile(
    r"\b(?:\w*(?:[eE]rror|[fF]ailure)\w*\.(?:message|description|rule|reason)|message|errorText)\s*\??\.\s*"
    r"(?:hasPrefix|hasSuffix|contains|dropFirst|starts|range|firstIndex|split|components)\b"
    r"|\b(?:Substring|String)\(\s*\w*(?:[eE]rror|[fF]ailure)\w*\.(?:message|description)\s*\)"
    r"|\.hasPrefix\(\s*\"[a-z][\w.]*: ")
for directory, _, files in os.walk("Sources"):
    for file in files:
        full = os.path.join(directory, file)
        if not file.endswith(".swift"):
            continue
        for number, line in enumerate(open(full, encoding="utf-8"), 1):
            code = re.sub(r"//.*$", "", line)
            if error_text.search(code):
                problems.append(f"{full}:{number}: matches on an error's text (use the typed error's fields): {line.strip()}")
# 8. Threads and clocks only in the seam (issue 32 item 6). Checked on every file of Sources/ outside
# ScheddSystem and the C targets (their code is the C side of a shim), whatever it imports: comments and
# string literals aside, no pthread_ name, no clock read, no Foundation Thread.
thread_or_clock = re.compile(
    r"\bpthread_[a-z_]*\b|\bclock_(?:gettime|getres|nanosleep)\b|\bCLOCK_[A-Z_]+\b|\bgettimeofday\b"
    r"|(?<![A-Za-z0-9_.])time\s*\(\s*nil\s*\)|\bDate\s*\(\s*\)|\bDate\.now\b|\b(?:Continuous|Suspending)Clock\b"
    r"|\bDispatchTime\.now\b|\bThread\s*(?:\{|\(|\.detachNewThread)")
target_path = lambda t: (t.get("path") or "Sources/" + t["name"]).rstrip("/") + "/"
c_targets = tuple(target_path(t) for t in package["targets"]
                  if t["type"] == "system" or not any(f.endswith(".swift") for _, _, fs in os.walk(target_path(t)) for f in fs))
for directory, _, files in os.walk("Sources"):
    for file in files:
        full = os.path.join(directory, file)
        if full.startswith("Sources/ScheddSystem/") or full.startswith(c_targets):
            continue
        try:
            lines = open(full, encoding="utf-8").readlines()
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(lines, 1):
            code = re.sub(r'//.*$|"(?:[^"\\]|\\.)*"', '""', line)
            m = thread_or_clock.search(code)
            if m:
                problems.append(f"{full}:{number}: a thread or clock call outside the seam (ScheddSystem's SystemThread, ThreadIdentity, SystemTime): {m.group(0).strip()}")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print("layers: every target imports exactly what it declares (as docs/architecture.md says); C modules only in their shims; system calls, threads and clocks only in ScheddSystem; no error text parsed")
PY
