"""RouterRegistry without HTTP: resolution, validation, loads, swaps."""

from __future__ import annotations

from pathlib import Path

import pytest
from _fakes import ALPHA, BETA, FakeNetwork, SlowLoader

from otpa.errors import GraphFormatError
from service.registry import (
    InvalidRouterIdError,
    NoGraphsDirError,
    RouterRegistry,
    UnknownRouterError,
    validate_router_id,
)


@pytest.fixture
def registry(graphs_base: Path) -> RouterRegistry:
    reg = RouterRegistry(graphs_base, FakeNetwork.load)
    reg.reload_all()
    return reg


def test_discover_and_load(registry: RouterRegistry) -> None:
    assert registry.ids() == ["alpha", "beta"]
    assert registry.get("alpha") == ALPHA
    assert registry.default_id == "alpha"


@pytest.mark.parametrize("alias", ["", "default", "DEFAULT", "dEfAuLt"])
def test_default_alias(registry: RouterRegistry, alias: str) -> None:
    assert registry.lookup(alias) == ("alpha", ALPHA)


def test_writes_to_default_alias_target_the_default_router(registry: RouterRegistry) -> None:
    assert registry.register("default", BETA) is True  # replaced alpha, the default
    assert registry.lookup("alpha") == ("alpha", BETA)
    assert registry.write_target("DEFAULT") == "alpha"


def test_router_literally_named_default() -> None:
    reg = RouterRegistry(None)
    reg.register("default", ALPHA)  # empty registry: the alias has no target yet
    reg.register("other", BETA)
    assert reg.ids() == ["default", "other"]
    assert reg.lookup("default") == ("default", ALPHA)
    assert reg.lookup("") == ("default", ALPHA)


def test_configured_default(graphs_base: Path) -> None:
    reg = RouterRegistry(graphs_base, FakeNetwork.load, routers=["beta"])
    assert reg.discover() == ["beta"]
    reg.reload_all()
    assert reg.ids() == ["beta"]
    assert reg.resolve("default") == "beta"


@pytest.mark.parametrize("bad", ["../x", "a/b", "a.b", "", "x" * 65, "é", "a b", "..", "."])
def test_invalid_ids(bad: str) -> None:
    with pytest.raises(InvalidRouterIdError):
        validate_router_id(bad)


def test_unknown(registry: RouterRegistry) -> None:
    with pytest.raises(UnknownRouterError, match=r"Graph id 'zzz' not registered\."):
        registry.get("zzz")
    with pytest.raises(LookupError):  # UnknownRouterError is an otpa UnknownIdError
        registry.evict("zzz")


def test_failed_load_keeps_old(registry: RouterRegistry) -> None:
    (registry.graph_path("alpha")).write_bytes(b"junk")
    with pytest.raises(GraphFormatError):
        registry.load("alpha")
    assert registry.get("alpha") == ALPHA
    (registry.graph_path("alpha")).unlink()
    with pytest.raises(FileNotFoundError):
        registry.load("alpha")
    assert registry.get("alpha") == ALPHA


def test_reload_all_reports(registry: RouterRegistry) -> None:
    registry.graph_path("beta").write_bytes(b"junk")
    report = registry.reload_all()
    assert report.loaded == ["alpha"]
    assert list(report.failed) == ["beta"]
    assert report.evicted == []
    assert registry.get("beta") == BETA


def test_install_validates_first(registry: RouterRegistry, tmp_path: Path) -> None:
    staged = registry.staging_dir() / "x.part"
    staged.write_bytes(b"junk")
    before = registry.graph_path("alpha").read_bytes()
    with pytest.raises(GraphFormatError):
        registry.install("alpha", staged)
    assert registry.graph_path("alpha").read_bytes() == before
    new = FakeNetwork(name="new")
    new.save(staged)
    assert registry.install("alpha", staged) == ("alpha", True)
    assert registry.get("alpha") == new
    assert FakeNetwork.load(registry.graph_path("alpha")) == new


def test_evict(registry: RouterRegistry) -> None:
    assert registry.evict("default") == "alpha"
    assert registry.default_id == "beta"
    assert registry.evict_all() == 1
    assert len(registry) == 0


def test_in_memory_registry() -> None:
    reg = RouterRegistry(None)
    assert reg.register("mem", ALPHA) is False
    assert reg.register("mem", BETA) is True
    assert reg.get("default") == BETA
    assert reg.discover() == []
    with pytest.raises(NoGraphsDirError):
        reg.load("mem")
    with pytest.raises(NoGraphsDirError):
        reg.reload_all()
    assert reg.ids() == ["mem"]


def test_loader_seam(graphs_base: Path) -> None:
    loader = SlowLoader()
    reg = RouterRegistry(graphs_base, loader)
    reg.reload_all()
    assert loader.calls == 2
    assert reg.loader is loader
