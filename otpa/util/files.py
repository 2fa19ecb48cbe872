"""Crash-safe file writes: a whole new file or the old one, never half of either.

A file is written to a temporary file in the same folder, flushed to disk
(``fsync``), then renamed over the old one (:func:`os.replace` is atomic), and the
folder itself is flushed so that the rename survives a crash too.  A process killed
at any moment (``kill -9``, power loss) leaves the previous file or the new one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["fsync_directory", "write_text_atomic"]


def fsync_directory(directory: Path) -> None:
    """Flush a folder's entries (a rename into it) to disk, where the OS allows it."""
    with contextlib.suppress(OSError):  # not every platform opens directories
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_text_atomic(path: Path, text: str, *, prefix: str = ".tmp-") -> None:
    """Replace ``path`` by a file holding ``text`` (UTF-8), crash-safely.

    Parameters
    ----------
    path
        The file to write; its folder is created if missing.
    text
        The new content.
    prefix
        Name prefix of the temporary file (removed on any failure).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_text_atomic(folder / "a.json", "{}")
    >>> (folder / "a.json").read_text(), sorted(p.name for p in folder.iterdir())
    ('{}', ['a.json'])
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        fsync_directory(path.parent)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
