"""check(isolate=True): each case in a forked child process, so that a kernel that crashes,
aborts or hangs costs its case, not the test session. The child runs the case and sends its
JSON report through a pipe; a child that dies, or runs past the timeout (then killed), gives
the reason instead. fork() copies the parent: a CUDA context the parent already created cannot
be used in the child, so a CUDA kernel is best judged this way from a process that has not
touched the GPU yet."""
import json
import os
import select
import signal
import time

_END = b"\n"  # ends the child's report (one line of JSON)


def _death(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "?"
        return f"the backend crashed: killed by signal {sig} ({name}: {signal.strsignal(sig)})"
    return f"the backend ended the process (exit status {os.WEXITSTATUS(status)}) before the case ended"


def _ended(pid):
    """Whether the child has ended, leaving it unreaped (its process group id stays its own)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _drain(fd, chunks):
    """Appends what the pipe holds now (it is non-blocking)."""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            return
        chunks.append(chunk)


def _kill_group(pid):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass


def run_forked(run_case, timeout=None, interrupted=lambda: False):
    """run_case() (which returns a JSON-able object) in a forked child: (its result, None), or
    (None, why the child gave none). The child runs in a process group of its own, killed
    whole when the case ends: a helper process the case started (which holds the result pipe)
    neither keeps the case from ending nor outlives it. The child is judged by its exit status
    and its report up to the end marker, not by end of file on the pipe. Being outside the
    caller's process group, the child does not get a terminal's Ctrl-C: once interrupted()
    says one came, it is sent to the child."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        try:
            os.setpgid(0, 0)
            os.close(r)
            try:
                payload = json.dumps(run_case())
            except BaseException as e:  # the parent raises it again (a Ctrl-C as a KeyboardInterrupt)
                payload = json.dumps({"error": f"{type(e).__name__}: {e}",
                                      "interrupted": isinstance(e, KeyboardInterrupt)})
            data = payload.encode() + _END
            while data:
                data = data[os.write(w, data):]
        finally:
            os._exit(0)
    try:
        os.setpgid(pid, pid)  # either side may set it first
    except OSError:
        pass
    os.close(w)
    os.set_blocking(r, False)
    chunks, timed_out, forwarded, status = [], False, False, None
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while not _ended(pid):
            select.select([r], [], [], 0.05)
            _drain(r, chunks)
            if not forwarded and interrupted():
                forwarded = True
                try:
                    os.killpg(pid, signal.SIGINT)
                except OSError:
                    pass
            if not timed_out and deadline is not None and time.monotonic() > deadline:
                timed_out = True
                _kill_group(pid)
    finally:
        # The group goes while the unreaped child still holds its id; what it wrote stays in the pipe.
        _kill_group(pid)
        _drain(r, chunks)
        _, status = os.waitpid(pid, 0)
        os.close(r)
    if timed_out:
        return None, f"the backend hung: no result within {timeout:g} s (case_timeout), killed"
    data = b"".join(chunks)
    if status != 0 or not data.endswith(_END):
        return None, _death(status)
    return json.loads(data[:-len(_END)]), None
