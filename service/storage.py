"""Files on disk for the router admin endpoints: staged uploads, atomic installs, safe unzip.

Nothing here knows about HTTP.  Uploads are streamed into a staging file inside
``<graphs_dir>/.incoming/`` (same file system as the graphs, so the final
rename is atomic), checked, then moved into place with :func:`replace_file`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING

from otpa.errors import OtpaError
from otpa.util.files import fsync_directory

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = [
    "MAX_ZIP_MEMBERS",
    "StagedUpload",
    "UnsafeArchiveError",
    "build_from_zip",
    "extract_flat_zip",
    "fsync_directory",
    "replace_file",
]

#: At most this many files in an uploaded GTFS/OSM zip.
MAX_ZIP_MEMBERS = 1000
_COPY_CHUNK = 1 << 20


class UnsafeArchiveError(ValueError, OtpaError):
    """An uploaded zip is unreadable, nested, too large, or names files unsafely."""


class StagedUpload:
    """A request body being streamed into a temporary file beside the graphs.

    Parameters
    ----------
    directory
        Where to create the file (``<graphs_dir>/.incoming``).
    prefix
        File name prefix (the target router id).
    suffix
        File name suffix (``".graph"`` or ``".zip"``).
    """

    def __init__(self, directory: Path, prefix: str, suffix: str) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=directory, prefix=f"{prefix}.", suffix=f"{suffix}.part")
        self.path = Path(name)
        self.size = 0
        self._file: IO[bytes] | None = os.fdopen(fd, "wb")

    def write(self, chunk: bytes) -> None:
        """Append a chunk of the body."""
        if self._file is not None:
            self._file.write(chunk)
            self.size += len(chunk)

    def finish(self) -> Path:
        """Flush the body to disk (fsync) and return the staged file's path."""
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
        return self.path

    def discard(self) -> None:
        """Close and delete the staged file, if it is still there."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self.path.unlink(missing_ok=True)


def replace_file(staged: Path, dest: Path) -> None:
    """Move a staged file to ``dest`` atomically, keeping ``dest.bak`` during the move.

    The staged file must already be on disk (:meth:`StagedUpload.finish` fsyncs it);
    after the rename the folder is fsynced too, so a crash (``kill -9``, power loss)
    leaves either the old file or the new one, never a mix.

    The previous file is hard-linked (or copied) to ``<dest>.bak`` first, as OTP
    1.x kept ``Graph.obj.bak`` while saving; the backup is removed once the
    atomic :func:`os.replace` has succeeded.  Processes that have the old file
    open or memory-mapped keep reading the old content.

    Parameters
    ----------
    staged
        The complete new file, on the same file system as ``dest``.
    dest
        The final path, e.g. ``<graphs_dir>/<id>/graph``.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    backup = dest.with_name(dest.name + ".bak")
    if dest.exists():
        backup.unlink(missing_ok=True)
        try:
            os.link(dest, backup)
        except OSError:
            shutil.copy2(dest, backup)
    try:
        os.replace(staged, dest)
        fsync_directory(dest.parent)  # the rename itself survives a crash
    finally:
        backup.unlink(missing_ok=True)



def _check_member_name(name: str) -> None:
    if not name or "/" in name or "\\" in name:
        msg = f"ZIP files containing directories are not supported (member {name!r})"
        raise UnsafeArchiveError(msg)
    if name in {".", ".."} or "\x00" in name or ":" in name:
        msg = f"unsafe file name in zip: {name!r}"
        raise UnsafeArchiveError(msg)


def _copy_limited(source: IO[bytes], target: IO[bytes], budget: int, name: str) -> int:
    written = 0
    while chunk := source.read(_COPY_CHUNK):
        written += len(chunk)
        if written > budget:
            msg = f"zip content exceeds the size limit while extracting {name!r}"
            raise UnsafeArchiveError(msg)
        target.write(chunk)
    return written


def extract_flat_zip(
    archive: Path, dest: Path, *, max_total_bytes: int, max_members: int = MAX_ZIP_MEMBERS
) -> list[Path]:
    """Extract a flat zip (files only, no folders) into ``dest``, safely.

    Refuses directories and any path separator in member names (so nothing can
    land outside ``dest``), duplicate names, more than ``max_members`` files, and
    more than ``max_total_bytes`` of content; sizes are counted while
    decompressing, not trusted from the archive's headers.

    Parameters
    ----------
    archive
        The uploaded zip file.
    dest
        An existing, empty directory.
    max_total_bytes
        Limit on the total uncompressed size.
    max_members
        Limit on the number of members.

    Returns
    -------
    list of Path
        The extracted files.

    Raises
    ------
    UnsafeArchiveError
        If the archive is unreadable or breaks one of the rules.
    """
    try:
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            if len(infos) > max_members:
                msg = f"zip has {len(infos)} members, more than the limit of {max_members}"
                raise UnsafeArchiveError(msg)
            names = [info.filename for info in infos]
            for name in names:
                _check_member_name(name)
            if len(set(names)) != len(names):
                msg = "zip has duplicate member names"
                raise UnsafeArchiveError(msg)
            budget, extracted = max_total_bytes, []
            for info in infos:
                target = dest / info.filename
                with zf.open(info) as source, target.open("xb") as out:
                    budget -= _copy_limited(source, out, budget, info.filename)
                extracted.append(target)
            return extracted
    except (zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, NotImplementedError) as exc:
        msg = f"Could not extract zip file: {exc}"
        raise UnsafeArchiveError(msg) from None


def build_from_zip(
    archive: Path,
    workdir: Path,
    builder: Callable[[Path], TransportNetwork],
    *,
    max_total_bytes: int,
) -> TransportNetwork:
    """Unzip a GTFS/OSM upload into a temporary folder under ``workdir`` and build a network.

    Parameters
    ----------
    archive
        The uploaded zip.
    workdir
        Where the temporary folder goes (removed afterwards).
    builder
        ``otpa.network.build_network`` or a stand-in: folder → network.
    max_total_bytes
        Limit on the uncompressed content.

    Returns
    -------
    TransportNetwork
    """
    workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=workdir, prefix="build.") as tmp:
        extract_flat_zip(archive, Path(tmp), max_total_bytes=max_total_bytes)
        return builder(Path(tmp))


def remove_quietly(path: Path) -> None:
    """Delete a file, ignoring errors (cleanup paths)."""
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)
