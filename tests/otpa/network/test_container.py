"""The saved-graph container: round trips, memory mapping, and every kind of bad file."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from otpa.errors import GraphFormatError
from otpa.network._container import FORMAT_VERSION, read_container, write_container


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    arrays = {
        "ints": np.arange(1000, dtype=np.int32),
        "grid": np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4),
        "flags": np.array([True, False, True]),
    }
    return write_container(
        tmp_path / "graph",
        arrays=arrays,
        documents={"names": ["Hauptstraße", None, "Main St"]},
        meta={"answer": 42},
    )


def test_round_trip_is_memory_mapped_and_read_only(graph_file: Path) -> None:
    c = read_container(graph_file)
    np.testing.assert_array_equal(c.arrays["ints"], np.arange(1000, dtype=np.int32))
    assert c.arrays["grid"].shape == (3, 4)
    assert c.arrays["grid"].dtype == np.float32
    assert c.arrays["flags"].tolist() == [True, False, True]
    assert c.documents["names"] == ["Hauptstraße", None, "Main St"]
    assert c.meta == {"answer": 42}
    assert not c.arrays["ints"].flags.writeable
    assert c.arrays["ints"].base is not None  # a view into the map, not a copy


def test_file_is_a_stored_zip_with_manifest_first(graph_file: Path) -> None:
    with zipfile.ZipFile(graph_file) as zf:
        infos = zf.infolist()
        manifest = json.loads(zf.read("manifest.json"))
    assert infos[0].filename == "manifest.json"
    assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)
    assert manifest["format"] == "otpa-graph"
    assert manifest["format_version"] == FORMAT_VERSION


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


def test_flipped_byte_fails_checksum(graph_file: Path, tmp_path: Path) -> None:
    data = bytearray(graph_file.read_bytes())
    with zipfile.ZipFile(graph_file) as zf:
        info = zf.getinfo("arrays/ints.npy")
    data[info.header_offset + 30 + len(info.filename) + 200] ^= 0xFF
    bad = tmp_path / "corrupt"
    bad.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError, match="checksum"):
        read_container(bad)
    read_container(bad, verify=False)  # only the checksum notices


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


def _rewrite_manifest(src: Path, dst: Path, **changes: object) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest.update(changes)
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
