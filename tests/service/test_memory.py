"""Freed memory goes back to the system: the registry reports dropped networks, trims follow."""

from __future__ import annotations

import gc
import platform
import time
from pathlib import Path

from _fakes import FakeNetwork

from service.memory import MemoryReleaser, freeze_served_objects, trim_heap, tune_malloc
from service.registry import RouterRegistry


class Network(FakeNetwork):
    """A network that can be weakly referenced and told apart from a reloaded copy."""

    __hash__ = object.__hash__


class CountingTrim:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1


def _wait(trim: CountingTrim, calls: int) -> None:
    deadline = time.monotonic() + 10
    while trim.calls < calls:
        assert time.monotonic() < deadline, "no trim came"
        time.sleep(0.01)


def test_registry_reports_replaced_and_evicted_networks(tmp_path: Path) -> None:
    registry = RouterRegistry(tmp_path)
    dropped: list[object] = []
    registry.add_drop_listener(dropped.append)
    first, second, third = Network(name="a1"), Network(name="a2"), Network(name="b")
    registry.register("a", first)
    registry.register("b", third)
    assert dropped == []
    registry.register("a", second)  # a reload: the old network is dropped
    assert dropped == [first]
    registry.register("a", second)  # the same one again: nothing dropped
    registry.evict("a")
    assert dropped == [first, second]
    registry.evict_all()
    assert dropped == [first, second, third]


def test_a_dropped_network_is_followed_by_one_trim(tmp_path: Path) -> None:
    trim = CountingTrim()
    releaser = MemoryReleaser(interval_s=0.2, settle_s=0.0, trim=trim)
    registry = RouterRegistry(tmp_path)
    registry.add_drop_listener(releaser.watch)
    try:
        old = Network(name="old")
        registry.register("a", old)
        registry.register("a", Network(name="new"))
        # a request still running on the old network keeps it alive: no trim yet
        assert releaser.stats() == {"trims": 0, "retiredAlive": 1}
        del old
        gc.collect()  # the old network is gone: a trim follows
        _wait(trim, 1)
        assert releaser.stats()["retiredAlive"] == 0
        for _ in range(5):  # requests within the interval share one trim
            releaser.release_soon()
        _wait(trim, 2)
        time.sleep(0.3)
        assert trim.calls == 2
        kept = registry.get("a")
        assert kept.name == "new"  # the served network is not dropped
    finally:
        releaser.close()


def test_glibc_is_tuned_and_trimmed_where_it_is_the_c_library() -> None:
    glibc = platform.libc_ver()[0] == "glibc"
    assert tune_malloc() is glibc
    trim_heap()  # returns whether memory was released: either is a correct answer


def test_frozen_networks_are_skipped_by_collections_until_one_is_dropped(tmp_path: Path) -> None:
    registry = RouterRegistry(tmp_path)
    old = Network(name="old")
    old.cycle = [old]  # type: ignore[attr-defined]  # only the cyclic collector frees it
    registry.register("a", old)
    try:
        assert freeze_served_objects(registry.add_drop_listener) > 0
        assert gc.is_tracked(old)
        gc.collect()
        assert gc.get_freeze_count() > 0  # a full collection left the frozen objects alone
        registry.register("a", Network(name="new"))  # a reload drops the old network
        assert gc.get_freeze_count() == 0  # ...and unfreezes everything
        released = MemoryReleaser(interval_s=0.0, settle_s=0.0, trim=CountingTrim())
        released.watch(old)
        del old
        gc.collect()
        assert released.stats()["retiredAlive"] == 0  # its cycle was collected
        released.close()
    finally:
        gc.unfreeze()
