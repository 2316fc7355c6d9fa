#!/usr/bin/python3
"""Runs every example of docs/getting-started.md as it stands (scripts/readme-examples.sh calls it).

Each example is the fenced block after an `<!-- example: KIND -->` line:

  session  a ```console transcript: `$ COMMAND` lines (bash; a line ending in `\\` continues), each
           followed by its exact output (stdout and stderr as the terminal shows them; `…` in a line
           stands for any text). All commands of a block share one testbed started at
           2026-12-24T08:00:00Z in Europe/Berlin, as the guide says.
  script   a shell script, run from the source tree in such a testbed; it must exit 0.
  python   a Python script, run the same way with PYTHON (the client installed); it must exit 0.
  pytest   a test file, run with PYTHON -m pytest in a directory of its own; it must pass.
  package  a Package.swift: saved in MyApp/ beside a `schedd` symlink to the source tree, with a
           folder per target it names; `swift package show-dependencies` must load the graph (the
           products and the package identity it names exist).
  swift    must be byte for byte Tests/ScheddKitTests/GettingStartedTests.swift (which the caller
           then runs with swift test).

Usage: guide_examples.py GUIDE SCHEDD_BINARY PYTHON WORKDIR       (from the source tree)
Prints one line per example; exits 1 at the first that fails, showing what differed.
"""
import os
import re
import subprocess
import sys

CLOCK = "2026-12-24T08:00:00Z"
ZONE = "Europe/Berlin"


def examples(text):
    """(kind, body) for each marked block, in order."""
    found, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.fullmatch(r"<!-- example: ([a-z]+) -->", lines[i])
        if m:
            i += 1
            assert lines[i].startswith("```"), f"example {m.group(1)} at line {i}: no fenced block follows"
            start = i + 1
            i = start
            while lines[i] != "```":
                i += 1
            found.append((m.group(1), "\n".join(lines[start:i]) + "\n"))
        i += 1
    return found


def parse_session(body):
    """[(command, [expected lines])] of a transcript."""
    steps, lines, i = [], body.rstrip("\n").split("\n"), 0
    while i < len(lines):
        assert lines[i].startswith("$ "), f"session line {lines[i]!r}: expected '$ COMMAND'"
        command = lines[i][2:]
        while command.endswith("\\"):
            i += 1
            command = command[:-1] + "\n" + lines[i]
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        steps.append((command, expected))
    return steps


def matches(expected, actual):
    if len(expected) != len(actual):
        return False
    for want, got in zip(expected, actual):
        pattern = "^" + ".*".join(re.escape(part) for part in want.split("…")) + "$"
        if not re.match(pattern, got):
            return False
    return True


def run_session(path):
    """Inside a testbed: runs each command of the transcript in `path`, compares its output."""
    with open(path, encoding="utf-8") as f:
        steps = parse_session(f.read())
    for command, expected in steps:
        result = subprocess.run(["bash", "-c", command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        actual = result.stdout.rstrip("\n").split("\n") if result.stdout else []
        if not matches(expected, actual):
            print(f"$ {command}\n--- expected\n" + "\n".join(expected) + "\n--- got\n" + "\n".join(actual))
            return 1
    return 0


def in_testbed(binary, command, cwd=None, env=None):
    return subprocess.run([binary, "testbed", "--fake-clock", CLOCK, "--tz", ZONE, "--"] + command,
                          cwd=cwd, env=env).returncode


def main():
    if sys.argv[1] == "--run-session":
        return run_session(sys.argv[2])
    guide, binary, python, work = sys.argv[1:5]
    binary, python, work = os.path.abspath(binary), os.path.abspath(python), os.path.abspath(work)
    root = os.getcwd()
    env = dict(os.environ, PATH=os.path.dirname(binary) + ":" + os.path.dirname(python) + ":" + os.environ["PATH"])
    with open(guide, encoding="utf-8") as f:
        found = examples(f.read())
    kinds = {kind for kind, _ in found}
    for kind in ["session", "script", "python", "pytest", "package", "swift"]:
        if kind not in kinds:
            print(f"guide-examples: {guide} has no '{kind}' example")
            return 1
    os.makedirs(work, exist_ok=True)
    for n, (kind, body) in enumerate(found, 1):
        name = f"{guide} example {n} ({kind})"
        path = os.path.join(work, f"example-{n}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(body)
        if kind == "session":
            status = in_testbed(binary, [sys.executable, os.path.abspath(__file__), "--run-session", path], cwd=work, env=env)
        elif kind == "script":
            os.chmod(path, 0o755)
            status = in_testbed(binary, [path], cwd=root, env=env)
        elif kind == "python":
            status = in_testbed(binary, [python, path], cwd=work, env=env)
        elif kind == "pytest":
            directory = os.path.join(work, f"pytest-{n}")
            os.makedirs(directory)
            os.rename(path, os.path.join(directory, "test_example.py"))
            status = subprocess.run([python, "-m", "pytest", "-p", "no:cacheprovider", "-q"], cwd=directory, env=env).returncode
        elif kind == "package":
            directory = os.path.join(work, f"package-{n}")
            os.makedirs(os.path.join(directory, "MyApp"))
            os.symlink(root, os.path.join(directory, "schedd"))
            os.rename(path, os.path.join(directory, "MyApp", "Package.swift"))
            for target_kind, target in re.findall(r"\.(target|executableTarget|testTarget)\(name: \"(\w+)\"", body):
                folder = os.path.join(directory, "MyApp", "Tests" if target_kind == "testTarget" else "Sources", target)
                os.makedirs(folder)
                with open(os.path.join(folder, "Empty.swift"), "w") as f:
                    f.write("")
            status = subprocess.run(["swift", "package", "show-dependencies"], cwd=os.path.join(directory, "MyApp"),
                                    env=env, stdout=subprocess.DEVNULL).returncode
        elif kind == "swift":
            with open("Tests/ScheddKitTests/GettingStartedTests.swift", encoding="utf-8") as f:
                status = 0 if f.read() == body else 1
            if status:
                print("the guide's Swift example and Tests/ScheddKitTests/GettingStartedTests.swift differ")
        else:
            print(f"{name}: unknown kind")
            return 1
        print(f"{'ok' if status == 0 else 'FAIL'}: {name}")
        if status != 0:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
