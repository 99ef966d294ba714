"""NeMo Gym's entrypoint for the example_mcp_weather resources server, written in Go with gymkit.

NeMo's launcher (gym env start) finds this folder as resources_servers/example_mcp_weather under
one of its roots (a link to servers/example_mcp_weather of the Go module), and runs `python app.py`
in it with the whole merged config in NEMO_GYM_CONFIG_DICT and this instance's name in
NEMO_GYM_CONFIG_PATH. This script replaces itself with the Go binary running
`serve --nemo`, which reads both and serves the instance at the host and port the
config assigns. It uses Python's standard library only.

The binary it runs:
  1. $GYMKIT_BIN when set, as it is (never built): for machines without Go. Every gymkit
     app.py started with it set runs that one binary, whatever its module.
  2. Else, with `go` on PATH and a go.mod at the module root: bin/gymkit under the
     module root, brought up to date first by `go build -o <temporary file> ./cmd/gymkit` in the module root, then renamed
     into place (so a link at bin/gymkit is replaced by the file, as go build -o
     replaces it). Go decides what is stale (its build cache compares the content of every
     package, dependencies and replaced modules included); an up-to-date binary is not
     relinked. Several gymkit environments started at the same moment build once: the
     build runs under a lock (bin/.gymkit.lock), and a process that started before a
     build finished runs that build's result (or reports its failure) instead of
     building again; one that waits more than a few seconds says which process holds the
     lock. When bin/ cannot be written (a read-only checkout, another user's), nothing is
     built: the binary already there runs as it is, after a one-line warning.
  3. Else (no Go, or no go.mod: a folder laid out by hand): bin/gymkit, else
     ./gymkit at the module root, else `gymkit` on PATH, as it is.
A failed build, or no binary at all, is one message on stderr and exit status 1; so is
a launcher that is gone (the process that started app.py exited, or had exited before
app.py started: its parent is then not of its process group, whose leader, the
launcher, has exited): the server is not started then. SIGINT, SIGTERM or SIGHUP while
building stops the build (go runs in a process group of its own, killed whole) and
exits with status 128 + the signal's number, without a traceback; a signal ignored when
app.py started (SIGHUP under nohup) stays ignored, for the binary it runs too.
"""

import fcntl
import glob
import os
import shutil
import signal
import subprocess
import sys
import time

PARENT = os.getppid()
GROUP = os.getpgrp()
# gymkit's app.py (gymkit check --nemo reads this line): the module root relative to this
# file's folder, the binary's name, the package go build builds.
GYMKIT_APP = ("../..", "gymkit", "./cmd/gymkit")
# Links are resolved first: resources_servers/example_mcp_weather is a link to servers/example_mcp_weather.
HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, GYMKIT_APP[0]))
NAME = GYMKIT_APP[1]
PACKAGE = GYMKIT_APP[2]
BIN_DIR = os.path.join(ROOT, "bin")
BINARY = os.path.join(BIN_DIR, NAME)
LOCK = os.path.join(BIN_DIR, "." + NAME + ".lock")  # holds the pid of the process building
RESULT = os.path.join(BIN_DIR, "." + NAME + ".build")  # "<generation> ok|failed <pid>" of the last build
NOTICE = 4  # seconds of waiting for the build lock before saying who holds it


class Stopped(Exception):
    """SIGTERM or SIGHUP, raised as Python raises KeyboardInterrupt at SIGINT."""


def stopped(signum, frame):
    raise Stopped(signum)


def say(message):
    sys.stderr.write("app.py (example_mcp_weather): " + message + "\n")


def fail(message):
    say(message)
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


def last_build():
    """The last build's (generation, outcome), or (0, "") when none can be read."""
    try:
        with open(RESULT) as f:
            generation, outcome, _ = f.read().split()
        return int(generation), outcome
    except (OSError, ValueError):
        return 0, ""


SEEN = last_build()[0]  # the builds recorded when app.py started: a later one is trusted


def record(generation, outcome):
    tmp = RESULT + "." + str(os.getpid())
    with open(tmp, "w") as f:
        f.write("%d %s %d\n" % (generation, outcome, os.getpid()))
    os.replace(tmp, RESULT)


def holder():
    try:
        with open(LOCK) as f:
            return f.read().strip() or "unknown"
    except OSError:
        return "unknown"


def take(lock, how):
    """flock, saying after NOTICE seconds who holds the lock; a launcher gone ends the wait."""
    notice = time.monotonic() + NOTICE
    while True:
        try:
            fcntl.flock(lock, how | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        if notice and time.monotonic() >= notice:
            say("waiting for the build lock %s (pid %s holds it: another app.py building %s)" % (LOCK, holder(), BINARY))
            notice = 0
        check_launcher()
        time.sleep(0.1)


def prebuilt():
    for candidate in (BINARY, os.path.join(ROOT, NAME)):
        if executable(candidate):
            return candidate
    found = shutil.which(NAME)
    return os.path.abspath(found) if found else None


def unbuilt(why):
    """The binary as it is, when bin/ cannot be written: after a build in progress ends."""
    try:
        lock = open(LOCK)
    except OSError:
        lock = None
    if lock:
        with lock:
            take(lock, fcntl.LOCK_SH)
    found = prebuilt()
    if not found:
        fail("%s, so nothing can be built, and no gymkit binary is built (neither %s nor %s exists, and "
             "%s is not on PATH): build it (make build, or go build -o bin/gymkit ./cmd/gymkit) as a user who can write there, or set GYMKIT_BIN "
             "to a built binary" % (why, BINARY, os.path.join(ROOT, NAME), NAME))
    say("%s: running %s as it is, not brought up to date" % (why, found))
    return found


def run_go(go, tmp):
    """go build into tmp, in a process group of its own, killed whole if app.py is stopped."""
    # A stop is held back until the build's pid is known (go gets app.py's signal mask back).
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    proc = None
    try:
        proc = subprocess.Popen([go, "build", "-o", tmp, PACKAGE], cwd=ROOT, stdin=subprocess.DEVNULL,
                                start_new_session=True, preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, mask))
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        return proc.wait()
    except BaseException:
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def build(go):
    """BINARY, up to date: built here, or by a build recorded since this process started."""
    if os.path.isdir(BINARY):
        fail("%s is a directory: remove it (app.py builds the binary there)" % BINARY)
    if os.path.isdir(RESULT):
        fail("%s is a directory: remove it (app.py records its builds there)" % RESULT)
    try:
        os.makedirs(BIN_DIR, exist_ok=True)
        writable = os.access(BIN_DIR, os.W_OK | os.X_OK)
    except OSError:
        writable = False
    if not writable:
        return unbuilt("%s cannot be written by this user" % BIN_DIR)
    try:
        lock = open(LOCK, "a+")
    except OSError as e:
        return unbuilt("the build lock %s cannot be written (%s)" % (LOCK, e.strerror))
    with lock:
        take(lock, fcntl.LOCK_EX)  # waits while another process builds
        lock.truncate(0)
        lock.write(str(os.getpid()))
        lock.flush()
        generation, outcome = last_build()
        if generation > SEEN and outcome == "ok" and executable(BINARY):
            return BINARY
        if generation > SEEN and outcome == "failed":
            fail("go build of %s failed in another app.py started at the same time (its output is above): "
                 "fix the error, or set GYMKIT_BIN to a built binary" % BINARY)
        for stale in glob.glob(os.path.join(BIN_DIR, "." + NAME + ".*.tmp")):
            os.remove(stale)  # left by a build that was killed: only the lock's holder writes one
        tmp = os.path.join(BIN_DIR, ".%s.%d.tmp" % (NAME, os.getpid()))
        try:
            if executable(BINARY):
                # An up-to-date binary at the output path is left as it is by go build.
                shutil.copy2(BINARY, tmp)
            code = run_go(go, tmp)
            if code != 0 or not executable(tmp):
                record(generation + 1, "failed")
                fail("`go build -o %s %s` in %s failed (exit status %d): fix the error above, "
                     "or set GYMKIT_BIN to a built binary" % (BINARY, PACKAGE, ROOT, code))
            os.replace(tmp, BINARY)
            record(generation + 1, "ok")
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    return BINARY


def find_binary():
    env = os.environ.get("GYMKIT_BIN")
    if env:
        if not executable(env):
            fail("GYMKIT_BIN=%s is not an executable file" % env)
        return os.path.abspath(env)
    go = shutil.which("go")
    if go and os.path.isfile(os.path.join(ROOT, "go.mod")):
        return build(os.path.abspath(go))  # an empty PATH entry names the working directory
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
    # SIGTERM and SIGHUP stop a build, unless ignored (nohup): the binary inherits them as they were.
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    for sig, handler in handlers.items():
        if handler != signal.SIG_IGN:
            signal.signal(sig, stopped)
    try:
        check_launcher()
        binary = find_binary()
        check_launcher()
        for sig, handler in handlers.items():
            if handler is not None:
                signal.signal(sig, handler)
    except KeyboardInterrupt:
        sys.exit(130)  # Ctrl-C while building or waiting for a build: no traceback
    except Stopped as e:
        sys.exit(128 + e.args[0])
    except OSError as e:
        fail(str(e))
    os.execv(binary, [binary, "serve", "--nemo"] + sys.argv[1:])
