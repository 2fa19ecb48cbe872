"""The saved-graph container: round trips, compression, memory mapping, every kind of bad file."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from otpa.errors import GraphFormatError
from otpa.network._container import (
    FORMAT_VERSION,
    MIN_FORMAT_VERSION,
    read_container,
    write_container,
)

RNG = np.random.default_rng(3)
ARRAYS = {
    "ints": np.arange(1000, dtype=np.int32),
    "grid": np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4),
    "flags": np.array([True, False, True]),
    "noise": RNG.integers(0, 256, 8000).astype(np.uint8),  # incompressible: stored, mapped
    "coords": np.r_[np.arange(493_000_000, 493_002_000) * 1e-7, [49.30000001234]],
    "metres": RNG.random(1000) * 2000,
}


def _write(path: Path, **kwargs: Any) -> Path:
    return write_container(
        path,
        arrays=ARRAYS,
        documents={"names": ["Hauptstraße", None, "Main St"] * 100},
        meta={"answer": 42},
        **kwargs,
    )


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    return _write(tmp_path / "graph")


@pytest.fixture
def stored_file(tmp_path: Path) -> Path:
    return _write(tmp_path / "stored", compress=False)


def test_round_trip_is_exact_and_read_only(graph_file: Path) -> None:
    c = read_container(graph_file)
    assert set(c.arrays) == set(ARRAYS)  # patch members are not exposed
    for name, array in ARRAYS.items():
        assert c.arrays[name].dtype == array.dtype
        assert c.arrays[name].shape == array.shape
        assert c.arrays[name].tobytes() == array.tobytes(), name
        assert not c.arrays[name].flags.writeable, name
    assert c.documents["names"][:3] == ["Hauptstraße", None, "Main St"]
    assert c.meta == {"answer": 42}


def test_compressed_file_is_smaller_and_encodes_arrays(graph_file: Path, stored_file: Path) -> None:
    assert graph_file.stat().st_size < stored_file.stat().st_size / 2
    c = read_container(graph_file)
    members = c.manifest["members"]
    assert members["arrays/ints.npy"]["encoding"][0]["op"] == "delta"
    assert members["arrays/coords.npy"]["encoding"][0] == {
        "op": "grid",
        "dtype": "<f8",
        "mul": 1e-7,
    }
    assert "arrays/coords.__patch__.npy" in members  # the one off-grid value, kept exactly
    assert "encoding" not in members["arrays/noise.npy"]
    assert c.arrays["noise"].base is not None  # stored member: a view into the map


def test_uncompressed_file_maps_every_array(stored_file: Path) -> None:
    c = read_container(stored_file)
    for name, array in ARRAYS.items():
        assert c.arrays[name].tobytes() == array.tobytes()
        assert c.arrays[name].base is not None, name  # a view into the map, not a copy
        assert not c.arrays[name].flags.writeable
    assert not any("encoding" in m for m in c.manifest["members"].values())


def test_quantize_rounds_only_the_named_arrays(tmp_path: Path) -> None:
    path = _write(tmp_path / "q", quantize={"metres": 1000, "missing": 10})
    c = read_container(path)
    np.testing.assert_array_equal(c.arrays["metres"], np.round(ARRAYS["metres"], 3))
    assert c.arrays["coords"].tobytes() == ARRAYS["coords"].tobytes()
    exact = read_container(_write(tmp_path / "exact", compress=False, quantize={"metres": 1000}))
    assert exact.arrays["metres"].tobytes() == ARRAYS["metres"].tobytes()


def test_file_is_a_zip_with_a_stored_manifest_first(graph_file: Path, stored_file: Path) -> None:
    with zipfile.ZipFile(graph_file) as zf:
        infos = zf.infolist()
        manifest = json.loads(zf.read("manifest.json"))
        assert zf.testzip() is None  # standard tools can extract every member
    assert infos[0].filename == "manifest.json"
    assert infos[0].compress_type == zipfile.ZIP_STORED
    methods = {i.compress_type for i in infos}
    assert methods == {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
    assert manifest["format"] == "otpa-graph"
    assert manifest["format_version"] == FORMAT_VERSION
    with zipfile.ZipFile(stored_file) as zf:
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())


def test_reserved_patch_suffix_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="reserved"):
        write_container(tmp_path / "g", arrays={"a.__patch__": np.zeros(3)}, documents={}, meta={})


def test_object_arrays_are_refused_on_write(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="object"):
        write_container(
            tmp_path / "g", arrays={"o": np.array([{}, 1], dtype=object)}, documents={}, meta={}
        )


def test_truncated_file(graph_file: Path, tmp_path: Path) -> None:
    data = graph_file.read_bytes()
    bad = tmp_path / "truncated"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(GraphFormatError, match=r"truncated|not a graph"):
        read_container(bad)


def _data_offset(path: Path, member: str) -> tuple[int, zipfile.ZipInfo]:
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(member)
    return info.header_offset + 30 + len(info.filename) + len(info.extra), info


def test_flipped_byte_fails_checksum(stored_file: Path, tmp_path: Path) -> None:
    data = bytearray(stored_file.read_bytes())
    start, _ = _data_offset(stored_file, "arrays/ints.npy")
    data[start + 200] ^= 0xFF
    bad = tmp_path / "corrupt"
    bad.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError, match="checksum"):
        read_container(bad)
    read_container(bad, verify=False)  # only the checksum notices


def test_flipped_byte_in_compressed_member(graph_file: Path, tmp_path: Path) -> None:
    start, info = _data_offset(graph_file, "json/names.json")
    assert info.compress_type == zipfile.ZIP_DEFLATED
    for offset in range(0, info.compress_size, max(1, info.compress_size // 7)):
        data = bytearray(graph_file.read_bytes())
        data[start + offset] ^= 0x55
        bad = tmp_path / "corrupt"
        bad.write_bytes(bytes(data))
        with pytest.raises(GraphFormatError, match=r"checksum|corrupt"):
            read_container(bad)


@pytest.mark.parametrize("payload", [b"", b"hello, I am not a graph", b"PK\x03\x04garbage"])
def test_non_graph_bytes(tmp_path: Path, payload: bytes) -> None:
    bad = tmp_path / "graph"
    bad.write_bytes(payload)
    with pytest.raises(GraphFormatError):
        read_container(bad)


def test_zip_without_manifest(tmp_path: Path) -> None:
    bad = tmp_path / "graph"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("stops.txt", "stop_id\n1\n")
    with pytest.raises(GraphFormatError, match="no manifest"):
        read_container(bad)


def _rewrite_manifest(
    src: Path, dst: Path, edit: Callable[[dict[str, Any]], None] | None = None, **changes: object
) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest.update(changes)
                if edit is not None:
                    edit(manifest)
                data = json.dumps(manifest).encode()
            zout.writestr(info, data)


def test_future_format_version(graph_file: Path, tmp_path: Path) -> None:
    future = tmp_path / "future"
    _rewrite_manifest(graph_file, future, format_version=FORMAT_VERSION + 1)
    with pytest.raises(GraphFormatError, match="newer than this otpa supports"):
        read_container(future)


def test_wrong_format_name(graph_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    _rewrite_manifest(graph_file, other, format="something-else")
    with pytest.raises(GraphFormatError, match="does not declare format"):
        read_container(other)


def test_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_container(tmp_path / "nope")


def test_write_is_atomic_and_leaves_no_temp_files(graph_file: Path) -> None:
    before = graph_file.read_bytes()
    with pytest.raises(TypeError):
        write_container(
            graph_file, arrays={"o": np.array([None], dtype=object)}, documents={}, meta={}
        )
    assert graph_file.read_bytes() == before
    assert [p.name for p in graph_file.parent.iterdir()] == ["graph"]


def test_old_format_versions(stored_file: Path, tmp_path: Path) -> None:
    v1 = tmp_path / "v1"
    _rewrite_manifest(stored_file, v1, format_version=MIN_FORMAT_VERSION)
    assert read_container(v1).arrays["ints"].tobytes() == ARRAYS["ints"].tobytes()
    ancient = tmp_path / "v0"
    _rewrite_manifest(stored_file, ancient, format_version=MIN_FORMAT_VERSION - 1)
    with pytest.raises(GraphFormatError, match=r"old format version.*rebuild"):
        read_container(ancient)


def test_recompressed_members_still_read(graph_file: Path, tmp_path: Path) -> None:
    """Re-zipping with other methods (e.g. by a standard tool) keeps the graph usable."""
    stored = tmp_path / "restored"
    with zipfile.ZipFile(graph_file) as zin, zipfile.ZipFile(stored, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename), zipfile.ZIP_STORED)
    assert read_container(stored).arrays["coords"].tobytes() == ARRAYS["coords"].tobytes()


def test_unsupported_compression_method(graph_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bz2"
    with zipfile.ZipFile(graph_file) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            method = zipfile.ZIP_BZIP2 if info.filename.startswith("json/") else zipfile.ZIP_STORED
            zout.writestr(info.filename, zin.read(info.filename), method)
    with pytest.raises(GraphFormatError, match="unsupported compression"):
        read_container(bad)


def _set_encoding(member: str, encoding: object) -> Callable[[dict[str, Any]], None]:
    def edit(manifest: dict[str, Any]) -> None:
        manifest["members"][f"arrays/{member}.npy"]["encoding"] = encoding

    return edit


@pytest.mark.parametrize(
    "encoding",
    [
        "delta",
        [{"op": "unpickle", "dtype": "<i4"}],
        [{"op": "delta", "dtype": "|O"}],
        [{"op": "shuffle", "dtype": "<i8"}],
        [{"op": "grid", "dtype": "<f8", "mul": float("nan")}],
    ],
)
def test_malformed_encoding(graph_file: Path, tmp_path: Path, encoding: object) -> None:
    bad = tmp_path / "bad"
    _rewrite_manifest(graph_file, bad, edit=_set_encoding("ints", encoding))
    with pytest.raises(GraphFormatError, match="ints"):
        read_container(bad, verify=False)


def test_patch_without_encoded_array(graph_file: Path, tmp_path: Path) -> None:
    def edit(manifest: dict[str, Any]) -> None:
        del manifest["members"]["arrays/coords.npy"]["encoding"]

    bad = tmp_path / "bad"
    _rewrite_manifest(graph_file, bad, edit=edit)
    with pytest.raises(GraphFormatError, match="patch"):
        read_container(bad)


def test_impossible_inflated_size(graph_file: Path, tmp_path: Path) -> None:
    """A compressed member claiming a huge size is refused before inflating."""
    huge = 2**31 - 1

    def edit(manifest: dict[str, Any]) -> None:
        manifest["members"]["json/names.json"]["size"] = huge

    bad = tmp_path / "bomb"
    _rewrite_manifest(graph_file, bad, edit=edit)
    data = bytearray(bad.read_bytes())
    name = b"json/names.json"
    record = data.index(b"PK\x01\x02", data.index(b"PK\x05\x06") - 4096)
    while data[record + 46 : record + 46 + len(name)] != name:
        record = data.index(b"PK\x01\x02", record + 4)
    data[record + 24 : record + 28] = huge.to_bytes(4, "little")  # central directory size
    bad.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError, match="impossible size"):
        read_container(bad)
