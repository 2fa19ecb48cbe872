"""Run an uploaded Python script in a sandboxed child process.

The child (``python -m service.scripting.entry``) runs

* in its own **network namespace** (``unshare -n``): only a downed loopback
  interface exists, so no socket can reach anything, whatever the script does
  (``socket``, ``_socket``, ``ctypes`` calls into libc: the kernel refuses);
* under resource limits set before ``exec``: address space (``RLIMIT_AS``),
  CPU seconds (``RLIMIT_CPU``), file size (``RLIMIT_FSIZE``), no core dumps;
* in a fresh scratch directory (its working directory, deleted afterwards),
  as its own process group, killed as a whole at the wall-clock limit.

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

__all__ = ["ScriptResult", "network_isolation_available", "run_script"]

_MAX_FILE_BYTES = 256 * 1024**2
_REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ScriptResult:
    """What the endpoint answers: HTTP status, content type and body."""

    status: int
    content_type: str
    body: str


@cache
def network_isolation_available() -> bool:
    """Whether ``unshare -n`` works here (root or user namespaces allowed)."""
    exe = shutil.which("unshare")
    if exe is None:
        return False
    try:
        done = subprocess.run(
            [exe, "-n", "--", "true"], capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


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
        return _text(503, "Scripting needs network isolation (unshare -n), unavailable here.")
    scratch = Path(tempfile.mkdtemp(prefix="otpa-script-"))
    try:
        (scratch / "script.py").write_bytes(source)
        job = {"graphs": graphs, "pointsets_dir": pointsets_dir, "filename": filename}
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
    cpu_s = max(1, int(time_limit_s + 0.999))
    cmd = ["unshare", "-n", "--", sys.executable, "-m", "service.scripting.entry", str(scratch)]
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
        _, stderr = await asyncio.wait_for(proc.communicate(), timeout=time_limit_s + 1.0)
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
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        return _text(400, f"Script stopped: time limit of {time_limit_s:g} s exceeded.")
    tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] if stderr else []
    if tail and "MemoryError" in tail[0]:
        mib = memory_limit_bytes // 1024**2
        return _text(400, f"Script stopped: memory limit of {mib} MiB exceeded (MemoryError).")
    why = f"signal {-code}" if code < 0 else f"exit status {code}"
    return _text(400, f"Script process ended without an answer ({why}).")
