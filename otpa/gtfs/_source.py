"""Access to the files of a feed, whether a zip archive or a folder."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from types import TracebackType
from typing import IO

import pyarrow as pa

from otpa.errors import GtfsError
from otpa.types import PathLike

__all__ = ["FeedSource"]

# Files whose presence marks the folder (inside a zip or on disk) that holds the feed.
_MARKERS = ("stops.txt", "trips.txt", "agency.txt", "routes.txt", "stop_times.txt")
# a gzip member header (deflate, no name, no mtime): wraps a zip entry's raw deflate data so
# that Arrow decompresses it in C++ (no GIL, overlapping the CSV parsing) and checks its CRC
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_LOCAL_HEADER = struct.Struct("<4s22xHH")


def _corrupt(path: Path, exc: BaseException) -> GtfsError:
    msg = f"{path}: the zip archive is corrupt or truncated ({exc})"
    return GtfsError(msg)


class FeedSource:
    """The files of one feed, by lower-case base name (``"stops.txt"``).

    A zip whose files all sit in one subfolder, or a folder holding a single subfolder with
    the feed, is handled.  Use as a context manager (closes the archive).
    """

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)
        self._zip: zipfile.ZipFile | None = None
        self._members: dict[str, str] = {}
        if not self.path.exists():
            msg = f"GTFS feed not found: {self.path}"
            raise FileNotFoundError(msg)
        if self.path.is_dir():
            self._members = self._scan_folder(self.path)
        else:
            self._members = self._open_zip()

    # -- discovery ---------------------------------------------------------------------------

    @staticmethod
    def _pick(names: dict[str, list[str]]) -> dict[str, str]:
        """Choose the folder (``""`` = top level) holding the feed; map base name -> member."""
        if not names:
            return {}
        best = max(names, key=lambda d: (sum(m in _MARKERS for m in names[d]), d == ""))
        prefix = best
        return {base: prefix + base for base in names[best]}

    @staticmethod
    def _scan_folder(root: Path) -> dict[str, str]:
        names: dict[str, list[str]] = {}
        for p in root.iterdir():
            if p.is_file():
                names.setdefault("", []).append(p.name)
        if not any(m in names.get("", []) for m in _MARKERS):
            subdirs = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]
            for sub in subdirs:
                found = [p.name for p in sub.iterdir() if p.is_file()]
                if any(m in found for m in _MARKERS):
                    names[sub.name + "/"] = found
        picked = FeedSource._pick(names)
        return {k.lower(): v for k, v in picked.items()}

    def _open_zip(self) -> dict[str, str]:
        try:
            zf = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise _corrupt(self.path, exc) from exc
        self._zip = zf
        names: dict[str, list[str]] = {}
        for info in zf.infolist():
            if info.is_dir() or info.filename.startswith("__MACOSX/"):
                continue
            folder, _, base = info.filename.rpartition("/")
            if base.startswith("._"):
                continue
            names.setdefault(folder + "/" if folder else "", []).append(base)
        picked = self._pick(names)
        return {k.lower(): v for k, v in picked.items()}

    # -- access ------------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """Lower-case base names of the files in the feed folder."""
        return sorted(self._members)

    def __contains__(self, name: str) -> bool:
        return name in self._members

    def read_bytes(self, name: str) -> bytes:
        """Return the raw content of file ``name`` (a base name such as ``"stops.txt"``)."""
        member = self._members[name]
        if self._zip is None:
            return (self.path / member).read_bytes()
        try:
            return self._zip.read(member)
        except (zipfile.BadZipFile, EOFError, zlib.error, OSError) as exc:
            raise _corrupt(self.path, exc) from exc

    def size(self, name: str) -> int:
        """Uncompressed size of file ``name`` in bytes."""
        member = self._members[name]
        if self._zip is None:
            return (self.path / member).stat().st_size
        return self._zip.getinfo(member).file_size

    def header_line(self, name: str) -> bytes:
        """The first line of file ``name`` (with its end of line)."""
        try:
            with self.open(name) as stream:
                return stream.readline()
        except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
            raise _corrupt(self.path, exc) from exc

    def arrow_stream(self, name: str) -> pa.NativeFile:
        """An Arrow input stream of file ``name``, decompressed on the fly in C++."""
        member = self._members[name]
        if self._zip is None:
            return pa.memory_map(str(self.path / member))
        info = self._zip.getinfo(member)
        if info.compress_type != zipfile.ZIP_DEFLATED or info.flag_bits & 1:
            return pa.BufferReader(self.read_bytes(name))
        try:
            with self.path.open("rb") as f:
                f.seek(info.header_offset)
                signature, name_len, extra_len = _LOCAL_HEADER.unpack(f.read(30))
                if signature != b"PK\x03\x04":
                    msg = f"bad local header of {member}"
                    raise zipfile.BadZipFile(msg)
                f.seek(info.header_offset + 30 + name_len + extra_len)
                data = f.read(info.compress_size)
        except (zipfile.BadZipFile, struct.error, OSError) as exc:
            raise _corrupt(self.path, exc) from exc
        if len(data) != info.compress_size:
            raise _corrupt(self.path, EOFError(f"{member} is cut short"))
        trailer = struct.pack("<II", info.CRC, info.file_size & 0xFFFFFFFF)
        return pa.CompressedInputStream(pa.BufferReader(_GZIP_HEADER + data + trailer), "gzip")

    def corrupt(self, exc: BaseException) -> GtfsError:
        """The error to raise when reading this feed's archive failed with ``exc``."""
        return _corrupt(self.path, exc)

    def open(self, name: str) -> IO[bytes]:
        """Open file ``name`` for streaming binary reading (decompressed on the fly)."""
        member = self._members[name]
        if self._zip is None:
            return (self.path / member).open("rb")
        try:
            return self._zip.open(member)
        except (zipfile.BadZipFile, EOFError, zlib.error, OSError) as exc:
            raise _corrupt(self.path, exc) from exc

    def close(self) -> None:
        """Close the underlying archive, if any."""
        if self._zip is not None:
            self._zip.close()
            self._zip = None

    def __enter__(self) -> FeedSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
