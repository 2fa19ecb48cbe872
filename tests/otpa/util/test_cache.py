"""OwnerCache: weakly keyed on its owners, bounded LRU per owner, thread-safe builds."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

from otpa.util.cache import OwnerCache


class _Owner:
    """A weak-referenceable owner that compares equal to every other (identity must count)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


def test_values_are_built_once_per_owner_and_key() -> None:
    cache: OwnerCache[str, int] = OwnerCache()
    a, b = _Owner(), _Owner()
    calls: list[str] = []

    def build(name: str, value: int) -> int:
        calls.append(name)
        return value

    assert cache.get_or_build(a, "x", lambda: build("a", 1)) == 1
    assert cache.get_or_build(b, "x", lambda: build("b", 2)) == 2  # equal but not the same
    assert cache.get_or_build(a, "x", lambda: build("again", 3)) == 1
    assert calls == ["a", "b"]
    assert cache.get(a, "x") == 1
    assert cache.get(a, "y") is None


def test_least_recently_used_entries_go_first() -> None:
    cache: OwnerCache[int, int] = OwnerCache(max_entries=2)
    owner = np.zeros(1)  # unhashable, weak-referenceable
    cache.get_or_build(owner, 1, lambda: 10)
    cache.get_or_build(owner, 2, lambda: 20)
    assert cache.get(owner, 1) == 10  # 1 is now the most recent
    cache.get_or_build(owner, 3, lambda: 30)
    assert cache.get(owner, 2) is None
    assert (cache.get(owner, 1), cache.get(owner, 3)) == (10, 30)
    other = np.zeros(1)
    cache.get_or_build(other, 1, lambda: 11)  # the bound is per owner
    assert cache.get(owner, 1) == 10


def test_entries_go_with_their_owner() -> None:
    cache: OwnerCache[str, list[int]] = OwnerCache()
    owner = _Owner()
    cache.get_or_build(owner, "k", lambda: [1, 2])
    keep = _Owner()
    cache.get_or_build(keep, "k", lambda: [3])
    assert len(cache) == 2
    del owner
    gc.collect()
    assert len(cache) == 1
    assert cache.get(keep, "k") == [3]
    cache.clear()
    assert len(cache) == 0
    assert cache.get(keep, "k") is None


def test_forget_drops_matching_keys_of_every_owner() -> None:
    cache: OwnerCache[tuple[str, int], int] = OwnerCache()
    a, b = _Owner(), _Owner()
    for owner in (a, b):
        for key in (("s1", 1), ("s1", 2), ("s2", 1)):
            cache.get_or_build(owner, key, lambda key=key: key[1])
    cache.forget(lambda key: key[0] == "s1")
    for owner in (a, b):
        assert cache.get(owner, ("s1", 1)) is None
        assert cache.get(owner, ("s1", 2)) is None
        assert cache.get(owner, ("s2", 1)) == 1


def test_concurrent_builds_agree_on_the_first_value() -> None:
    cache: OwnerCache[str, object] = OwnerCache()
    owner = _Owner()
    start = threading.Barrier(8)
    got: list[object] = []

    def work() -> None:
        start.wait()
        got.append(cache.get_or_build(owner, "k", object))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8
    assert all(v is got[0] for v in got)
    assert cache.get(owner, "k") is got[0]


def test_bound_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_entries"):
        OwnerCache(max_entries=0)
