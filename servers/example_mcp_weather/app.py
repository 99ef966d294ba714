"""NeMo Gym's entrypoint for the example_mcp_weather resources server, written in Go with gymkit.

NeMo's launcher (gym env start) finds this folder as resources_servers/example_mcp_weather under
one of its roots (a link to servers/example_mcp_weather of the Go module), and runs `python app.py`
in it with the whole merged config in NEMO_GYM_CONFIG_DICT and this instance's name in
NEMO_GYM_CONFIG_PATH. This script replaces itself with the Go binary running
`serve --nemo`, which reads both and serves the instance at the host and port the
config assigns. It uses Python's standard library only.

The binary it runs:
  1. $GYMKIT_BIN when set, as it is (never built): for machines without Go.
  2. Else, with `go` on PATH and a go.mod at the module root: bin/gymkit under the
     module root, brought up to date first by `go build -o <temporary file> ./cmd/gymkit` in the module root, then renamed
     into place. Go decides what is stale (its build cache compares the content of every
     package, dependencies and replaced modules included); an up-to-date binary is not
     relinked. Several gymkit environments started at the same moment build once: the
     build runs under a lock (bin/.gymkit.lock), and a process that started before a
     build finished runs that build's result (or reports its failure) instead of
     building again.
  3. Else (no Go, or no go.mod: a folder laid out by hand): bin/gymkit, else
     ./gymkit at the module root, else `gymkit` on PATH, as it is.
A failed build, or no binary at all, is one message on stderr and exit status 1; so is
a launcher that is gone (the process that started app.py exited, or had exited before
app.py started: its parent is then not of its process group, whose leader, the
launcher, has exited): the server is not started then.
"""

import fcntl
import glob
import os
import shutil
import subprocess
import sys
import time

STARTED = time.time()
PARENT = os.getppid()
GROUP = os.getpgrp()
# Links are resolved first: resources_servers/example_mcp_weather is a link to servers/example_mcp_weather.
HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
NAME = "gymkit"
PACKAGE = "./cmd/gymkit"
BIN_DIR = os.path.join(ROOT, "bin")
BINARY = os.path.join(BIN_DIR, NAME)
LOCK = os.path.join(BIN_DIR, "." + NAME + ".lock")
RESULT = os.path.join(BIN_DIR, "." + NAME + ".build")  # "<time> ok|failed <pid>" of the last build


def fail(message):
    sys.stderr.write("app.py (example_mcp_weather): " + message + "\n")
    sys.exit(1)


def executable(path):
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def alive(pid):
    """Whether process pid exists and has not exited (a zombie has)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's: it exists
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return True


def launcher_gone():
    """Why the launcher that started app.py is gone, or "" while it is there."""
    now = os.getppid()
    if now != PARENT:
        return "the process that started app.py (pid %d) is gone" % PARENT
    if GROUP in (os.getpid(), 0, 1):
        return ""  # a group of its own (or init's): nothing to tell from
    try:
        adopted = PARENT <= 1 or os.getpgid(PARENT) != GROUP
    except OSError:
        adopted = True
    if adopted and not alive(GROUP):
        return ("the process that started app.py is gone: the leader of its process group (pid %d) "
                "has exited, and the parent is pid %d" % (GROUP, now))
    return ""


def check_launcher():
    gone = launcher_gone()
    if gone:
        fail(gone + ": not starting the server")


def prebuilt():
    for candidate in (BINARY, os.path.join(ROOT, NAME)):
        if executable(candidate):
            return candidate
    return shutil.which(NAME)


def last_build():
    """The last build's (finish time, outcome), or (0, "") when unknown."""
    try:
        with open(RESULT) as f:
            when, outcome, _ = f.read().split()
        return float(when), outcome
    except (OSError, ValueError):
        return 0.0, ""


def record(outcome):
    tmp = RESULT + "." + str(os.getpid())
    with open(tmp, "w") as f:
        f.write("%.6f %s %d\n" % (time.time(), outcome, os.getpid()))
    os.replace(tmp, RESULT)


def build(go):
    """BINARY, up to date: built here, or by a process that finished after this one started."""
    try:
        os.makedirs(BIN_DIR, exist_ok=True)
        lock = open(LOCK, "a")
    except OSError as e:
        fail("cannot take the build lock %s (%s): set GYMKIT_BIN to a built binary" % (LOCK, e.strerror))
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # waits while another process builds
        when, outcome = last_build()
        if when >= STARTED and outcome == "ok" and executable(BINARY):
            return BINARY
        if when >= STARTED and outcome == "failed":
            fail("go build of %s failed in another app.py started at the same time (its output is above): "
                 "fix the error, or set GYMKIT_BIN to a built binary" % BINARY)
        for stale in glob.glob(os.path.join(BIN_DIR, "." + NAME + ".*.tmp")):
            os.remove(stale)  # left by a build that was killed: only the lock's holder writes one
        tmp = os.path.join(BIN_DIR, ".%s.%d.tmp" % (NAME, os.getpid()))
        try:
            if executable(BINARY):
                # An up-to-date binary at the output path is left as it is by go build.
                shutil.copy2(BINARY, tmp)
            code = subprocess.call([go, "build", "-o", tmp, PACKAGE], cwd=ROOT, stdin=subprocess.DEVNULL)
            if code != 0 or not executable(tmp):
                record("failed")
                fail("`go build -o %s %s` in %s failed (exit status %d): fix the error above, "
                     "or set GYMKIT_BIN to a built binary" % (BINARY, PACKAGE, ROOT, code))
            os.replace(tmp, BINARY)
            record("ok")
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    return BINARY


def find_binary():
    env = os.environ.get("GYMKIT_BIN")
    if env:
        if not executable(env):
            fail("GYMKIT_BIN=%s is not an executable file" % env)
        return env
    go = shutil.which("go")
    if go and os.path.isfile(os.path.join(ROOT, "go.mod")):
        return build(go)
    found = prebuilt()
    if found:
        return found
    why = "no Go toolchain (go is not on PATH)"
    if go:
        why = "no go.mod at %s to build from" % ROOT
    fail("%s and no gymkit binary: GYMKIT_BIN is unset, neither %s nor %s exists, "
         "and %s is not on PATH; build it (make build, or go build -o bin/gymkit ./cmd/gymkit), install Go, or set GYMKIT_BIN"
         % (why, BINARY, os.path.join(ROOT, NAME), NAME))


if __name__ == "__main__":
    try:
        check_launcher()
        binary = find_binary()
    except KeyboardInterrupt:
        sys.exit(130)  # Ctrl-C while building or waiting for a build: no traceback
    check_launcher()
    os.execv(binary, [binary, "serve", "--nemo"] + sys.argv[1:])
