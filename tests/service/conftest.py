"""Fixtures for the HTTP service tests: graphs folders, users and running servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from _fakes import ALICE, ALPHA, BETA, BOB, TEST_SCRYPT_N, FakeNetwork, Service, write_graphs

from service.auth import ROLE_ROUTERS, UserEntry, hash_password
from service.config import ServiceConfig
from service.registry import RouterRegistry
from service.server import build_registry, start_in_thread


@pytest.fixture
def graphs_base(tmp_path: Path) -> Path:
    """A graphs folder holding ``alpha/graph`` and ``beta/graph``.

    Swap the fake networks for real ``TransportNetwork`` objects (the demo
    network) and use the default loader to run the suite on real graph files.
    """
    return write_graphs(tmp_path / "graphs", {"alpha": ALPHA, "beta": BETA})


@pytest.fixture(scope="session")
def users() -> Mapping[str, UserEntry]:
    """``alice`` (role ROUTERS) and ``bob`` (no roles), with cheap hashes."""
    return {
        ALICE[0]: UserEntry(
            ALICE[0], hash_password(ALICE[1], n=TEST_SCRYPT_N), frozenset({ROLE_ROUTERS})
        ),
        BOB[0]: UserEntry(BOB[0], hash_password(BOB[1], n=TEST_SCRYPT_N), frozenset()),
    }


MakeService = Callable[..., Service]


@pytest.fixture
def make_service(graphs_base: Path, users: Mapping[str, UserEntry]) -> Iterator[MakeService]:
    """Start servers on ephemeral loopback ports; all are stopped after the test.

    Keyword arguments: ``loader`` (default ``FakeNetwork.load``; None = the real
    ``TransportNetwork.load``, for graphs folders of real saved graphs), ``builder``
    (default None: zip uploads refused), ``networks`` (in-memory), and any
    :class:`ServiceConfig` field (defaults: ``graphs_dir=graphs_base``, the
    ``users`` fixture, ``port=0``).
    """
    stops: list[Callable[[], None]] = []

    def start(
        *,
        loader: Callable[[Path], Any] | None = FakeNetwork.load,
        builder: Callable[[Path], Any] | None = None,
        networks: Mapping[str, Any] | None = None,
        **overrides: Any,
    ) -> Service:
        fields: dict[str, Any] = {"graphs_dir": graphs_base, "users": users, "port": 0}
        fields.update(overrides)
        config = ServiceConfig(**fields)
        registry: RouterRegistry = build_registry(config, networks, loader=loader)
        url, stop = start_in_thread(config, registry=registry, builder=builder)
        stops.append(stop)
        base = url.removesuffix("/otp/routers/default")
        return Service(base, url, registry, stop, config.graphs_dir)

    yield start
    for stop in stops:
        stop()


@pytest.fixture
def service(make_service: MakeService) -> Service:
    """A server with routers ``alpha`` (default) and ``beta`` loaded from ``graphs_base``."""
    return make_service()
