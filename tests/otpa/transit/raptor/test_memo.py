"""Which arrays the per-search memo (``_memo.frozen``) may remember by identity."""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np

from otpa.transit.raptor._memo import _SIZE, frozen, known_valid, remember_valid, remembered


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def test_owned_read_only_array_is_frozen_and_a_writable_one_is_not() -> None:
    a = np.arange(4)
    assert not frozen(a)
    assert frozen(_readonly(a))
    assert frozen(a[1:3])  # a view of it is read-only too


def test_read_only_view_of_a_writable_array_is_not_frozen() -> None:
    base = np.arange(4)
    view = _readonly(base.view())
    assert not frozen(view)
    base[0] = 7  # the reason: the view's values change
    assert view[0] == 7


def test_arrays_over_bytes_and_read_only_memory_maps_are_frozen(tmp_path: Path) -> None:
    assert frozen(np.frombuffer(b"\x01" * 16, dtype=np.int64))
    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(8, dtype=np.int64).tobytes())
    with path.open("rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    a = np.frombuffer(memoryview(mm)[16:], dtype=np.int64)  # as a loaded graph's arrays
    assert a.tolist() == [2, 3, 4, 5, 6, 7]
    assert frozen(a)
    assert frozen(a[2:])


def test_arrays_over_changeable_buffers_are_not_frozen(tmp_path: Path) -> None:
    buf = bytearray(16)
    a = np.frombuffer(memoryview(buf).toreadonly(), dtype=np.int64)
    assert not a.flags.writeable
    assert not frozen(a)  # the bytearray can change under it
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(16))
    with path.open("r+b") as fh:
        mm = mmap.mmap(fh.fileno(), 0)  # writable map
    b = np.frombuffer(memoryview(mm).toreadonly(), dtype=np.int64)
    assert not frozen(b)
    mm[0] = 5
    assert b[0] == 5


def test_validation_is_remembered_only_for_frozen_arrays(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(8, dtype=np.int64).tobytes())
    with path.open("rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    mapped = np.frombuffer(memoryview(mm), dtype=np.int64)
    assert not known_valid(mapped, "test-check")
    remember_valid(mapped, "test-check")
    assert known_valid(mapped, "test-check")
    assert not known_valid(mapped, "other-check")
    writable = np.arange(8)
    remember_valid(writable, "test-check")
    assert not known_valid(writable, "test-check")


def test_values_are_remembered_only_for_frozen_arrays_and_per_name() -> None:
    builds: list[str] = []

    def build(tag: str) -> str:
        builds.append(tag)
        return tag

    a, b = _readonly(np.arange(3)), _readonly(np.arange(5))
    assert remembered((a, b), "t", lambda: build("x")) == "x"
    assert remembered((a, b), "t", lambda: build("y")) == "x"  # kept
    assert remembered((a, b), "u", lambda: build("z")) == "z"  # another name
    assert remembered((b, a), "t", lambda: build("w")) == "w"  # the arrays' order counts
    writable = np.arange(3)
    assert remembered((writable, b), "t", lambda: build("p")) == "p"
    assert remembered((writable, b), "t", lambda: build("q")) == "q"  # built each time
    assert builds == ["x", "z", "w", "p", "q"]


def test_a_networks_values_outlive_many_per_search_values() -> None:
    # the walk groups of a network (dear to build) stay while searches over many timetables
    # or requests remember more values than the per-search memo keeps
    builds: list[str] = []
    walks = _readonly(np.arange(4))
    kept = remembered((walks,), "groups", lambda: builds.append("groups") or "g", network=True)
    assert kept == "g"
    others = [_readonly(np.arange(2)) for _ in range(3 * _SIZE)]
    for i, a in enumerate(others):
        assert remembered((a,), "per_search", lambda i=i: f"v{i}") == f"v{i}"
    again = remembered((walks,), "groups", lambda: builds.append("again") or "h", network=True)
    assert again == "g"
    assert builds == ["groups"]
    # the per-search memo kept only its last values
    assert remembered((others[0],), "per_search", lambda: "rebuilt") == "rebuilt"
