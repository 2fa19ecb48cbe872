"""A safe, versioned, memory-mappable container for saved graphs.

A saved graph is one file: an uncompressed (``ZIP_STORED``) zip archive whose
first member is ``manifest.json``.  The other members are

* ``arrays/<name>.npy``: numpy arrays in the ``.npy`` format, never of object
  dtype, read back zero-copy from a memory map;
* ``json/<name>.json``: small JSON documents (string tables, metadata).

The manifest records the container format and version, every member's size and
SHA-256, and free-form metadata.  Reading checks the format name, refuses
future versions, checks every member is present with the recorded size, and
(by default) verifies the checksums.  Nothing is ever unpickled: ``.npy``
headers are parsed with :func:`numpy.lib.format.read_array_header_1_0`
(a literal parser) and object dtypes are refused.

Using zip as the envelope keeps the file inspectable with standard tools
(``unzip -l graph``) while the ``STORED`` method keeps members contiguous, so
arrays can be mapped straight from disk.
"""

from __future__ import annotations

import hashlib
import io
import json
import mmap
import os
import struct
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from otpa.errors import GraphFormatError
from otpa.types import PathLike

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "Container", "read_container", "write_container"]

FORMAT_NAME = "otpa-graph"
#: Bumped whenever the layout of members changes incompatibly.
FORMAT_VERSION = 1

_MANIFEST = "manifest.json"
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # zip local file header (30 bytes)
_LOCAL_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True)
class Container:
    """The decoded content of a saved graph file.

    Attributes
    ----------
    path
        The file read.
    manifest
        The parsed manifest (format, version, members, metadata).
    arrays
        Arrays by name, read-only views into the memory-mapped file.
    documents
        JSON documents by name.
    """

    path: Path
    manifest: dict[str, Any]
    arrays: dict[str, npt.NDArray[Any]]
    documents: dict[str, Any]

    @property
    def meta(self) -> dict[str, Any]:
        """The free-form metadata stored in the manifest."""
        meta: dict[str, Any] = self.manifest.get("meta", {})
        return meta


def _npy_bytes(array: npt.NDArray[Any]) -> bytes:
    if array.dtype.hasobject:
        msg = f"refusing to save an object array (dtype {array.dtype})"
        raise TypeError(msg)
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def write_container(
    path: PathLike,
    *,
    arrays: Mapping[str, npt.NDArray[Any]],
    documents: Mapping[str, Any],
    meta: Mapping[str, Any],
) -> Path:
    """Write a saved-graph container atomically (temporary file, then rename).

    Parameters
    ----------
    path
        Destination file.
    arrays
        Arrays to store (no object dtypes).
    documents
        JSON-serialisable documents to store.
    meta
        JSON-serialisable metadata stored in the manifest.

    Returns
    -------
    pathlib.Path
        The path written.
    """
    dest = Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    payloads: dict[str, bytes] = {}
    for name, array in arrays.items():
        payloads[f"arrays/{name}.npy"] = _npy_bytes(np.asarray(array))
    for name, doc in documents.items():
        payloads[f"json/{name}.json"] = json.dumps(doc, separators=(",", ":")).encode()
    members = {
        name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        for name, data in payloads.items()
    }
    manifest = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "members": members,
        "meta": dict(meta),
    }
    fd, tmp_name = tempfile.mkstemp(prefix=".graph-", dir=dest.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp_name, "w", compression=zipfile.ZIP_STORED) as zf:
            zf.writestr(_zipinfo(_MANIFEST), json.dumps(manifest, indent=1).encode())
            for name, data in payloads.items():
                zf.writestr(_zipinfo(name), data)
        os.replace(tmp_name, dest)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return dest


def _zipinfo(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    return info


def _fail(path: Path, why: str) -> GraphFormatError:
    return GraphFormatError(f"{path} is not a usable otpa graph: {why}")


def _read_manifest(path: Path, zf: zipfile.ZipFile) -> dict[str, Any]:
    try:
        raw = zf.read(_MANIFEST)
    except KeyError:
        raise _fail(path, "it has no manifest.json") from None
    try:
        manifest = json.loads(raw)
    except ValueError as exc:
        raise _fail(path, f"its manifest is not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise _fail(path, f"its manifest does not declare format {FORMAT_NAME!r}")
    version = manifest.get("format_version")
    if not isinstance(version, int):
        raise _fail(path, "its manifest has no integer format_version")
    if version > FORMAT_VERSION:
        raise _fail(
            path,
            f"it was written in format version {version}, newer than this otpa "
            f"supports ({FORMAT_VERSION}); upgrade otpa or rebuild the graph",
        )
    if version < FORMAT_VERSION:
        raise _fail(
            path, f"it uses old format version {version} (current {FORMAT_VERSION}); rebuild it"
        )
    if not isinstance(manifest.get("members"), dict):
        raise _fail(path, "its manifest lists no members")
    return manifest


def _member_span(path: Path, mm: mmap.mmap, info: zipfile.ZipInfo) -> tuple[int, int]:
    """Byte range of a stored member's data inside the file."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise _fail(path, f"member {info.filename} is compressed")
    start = info.header_offset
    header = mm[start : start + _LOCAL_HEADER.size]
    if len(header) < _LOCAL_HEADER.size:
        raise _fail(path, "the file is truncated")
    fields = _LOCAL_HEADER.unpack(header)
    if fields[0] != _LOCAL_MAGIC:
        raise _fail(path, f"bad local header for {info.filename}")
    name_len, extra_len = fields[9], fields[10]
    data_start = start + _LOCAL_HEADER.size + name_len + extra_len
    data_end = data_start + info.file_size
    if data_end > len(mm):
        raise _fail(path, "the file is truncated")
    return data_start, data_end


def _load_npy(path: Path, name: str, mm: mmap.mmap, start: int, end: int) -> npt.NDArray[Any]:
    head = io.BytesIO(mm[start : min(end, start + 65536)])
    try:
        major, _minor = np.lib.format.read_magic(head)
        if major == 1:
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(head)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(head)
    except ValueError as exc:
        raise _fail(path, f"array {name} has a bad header ({exc})") from None
    if dtype.hasobject:
        raise _fail(path, f"array {name} has an object dtype, which is never loaded")
    count = int(np.prod(shape, dtype=np.int64))
    offset = start + head.tell()
    if offset + count * dtype.itemsize != end:
        raise _fail(path, f"array {name} has the wrong size for its header")
    array = np.frombuffer(mm, dtype=dtype, count=count, offset=offset)
    return array.reshape(shape, order="F" if fortran else "C")


def read_container(path: PathLike, *, verify: bool = True) -> Container:
    """Open a saved graph file, memory-mapping its arrays.

    Parameters
    ----------
    path
        The graph file.
    verify
        Check every member's SHA-256 against the manifest (reads the whole
        file once).  Always check untrusted files, e.g. uploads.

    Returns
    -------
    Container
        Manifest, memory-mapped arrays and JSON documents.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    otpa.errors.GraphFormatError
        If the file is not a graph, is truncated or corrupt, or has an
        incompatible format version.
    """
    p = Path(path)
    with p.open("rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            raise _fail(p, "the file is empty")
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        zf = zipfile.ZipFile(p)  # reads the central directory only
    except (zipfile.BadZipFile, OSError) as exc:
        raise _fail(p, f"it is not a graph archive or it is truncated ({exc})") from None
    with zf:
        manifest = _read_manifest(p, zf)
        infos = {info.filename: info for info in zf.infolist()}
    arrays: dict[str, npt.NDArray[Any]] = {}
    documents: dict[str, Any] = {}
    for name, entry in manifest["members"].items():
        info = infos.get(name)
        if info is None:
            raise _fail(p, f"member {name} listed in the manifest is missing")
        start, end = _member_span(p, mm, info)
        if end - start != entry.get("size"):
            raise _fail(p, f"member {name} has the wrong size")
        if verify and hashlib.sha256(memoryview(mm)[start:end]).hexdigest() != entry.get("sha256"):
            raise _fail(p, f"member {name} fails its checksum (corrupt file)")
        if name.startswith("arrays/") and name.endswith(".npy"):
            arrays[name[len("arrays/") : -len(".npy")]] = _load_npy(p, name, mm, start, end)
        elif name.startswith("json/") and name.endswith(".json"):
            try:
                documents[name[len("json/") : -len(".json")]] = json.loads(mm[start:end])
            except ValueError as exc:
                raise _fail(p, f"document {name} is not valid JSON ({exc})") from None
        else:
            raise _fail(p, f"unexpected member {name}")
    return Container(path=p, manifest=manifest, arrays=arrays, documents=documents)
