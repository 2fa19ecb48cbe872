"""Test doubles and helpers for the service tests.

``FakeNetwork`` has just the attributes the service reads from
``otpa.network.TransportNetwork`` and its own tiny file format, so the HTTP
layer can be tested without building graphs.  To run a test against real saved
graphs instead, fill a graphs folder with ``TransportNetwork.save`` and use
``RouterRegistry(base)`` (the default loader).
"""

from __future__ import annotations

import base64
import dataclasses
import http.client
import json
import os
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from otpa.errors import GraphFormatError

MAGIC = b"OTPA-FAKE-GRAPH 1\n"
GRAPH_FILE = "graph"


@dataclass(frozen=True)
class FakeNetwork:
    """Stand-in for TransportNetwork: the RouterInfo attributes plus save/load."""

    name: str = "fake"
    build_time_ms: int = 1_700_000_000_000
    bounds: tuple[float, float, float, float] = (-122.7, 45.5, -122.6, 45.6)
    convex_hull: list[tuple[float, float]] = field(
        default_factory=lambda: [
            (-122.7, 45.5),
            (-122.6, 45.5),
            (-122.6, 45.6),
            (-122.7, 45.6),
            (-122.7, 45.5),
        ]
    )
    center: tuple[float, float] = (45.55, -122.65)
    transit_service_range: tuple[int, int] | None = (1_700_000_000, 1_700_086_400)
    transit_modes: list[str] = field(default_factory=lambda: ["BUS", "RAIL"])
    has_park_ride: bool = False
    has_bike_park: bool = False
    bike_rental_station_count: int = 0
    time_zone: str = "America/Los_Angeles"
    feed_ids: tuple[str, ...] = ("demo",)

    def summary(self) -> dict[str, int]:
        """Counts, as TransportNetwork.summary()."""
        return {"stops": 2, "routes": 1, "trips": 1, "patterns": 1, "warnings": 0}

    def save(self, path: Path | str) -> Path:
        """Write the fake graph file atomically."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(graph_bytes(self))
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: Path | str, *, verify: bool = True) -> FakeNetwork:
        """Read a fake graph file; GraphFormatError if it is not one."""
        data = Path(path).read_bytes()
        if not data.startswith(MAGIC):
            msg = f"{path} is not an otpa graph (bad magic)"
            raise GraphFormatError(msg)
        try:
            fields = json.loads(data[len(MAGIC) :])
            fields["bounds"] = tuple(fields["bounds"])
            fields["center"] = tuple(fields["center"])
            fields["convex_hull"] = [tuple(p) for p in fields["convex_hull"]]
            if fields["transit_service_range"] is not None:
                fields["transit_service_range"] = tuple(fields["transit_service_range"])
            fields["feed_ids"] = tuple(fields.get("feed_ids", ("demo",)))
            return cls(**fields)
        except (ValueError, KeyError, TypeError) as exc:
            msg = f"{path} is a truncated or corrupt graph ({exc})"
            raise GraphFormatError(msg) from None


#: Cheap scrypt cost for tests (production default is 2**14).
TEST_SCRYPT_N = 2**8
ALICE = ("alice", "alice-pw")  # has ROUTERS
BOB = ("bob", "bob-pw")  # no roles

ALPHA = FakeNetwork(name="alpha", build_time_ms=1_700_000_000_000)
BETA = FakeNetwork(
    name="beta",
    build_time_ms=1_700_000_500_000,
    transit_service_range=None,
    transit_modes=[],
    bounds=(10.0, 50.0, 11.0, 51.0),
    convex_hull=[(10.0, 50.0), (11.0, 50.0), (11.0, 51.0), (10.0, 50.0)],
    center=(50.5, 10.5),
    has_park_ride=True,
    has_bike_park=True,
    bike_rental_station_count=2,
)


def graph_bytes(network: FakeNetwork) -> bytes:
    """The saved-file content of a fake network."""
    return MAGIC + json.dumps(dataclasses.asdict(network)).encode()


class SlowLoader:
    """FakeNetwork.load with an adjustable delay (to catch a load blocking the event loop)."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, path: Path) -> FakeNetwork:
        with self._lock:
            self.calls += 1
        time.sleep(self.delay_s)
        return FakeNetwork.load(path)


def fake_builder(directory: Path) -> FakeNetwork:
    """Stand-in for build_network: reads ``network.json`` from the unzipped upload."""
    spec = directory / "network.json"
    if not spec.is_file():
        from otpa.errors import NetworkBuildError

        msg = f"nothing to build: no network.json in {sorted(p.name for p in directory.iterdir())}"
        raise NetworkBuildError(msg)
    return FakeNetwork(**json.loads(spec.read_text()))


def write_graphs(base: Path, networks: Mapping[str, FakeNetwork]) -> Path:
    """Save networks as ``<base>/<id>/graph`` and return ``base``."""
    for router_id, network in networks.items():
        network.save(base / router_id / GRAPH_FILE)
    return base


# -- HTTP -------------------------------------------------------------------------------------


@dataclass
class Response:
    """A received HTTP response."""

    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)

    @property
    def text(self) -> str:
        """The body as text."""
        return self.body.decode("utf-8")

    def header(self, name: str) -> str | None:
        """One header's value (None if absent)."""
        return self.headers.get(name)


def basic(user: str, password: str) -> dict[str, str]:
    """An Authorization header for HTTP Basic."""
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@dataclass
class Service:
    """A running test server."""

    base: str  # http://127.0.0.1:PORT
    url: str  # .../otp/routers/default
    registry: Any
    stop: Callable[[], None]
    graphs_dir: Path | None = None

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
    ) -> Response:
        """Send one request on a fresh connection."""
        parsed = urllib.parse.urlsplit(self.base)
        conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=dict(headers or {}))
            resp = conn.getresponse()
            return Response(resp.status, resp.headers, resp.read())
        finally:
            conn.close()

    def get(self, path: str, **headers: str) -> Response:
        """GET with headers given as keyword arguments (underscores become dashes)."""
        return self.request(
            "GET", path, headers={k.replace("_", "-"): v for k, v in headers.items()}
        )
