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


def _death(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "?"
        return f"the backend crashed: killed by signal {sig} ({name}: {signal.strsignal(sig)})"
    return f"the backend ended the process (exit status {os.WEXITSTATUS(status)}) before the case ended"


def run_forked(run_case, timeout=None):
    """run_case() (which returns a JSON-able object) in a forked child: (its result, None), or
    (None, why the child gave none)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        try:
            os.close(r)
            try:
                payload = json.dumps(run_case())
            except BaseException as e:  # the parent raises it again (a Ctrl-C as a KeyboardInterrupt)
                payload = json.dumps({"error": f"{type(e).__name__}: {e}",
                                      "interrupted": isinstance(e, KeyboardInterrupt)})
            data = payload.encode()
            while data:
                data = data[os.write(w, data):]
        finally:
            os._exit(0)
    os.close(w)
    chunks, timed_out, reaped = [], False, False
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([r], [], [], wait)
            if not ready:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
        reaped = True
    finally:
        os.close(r)
        if not reaped:  # interrupted (Ctrl-C): the child goes with the run
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    if timed_out:
        return None, f"the backend hung: no result within {timeout:g} s (case_timeout), killed"
    if status != 0 or not chunks:
        return None, _death(status)
    return json.loads(b"".join(chunks)), None
