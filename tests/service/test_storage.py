"""Safe zip extraction and atomic file replacement."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from service.storage import StagedUpload, UnsafeArchiveError, extract_flat_zip, replace_file


def zip_file(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_extract_flat(tmp_path: Path) -> None:
    archive = zip_file(tmp_path / "a.zip", {"gtfs.zip": b"PK..", "city.osm.pbf": b"osm"})
    out = tmp_path / "out"
    out.mkdir()
    files = extract_flat_zip(archive, out, max_total_bytes=100)
    assert sorted(p.name for p in files) == ["city.osm.pbf", "gtfs.zip"]
    assert (out / "city.osm.pbf").read_bytes() == b"osm"


@pytest.mark.parametrize("name", ["../x", "/abs", "dir/x", "dir\\x", "..", "C:x"])
def test_extract_refuses_unsafe_names(tmp_path: Path, name: str) -> None:
    archive = zip_file(tmp_path / "a.zip", {name: b"x"})
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(UnsafeArchiveError):
        extract_flat_zip(archive, out, max_total_bytes=100)
    assert list(out.iterdir()) == []


def test_extract_counts_real_bytes(tmp_path: Path) -> None:
    archive = zip_file(tmp_path / "bomb.zip", {"a": b"\0" * 1_000_000})
    assert archive.stat().st_size < 10_000
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(UnsafeArchiveError, match="size limit"):
        extract_flat_zip(archive, out, max_total_bytes=100_000)


def test_extract_member_count_limit(tmp_path: Path) -> None:
    archive = zip_file(tmp_path / "many.zip", {f"f{i}": b"" for i in range(5)})
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(UnsafeArchiveError, match="members"):
        extract_flat_zip(archive, out, max_total_bytes=100, max_members=4)


def test_extract_duplicates(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("a", b"1")
        with pytest.warns(UserWarning, match="Duplicate name"):
            zf.writestr("a", b"2")
    archive = tmp_path / "dup.zip"
    archive.write_bytes(buf.getvalue())
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(UnsafeArchiveError, match="duplicate"):
        extract_flat_zip(archive, out, max_total_bytes=100)


def test_replace_file_keeps_no_backup(tmp_path: Path) -> None:
    dest = tmp_path / "r" / "graph"
    dest.parent.mkdir()
    dest.write_bytes(b"old")
    with dest.open("rb") as still_open:
        staged = tmp_path / "new.part"
        staged.write_bytes(b"new")
        replace_file(staged, dest)
        assert still_open.read() == b"old"  # readers of the old file are undisturbed
    assert dest.read_bytes() == b"new"
    assert not staged.exists()
    assert not (tmp_path / "r" / "graph.bak").exists()


def test_staged_upload(tmp_path: Path) -> None:
    up = StagedUpload(tmp_path / "in", "alpha", ".graph")
    up.write(b"abc")
    up.write(b"def")
    path = up.finish()
    assert path.read_bytes() == b"abcdef"
    assert up.size == 6
    up.discard()
    assert not path.exists()
