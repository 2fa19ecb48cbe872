"""A safe, versioned, compact container for saved graphs.

A saved graph is one file: a zip archive whose first member is an uncompressed
``manifest.json``.  The other members are

* ``arrays/<name>.npy``: numpy arrays in the ``.npy`` format, never of object
  dtype, usually *encoded* (see :mod:`otpa.network._codecs`: integers on a
  grid, deltas, narrow dtypes, byte planes) and DEFLATE-compressed;
* ``json/<name>.json``: JSON documents (string tables, metadata), compressed.

The manifest records the container format and version, every member's
uncompressed size and SHA-256, the encoding steps of encoded arrays, and
free-form metadata.  Reading checks the format name, refuses future versions,
checks every member is present with the recorded size, and (by default)
verifies the checksums.  Nothing is ever unpickled: ``.npy`` headers are
parsed with :func:`numpy.lib.format.read_array_header_1_0` (a literal parser),
object dtypes are refused, and encoding steps are validated while decoding.

Members that do not compress are kept ``ZIP_STORED`` and mapped straight from
disk; the others are inflated (with their size bounded by the manifest) and
decoded into new read-only arrays.  Using zip as the envelope keeps the file
inspectable with standard tools (``unzip -l graph``).

Format versions: 1 had only stored, unencoded members; 2 (current) adds
DEFLATE, array encodings and patch members.  Both are read.
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
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from otpa.errors import ArgumentTypeError, GraphFormatError, InvalidArgumentError
from otpa.network._codecs import PATCH_DTYPE, decode_array, encode_array
from otpa.types import PathLike
from otpa.util.files import fsync_directory

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MIN_FORMAT_VERSION",
    "Container",
    "read_container",
    "write_container",
]

FORMAT_NAME = "otpa-graph"
#: Bumped whenever the layout of members changes incompatibly.
FORMAT_VERSION = 2
#: The oldest version still read.
MIN_FORMAT_VERSION = 1

_MANIFEST = "manifest.json"
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # zip local file header (30 bytes)
_LOCAL_MAGIC = b"PK\x03\x04"
#: Suffix of the member holding a ``grid`` step's exact values.
_PATCH_SUFFIX = ".__patch__"
#: DEFLATE level of compressed members.
_DEFLATE_LEVEL = 6
#: A member is compressed only when that saves at least this share of its size.
_MIN_SAVING = 0.1
#: DEFLATE cannot expand data more than ~1032 times; larger claims are corrupt.
_MAX_INFLATE_RATIO = 1100


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
        Arrays by name, read-only: views into the memory-mapped file for
        members stored as they are, decoded copies for the others.
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
        raise ArgumentTypeError(msg)
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


@dataclass(frozen=True)
class _Payload:
    data: bytes
    encoding: list[dict[str, Any]] | None = None


def _array_payloads(
    name: str, array: npt.NDArray[Any], *, compress: bool, quantize: int | None
) -> dict[str, _Payload]:
    if array.dtype.hasobject:
        msg = f"refusing to save an object array (dtype {array.dtype})"
        raise ArgumentTypeError(msg)
    if not compress:
        return {f"arrays/{name}.npy": _Payload(_npy_bytes(array))}
    encoded = encode_array(array, quantize=quantize)
    out = {f"arrays/{name}.npy": _Payload(_npy_bytes(encoded.stored), encoded.steps or None)}
    if encoded.patch is not None:
        out[f"arrays/{name}{_PATCH_SUFFIX}.npy"] = _Payload(_npy_bytes(encoded.patch))
    return out


def write_container(
    path: PathLike,
    *,
    arrays: Mapping[str, npt.NDArray[Any]],
    documents: Mapping[str, Any],
    meta: Mapping[str, Any],
    compress: bool = True,
    quantize: Mapping[str, int] | None = None,
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
    compress
        Encode arrays and DEFLATE members that shrink (the default).  False
        stores every member as it is: a larger file whose arrays are all
        memory-mapped on load.
    quantize
        Float arrays to round, by name, to a number of steps per unit (``1000``
        keeps metres to the millimetre).  Ignored when ``compress`` is False;
        arrays not named here are stored exactly.

    Returns
    -------
    pathlib.Path
        The path written.
    """
    dest = Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    steps_per_unit = dict(quantize or {})
    payloads: dict[str, _Payload] = {}
    for name, array in arrays.items():
        if name.endswith(_PATCH_SUFFIX):
            msg = f"array name {name!r} ends with the reserved suffix {_PATCH_SUFFIX!r}"
            raise InvalidArgumentError(msg)
        payloads.update(
            _array_payloads(
                name, np.asarray(array), compress=compress, quantize=steps_per_unit.get(name)
            )
        )
    for name, doc in documents.items():
        data = json.dumps(doc, separators=(",", ":")).encode()
        payloads[f"json/{name}.json"] = _Payload(data)
    members: dict[str, dict[str, Any]] = {}
    for name, payload in payloads.items():
        entry: dict[str, Any] = {
            "size": len(payload.data),
            "sha256": hashlib.sha256(payload.data).hexdigest(),
        }
        if payload.encoding is not None:
            entry["encoding"] = payload.encoding
        members[name] = entry
    manifest = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "members": members,
        "meta": dict(meta),
    }
    fd, tmp_name = tempfile.mkstemp(prefix=".graph-", dir=dest.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp_name, "w") as zf:
            zf.writestr(_zipinfo(_MANIFEST), json.dumps(manifest, indent=1).encode())
            for name, payload in payloads.items():
                _write_member(zf, name, payload.data, compress=compress)
        with open(tmp_name, "rb+") as written:  # on disk before the rename: a crash
            os.fsync(written.fileno())  # leaves the old graph or the new one, whole
        os.replace(tmp_name, dest)
        fsync_directory(dest.parent)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return dest


def _write_member(zf: zipfile.ZipFile, name: str, data: bytes, *, compress: bool) -> None:
    # a quick level-1 trial decides; the member is then written at _DEFLATE_LEVEL
    if compress and data and len(zlib.compress(data, 1)) <= (1.0 - _MIN_SAVING) * len(data):
        zf.writestr(
            _zipinfo(name), data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=_DEFLATE_LEVEL
        )
    else:
        zf.writestr(_zipinfo(name), data)


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
    except (zipfile.BadZipFile, OSError, zlib.error, EOFError) as exc:
        raise _fail(path, f"its manifest cannot be read ({exc})") from None
    try:
        manifest = json.loads(raw)
    except ValueError as exc:
        raise _fail(path, f"its manifest is not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise _fail(path, f"its manifest does not declare format {FORMAT_NAME!r}")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _fail(path, "its manifest has no integer format_version")
    if version > FORMAT_VERSION:
        raise _fail(
            path,
            f"it was written in format version {version}, newer than this otpa "
            f"supports ({FORMAT_VERSION}); upgrade otpa or rebuild the graph",
        )
    if version < MIN_FORMAT_VERSION:
        raise _fail(
            path,
            f"it uses old format version {version} (oldest supported "
            f"{MIN_FORMAT_VERSION}); rebuild it",
        )
    if not isinstance(manifest.get("members"), dict):
        raise _fail(path, "its manifest lists no members")
    return manifest


def _member_span(path: Path, mm: mmap.mmap, info: zipfile.ZipInfo) -> tuple[int, int]:
    """Byte range of a member's (possibly compressed) data inside the file."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise _fail(path, f"member {info.filename} uses an unsupported compression method")
    start = info.header_offset
    header = mm[start : start + _LOCAL_HEADER.size]
    if len(header) < _LOCAL_HEADER.size:
        raise _fail(path, "the file is truncated")
    fields = _LOCAL_HEADER.unpack(header)
    if fields[0] != _LOCAL_MAGIC:
        raise _fail(path, f"bad local header for {info.filename}")
    name_len, extra_len = fields[9], fields[10]
    data_start = start + _LOCAL_HEADER.size + name_len + extra_len
    data_end = data_start + info.compress_size
    if data_end > len(mm):
        raise _fail(path, "the file is truncated")
    return data_start, data_end


def _member_bytes(
    path: Path, mm: mmap.mmap, info: zipfile.ZipInfo, size: int
) -> memoryview | bytes:
    """A member's uncompressed content: a view into the map, or inflated bytes."""
    start, end = _member_span(path, mm, info)
    if info.file_size != size:
        raise _fail(path, f"member {info.filename} has the wrong size")
    if info.compress_type == zipfile.ZIP_STORED:
        if end - start != size:
            raise _fail(path, f"member {info.filename} has the wrong size")
        return memoryview(mm)[start:end]
    if size > _MAX_INFLATE_RATIO * max(end - start, 1):
        raise _fail(path, f"member {info.filename} claims an impossible size")
    inflater = zlib.decompressobj(-15)
    try:
        data = inflater.decompress(memoryview(mm)[start:end], size)
        if len(data) < size:
            data += inflater.flush(size - len(data))
    except zlib.error as exc:
        raise _fail(path, f"member {info.filename} is corrupt ({exc})") from None
    if len(data) != size or not inflater.eof or inflater.unconsumed_tail:
        raise _fail(path, f"member {info.filename} is corrupt (wrong compressed length)")
    return data


def _npy_header_end(buf: memoryview | bytes) -> int:
    """Offset just past an ``.npy`` header (magic, version, length field, header text)."""
    if len(buf) < 12:
        return len(buf)
    if buf[6] == 1:
        end = 10 + int.from_bytes(buf[8:10], "little")
    else:
        end = 12 + int.from_bytes(buf[8:12], "little")
    return min(end, len(buf))


def _load_npy(path: Path, name: str, buf: memoryview | bytes) -> npt.NDArray[Any]:
    head = io.BytesIO(buf[: _npy_header_end(buf)])  # copy only the header
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
    offset = head.tell()
    if offset + count * dtype.itemsize != len(buf):
        raise _fail(path, f"array {name} has the wrong size for its header")
    array = np.frombuffer(buf, dtype=dtype, count=count, offset=offset)
    return array.reshape(shape, order="F" if fortran else "C")


def _decode(
    path: Path,
    name: str,
    stored: npt.NDArray[Any],
    steps: Any,
    patch: npt.NDArray[Any] | None,
) -> npt.NDArray[Any]:
    if not isinstance(steps, list):
        raise _fail(path, f"array {name} has a malformed encoding")
    try:
        array = decode_array(stored, steps, patch)
    except (ValueError, TypeError, IndexError) as exc:
        raise _fail(path, f"array {name} cannot be decoded ({exc})") from None
    array.flags.writeable = False
    return array


def read_container(path: PathLike, *, verify: bool = True) -> Container:
    """Open a saved graph file, memory-mapping the arrays stored as they are.

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
        Manifest, arrays and JSON documents.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    otpa.errors.GraphFormatError
        If the file is not a graph, is truncated or corrupt, or has an
        unsupported format version.
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
    stored, encodings, documents = _read_members(p, mm, manifest, infos, verify=verify)
    arrays: dict[str, npt.NDArray[Any]] = {}
    for key, array in stored.items():
        if key.endswith(_PATCH_SUFFIX):
            base = key[: -len(_PATCH_SUFFIX)]
            if base not in encodings or array.dtype != PATCH_DTYPE:
                raise _fail(p, f"unexpected patch member for {base}")
            continue
        if key in encodings:
            arrays[key] = _decode(
                p, key, array, encodings[key], stored.get(f"{key}{_PATCH_SUFFIX}")
            )
        else:
            arrays[key] = array
    return Container(path=p, manifest=manifest, arrays=arrays, documents=documents)


def _read_members(
    path: Path,
    mm: mmap.mmap,
    manifest: dict[str, Any],
    infos: Mapping[str, zipfile.ZipInfo],
    *,
    verify: bool,
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any], dict[str, Any]]:
    """Stored arrays, their encodings and the documents of every listed member."""
    stored: dict[str, npt.NDArray[Any]] = {}
    encodings: dict[str, Any] = {}
    documents: dict[str, Any] = {}
    for name, entry in manifest["members"].items():
        info = infos.get(name)
        if info is None:
            raise _fail(path, f"member {name} listed in the manifest is missing")
        if not isinstance(entry, dict) or not isinstance(entry.get("size"), int):
            raise _fail(path, f"member {name} has a malformed manifest entry")
        buf = _member_bytes(path, mm, info, entry["size"])
        if verify and hashlib.sha256(buf).hexdigest() != entry.get("sha256"):
            raise _fail(path, f"member {name} fails its checksum (corrupt file)")
        if name.startswith("arrays/") and name.endswith(".npy"):
            key = name[len("arrays/") : -len(".npy")]
            stored[key] = _load_npy(path, name, buf)
            if "encoding" in entry:
                encodings[key] = entry["encoding"]
        elif name.startswith("json/") and name.endswith(".json"):
            try:
                documents[name[len("json/") : -len(".json")]] = json.loads(bytes(buf))
            except ValueError as exc:
                raise _fail(path, f"document {name} is not valid JSON ({exc})") from None
        else:
            raise _fail(path, f"unexpected member {name}")
    return stored, encodings, documents

