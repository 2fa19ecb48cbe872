"""Run an uploaded Python script in a sandboxed child process.

The child (``python -m service.scripting.entry``) runs

* in its own **network namespace** (``unshare -n``): only a downed loopback
  interface exists, so no socket can reach anything, whatever the script does
  (``socket``, ``_socket``, ``ctypes`` calls into libc: the kernel refuses);
* under resource limits set before ``exec``: address space (``RLIMIT_AS``),
  CPU seconds (``RLIMIT_CPU``), file size (``RLIMIT_FSIZE``), no core dumps;
  the child itself starts the script's clock (CPU limit lowered for good, an
  alarm) once Python runs and the graphs are loaded; the parent's limits add
  :data:`STARTUP_ALLOWANCE_S` for that start-up and kill the process group at
  the wall-clock deadline whatever the script does with signals;
* in a fresh scratch directory (its working directory, deleted afterwards),
  as its own process group in its own PID namespace, killed as a whole at the
  wall-clock limit (processes it forks die with it);
* in its own mount namespace where every mount is read-only except the
  scratch directory, and without any capability (``setpriv``): it can read
  what the server can read (the graphs, the Python installation) but write
  only its scratch directory, and cannot remount, open raw sockets or signal
  processes outside its namespace.

Nothing runs when the namespace cannot be created: the runner refuses rather
than run a script with network access.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = [
    "STARTUP_ALLOWANCE_S",
    "ScriptResult",
    "network_isolation_available",
    "run_script",
]

_MAX_FILE_BYTES = 256 * 1024**2
_NO_SANDBOX = (
    "Scripting needs a sandbox (unshare network/PID/mount namespaces and setpriv, as root), "
    "unavailable here."
)
#: Seconds added to the script's time limit for starting Python and loading the graphs.
STARTUP_ALLOWANCE_S = 30.0
_REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ScriptResult:
    """What the endpoint answers: HTTP status, content type and body."""

    status: int
    content_type: str
    body: str


@cache
def network_isolation_available() -> bool:
    """Whether the sandbox can be set up here (``unshare`` and ``setpriv``, run as root)."""
    exe = shutil.which("unshare")
    if exe is None or shutil.which("setpriv") is None:
        return False
    probe = Path(tempfile.mkdtemp(prefix="otpa-sandbox-probe-"))
    try:
        done = subprocess.run(
            [*_sandbox_prefix(probe), "true"], capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    return done.returncode == 0


#: Run inside the new namespaces as process 1 (the kernel shields process 1 from signals it
#: does not handle, such as the script's SIGXCPU and SIGALRM, so Python must be its child):
#: keep the scratch directory writable, make every other mount read-only, check, then run
#: the command as root without any capability (no remounting, no raw sockets...).
_SANDBOX_SH = r"""
S="$1"; shift
mount --make-rprivate / && mount --bind "$S" "$S" || exit 90
for m in $(awk '{print $2}' /proc/self/mounts); do
  [ "$m" = "$S" ] || mount -o remount,bind,ro "$m" 2>/dev/null
done
touch /.otpa-sandbox-check 2>/dev/null && exit 91
setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- "$@"
exit $?
"""
#: Exit statuses of :data:`_SANDBOX_SH` when it cannot set the sandbox up.
_SANDBOX_FAILED = (90, 91)


def _sandbox_prefix(scratch: Path) -> list[str]:
    """New network, PID and mount namespaces (``unshare``) around :data:`_SANDBOX_SH`."""
    namespaces = ["unshare", "-n", "-p", "-f", "--mount-proc", "--kill-child", "--"]
    return [*namespaces, "sh", "-c", _SANDBOX_SH, "sh", str(scratch)]


def _limits(memory_bytes: int, cpu_s: int) -> None:  # runs in the child, before exec
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (_MAX_FILE_BYTES, _MAX_FILE_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _text(status: int, message: str) -> ScriptResult:
    return ScriptResult(status, "text/plain; charset=UTF-8", message)


async def run_script(
    source: bytes,
    *,
    filename: str,
    graphs: dict[str, str],
    pointsets_dir: str | None,
    time_limit_s: float,
    memory_limit_bytes: int,
) -> ScriptResult:
    """Run one script (see the module docstring) and say what to answer.

    Returns 200 with the script's answer (``text/csv``, ``application/json`` or
    text), 400 with the error when the script fails or breaks a limit, 503 when
    the sandbox cannot be set up.
    """
    if not network_isolation_available():
        return _text(503, _NO_SANDBOX)
    scratch = Path(tempfile.mkdtemp(prefix="otpa-script-"))
    try:
        (scratch / "script.py").write_bytes(source)
        job = {
            "graphs": graphs,
            "pointsets_dir": pointsets_dir,
            "filename": filename,
            "time_limit_s": time_limit_s,
        }
        (scratch / "job.json").write_text(json.dumps(job), encoding="utf-8")
        return await _run(scratch, time_limit_s, memory_limit_bytes)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


async def _run(scratch: Path, time_limit_s: float, memory_limit_bytes: int) -> ScriptResult:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(_REPO_ROOT),
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
        "OMP_NUM_THREADS": "1",
        "NUMBA_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    cpu_s = max(1, int(time_limit_s + STARTUP_ALLOWANCE_S + 0.999))
    cmd = [*_sandbox_prefix(scratch), sys.executable, "-m", "service.scripting.entry", str(scratch)]
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        cwd=scratch,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=lambda: _limits(memory_limit_bytes, cpu_s),
    )
    try:
        _, stderr = await asyncio.wait_for(
            proc.communicate(), timeout=time_limit_s + STARTUP_ALLOWANCE_S + 1.0
        )
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        return _text(400, f"Script stopped: time limit of {time_limit_s:g} s exceeded.")
    result_file = scratch / "result.json"
    if result_file.is_file():
        result = json.loads(result_file.read_text(encoding="utf-8"))
        if result.get("ok"):
            return ScriptResult(200, result["content_type"], result["body"])
        if result.get("limit") == "memory":
            mib = memory_limit_bytes // 1024**2
            return _text(400, f"Script stopped: memory limit of {mib} MiB exceeded (MemoryError).")
        return _text(400, f"Script failed: {result.get('error', 'unknown error')}")
    code = proc.returncode or 0
    if code in _SANDBOX_FAILED:
        return _text(503, _NO_SANDBOX)
    time_signals = (signal.SIGXCPU, signal.SIGKILL, signal.SIGALRM)
    if code in {-s for s in time_signals} | {128 + s for s in time_signals}:
        return _text(400, f"Script stopped: time limit of {time_limit_s:g} s exceeded.")
    tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] if stderr else []
    if tail and "MemoryError" in tail[0]:
        mib = memory_limit_bytes // 1024**2
        return _text(400, f"Script stopped: memory limit of {mib} MiB exceeded (MemoryError).")
    why = f"signal {-code}" if code < 0 else f"exit status {code}"
    return _text(400, f"Script process ended without an answer ({why}).")
