"""ServerInfo (``GET /otp``) as OTP 1.x served it, filled with otpa's own version."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

__all__ = ["UNKNOWN", "maven_version", "read_cpu_info", "server_info"]

UNKNOWN = "UNKNOWN"
_VERSION_RE = re.compile(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-.+]?(.*))?")


def maven_version(
    version: str,
    *,
    commit: str = UNKNOWN,
    describe: str = UNKNOWN,
    commit_time: str = UNKNOWN,
    build_time: str = UNKNOWN,
) -> dict[str, Any]:
    """Return OTP's MavenVersion object for a version string.

    ``major.minor.incremental`` come from the leading numbers, ``qualifier`` from
    what follows (OTP: the text after the first ``-``; PEP 440 suffixes such as
    ``.dev3`` or ``rc1`` are accepted too).  ``uid`` is
    ``±(1e6·major + 1e3·minor + incremental)``, negative for a ``SNAPSHOT`` or
    ``dev`` qualifier.  An unparsable version gives OTP's ``0.0.0-ParseFailure``.

    Parameters
    ----------
    version
        e.g. ``"0.1.0"``.
    commit, describe, commit_time, build_time
        Build metadata (``"UNKNOWN"`` when not known).

    Returns
    -------
    dict
        The MavenVersion JSON object, fields and getters as OTP wrote them.

    Examples
    --------
    >>> v = maven_version("1.5.0-SNAPSHOT")
    >>> v["major"], v["minor"], v["incremental"], v["qualifier"], v["uid"]
    (1, 5, 0, 'SNAPSHOT', -1005000)
    """
    match = _VERSION_RE.fullmatch(version.strip())
    if match is None:
        return maven_version("0.0.0-ParseFailure")
    major, minor, incremental = (int(g) if g else 0 for g in match.groups()[:3])
    qualifier = match.group(4) or ""
    sign = -1 if qualifier == "SNAPSHOT" or qualifier.startswith("dev") else 1
    long_version = (
        f"version: {version}\nmajor: {major}\nminor: {minor}\npatch: {incremental}\n"
        f"qualifier: {qualifier}\ncommit: {commit}\n"
    )
    return {
        "version": version,
        "major": major,
        "minor": minor,
        "incremental": incremental,
        "qualifier": qualifier,
        "commit": commit,
        "describe": describe,
        "commit_time": commit_time,
        "build_time": build_time,
        "uid": sign * (1_000_000 * major + 1_000 * minor + incremental),
        "shortVersionString": f"otpa {version} {commit}",
        "longVersionString": long_version,
    }


def read_cpu_info(path: Path = Path("/proc/cpuinfo")) -> tuple[str, int]:
    """Return ``(cpu_name, n_cores)`` the way OTP read them from ``/proc/cpuinfo``.

    The name is the first ``model name`` value and the core count the number of
    ``model name`` lines.  When the file is unreadable the name is ``"unknown"``;
    when it lists no ``model name`` (some ARM kernels) the count falls back to
    :func:`os.cpu_count`.

    Parameters
    ----------
    path
        The cpuinfo file.

    Returns
    -------
    tuple of (str, int)
    """
    name, cores = "unknown", 0
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        if line.startswith("model name"):
            if cores == 0:
                name = line.partition(":")[2].strip() or "unknown"
            cores += 1
    if cores == 0:
        cores = os.cpu_count() or 0
    return name, cores


def server_info(version: str, cpu_name: str, n_cores: int, **build: str) -> dict[str, Any]:
    """Return the ServerInfo object: ``{serverVersion, cpuName, nCores}``.

    Parameters
    ----------
    version
        otpa's version string.
    cpu_name, n_cores
        From :func:`read_cpu_info`.
    **build
        ``commit``, ``describe``, ``commit_time``, ``build_time`` for :func:`maven_version`.

    Returns
    -------
    dict
    """
    return {
        "serverVersion": maven_version(version, **build),
        "cpuName": cpu_name,
        "nCores": int(n_cores),
    }
