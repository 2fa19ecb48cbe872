"""A deterministic synthetic demo city: real OSM XML and GTFS input files.

:func:`write_demo_city` writes ``demo-city.osm`` and ``demo-city-gtfs.zip``
into a folder; the normal build pipeline reads them like any other inputs.
:func:`demo_city_dir` keeps one generated copy in a cache folder (``otpa serve``
with no arguments uses it).

The city is fictional and sits in the open North Sea about 40 km west of
Texel (centre 53.30 N, 4.20 E, timezone ``Europe/Amsterdam``), so it can never
be mistaken for real streets.  The ``"demo"`` city is a perturbed grid of
12 x 12 blocks (about 1.8 km square); ``size="large"`` tiles that pattern
``scale x scale`` times.  See ``otpa/testing/README.md`` for the layout.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from otpa.errors import ArgumentTypeError, InvalidArgumentError, OtpaError
from otpa.testing._demo_gbfs import GBFS_DIRNAME, ROUTER_CONFIG_FILENAME, write_gbfs
from otpa.testing._demo_gtfs import TIMEZONE, write_gtfs
from otpa.testing._demo_model import CENTER_LAT, CENTER_LON, CityPlan, to_latlon
from otpa.testing._demo_osm import write_osm
from otpa.testing._demo_streets import lay_out_streets
from otpa.testing._demo_transit import add_transit
from otpa.types import PathLike

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = [
    "DEMO_CITY_VERSION",
    "GBFS_DIRNAME",
    "GTFS_FILENAME",
    "OSM_FILENAME",
    "ROUTER_CONFIG_FILENAME",
    "DemoCity",
    "demo_city_dir",
    "demo_network",
    "write_demo_city",
]

#: Bumped whenever the generated files change; part of the cache folder name.
DEMO_CITY_VERSION = "3"
OSM_FILENAME = "demo-city.osm"
GTFS_FILENAME = "demo-city-gtfs.zip"
_MAX_SCALE = 100
# margin added around the street nodes for <bounds> (about 110 m)
_PAD_LAT = 0.001
_PAD_LON = 0.0016


@dataclass(frozen=True)
class DemoCity:
    """What :func:`write_demo_city` wrote.

    Attributes
    ----------
    directory
        The folder holding both files.
    osm_path, gtfs_path
        ``directory / "demo-city.osm"`` and ``directory / "demo-city-gtfs.zip"``.
    center
        ``(lat, lon)`` of the grid's middle (the projection origin).
    bounds
        ``(min_lon, min_lat, max_lon, max_lat)``, as in the OSM ``<bounds>``
        element; every node and stop lies inside.
    n_stops, n_routes, n_trips
        Rows in ``stops.txt`` (parent station included), ``routes.txt`` and
        ``trips.txt``.
    places
        Named ``(lat, lon)`` sample points: ``"Central Station"``,
        ``"Westgate"``, ``"Harbour"``, ``"University"``, ``"Station Square"``,
        ``"City Park"``, ``"Westgate P+R"``, ``"Central Station Bikes"``.
    seed, size, scale
        The arguments the city was generated with.
    timezone
        The feed's agency timezone.
    sample_date
        A weekday with regular service (2026-03-04, a Wednesday).
    gbfs_dir, n_bike_stations
        The bike share's GBFS v2.3 feed (``directory / "gbfs"``, one station per OSM
        ``amenity=bicycle_rental`` node) and its station count; ``directory /
        "router-config.json"`` runs it as a ``bike-rental`` updater (network ``DemoBike``)
        and configures the built-in ride-hail estimator (``NOAPI``).
    """

    directory: Path
    osm_path: Path
    gtfs_path: Path
    center: tuple[float, float]
    bounds: tuple[float, float, float, float]
    n_stops: int
    n_routes: int
    n_trips: int
    places: dict[str, tuple[float, float]] = field(hash=False)
    seed: int = 7
    size: Literal["demo", "large"] = "demo"
    scale: int = 1
    timezone: str = TIMEZONE
    sample_date: date = date(2026, 3, 4)
    gbfs_dir: Path | None = None
    n_bike_stations: int = 0


def _check_args(seed: int, size: str, scale: int) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        msg = f"seed must be a non-negative integer, got {seed!r}"
        raise InvalidArgumentError(msg)
    if size not in ("demo", "large"):
        msg = f"size must be 'demo' or 'large', got {size!r}"
        raise InvalidArgumentError(msg)
    if isinstance(scale, bool) or not isinstance(scale, int | np.integer):
        msg = f"scale must be an integer, got {scale!r}"
        raise ArgumentTypeError(msg)
    if size == "demo" and scale != 1:
        msg = f"scale applies to size='large' only; size='demo' needs scale=1, got {scale}"
        raise InvalidArgumentError(msg)
    if not 1 <= scale <= _MAX_SCALE:
        msg = f"scale must be between 1 and {_MAX_SCALE}, got {scale}"
        raise InvalidArgumentError(msg)


def _build_plan(seed: int, scale: int) -> CityPlan:
    """Lay out streets, then transit, and freeze the result."""
    streets = lay_out_streets(seed, scale)
    transit = add_transit(streets)
    # every node a way uses, plus tagged free-standing nodes (bike share, stations...)
    used = {node for way in streets.ways for node in way.nodes} | set(streets.node_tags)
    return CityPlan(
        n_blocks=streets.n,
        nodes={node: streets.node_xy(node, digits=3) for node in sorted(used)},
        node_tags=dict(sorted(streets.node_tags.items())),
        ways=tuple(streets.ways),
        relations=tuple(streets.relations),
        stops=tuple(sorted(transit.stops.values(), key=lambda s: s.stop_id)),
        lines=tuple(transit.lines),
        transfers=tuple(transit.transfers),
        places=dict(sorted(streets.places.items())),
    )


def write_demo_city(
    directory: PathLike,
    *,
    seed: int = 7,
    size: Literal["demo", "large"] = "demo",
    scale: int = 1,
) -> DemoCity:
    """Write the synthetic demo city's OSM and GTFS files into ``directory``.

    Parameters
    ----------
    directory
        Output folder, created if missing.  Only ``demo-city.osm`` and
        ``demo-city-gtfs.zip`` are written (existing ones are overwritten).
    seed
        Seeds the street perturbation, the removed street segments and the
        timetable offsets.  The same seed gives byte-identical files.
    size
        ``"demo"``: 12 x 12 blocks (about 1.8 km square), 6 bus lines, a
        university shuttle and one rail line.  ``"large"``: ``scale x scale``
        tiles of the demo grid with proportionally more lines.
    scale
        Tiles per side for ``size="large"``; must be 1 for ``"demo"``.

    Returns
    -------
    DemoCity
        Paths, extent, counts and named sample places.

    Raises
    ------
    ValueError
        On a bad ``seed``, ``size`` or ``scale``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     city = write_demo_city(tmp)
    ...     names = sorted(p.name for p in city.directory.iterdir())
    >>> names
    ['demo-city-gtfs.zip', 'demo-city.osm', 'gbfs', 'router-config.json']
    >>> city.n_routes, "Central Station" in city.places
    (8, True)
    """
    _check_args(seed, size, scale)
    seed, scale = int(seed), int(scale)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    plan = _build_plan(seed, scale)

    xy = np.array([*plan.nodes.values(), *((s.x, s.y) for s in plan.stops)])
    lat, lon = to_latlon(xy[:, 0], xy[:, 1])
    bounds = (
        round(float(lon.min()) - _PAD_LON, 7),
        round(float(lat.min()) - _PAD_LAT, 7),
        round(float(lon.max()) + _PAD_LON, 7),
        round(float(lat.max()) + _PAD_LAT, 7),
    )
    version = f"demo-city-{DEMO_CITY_VERSION}-{size}-x{scale}-seed{seed}"
    osm_path, gtfs_path = out / OSM_FILENAME, out / GTFS_FILENAME
    write_osm(plan, osm_path, bounds, f"otpa {version}")
    counts = write_gtfs(plan, gtfs_path, seed=seed, version=version)
    gbfs_dir, n_bike_stations = write_gbfs(plan, out)

    names = list(plan.places)
    pxy = np.array([plan.places[n] for n in names])
    plat, plon = to_latlon(pxy[:, 0], pxy[:, 1])
    places = {
        n: (round(float(a), 7), round(float(o), 7))
        for n, a, o in zip(names, plat, plon, strict=True)
    }
    return DemoCity(
        directory=out,
        osm_path=osm_path,
        gtfs_path=gtfs_path,
        center=(CENTER_LAT, CENTER_LON),
        bounds=bounds,
        n_stops=counts.n_stops,
        n_routes=counts.n_routes,
        n_trips=counts.n_trips,
        places=places,
        seed=seed,
        size=size,
        scale=scale,
        gbfs_dir=gbfs_dir,
        n_bike_stations=n_bike_stations,
    )


def _default_cache_root() -> Path:
    env = os.environ.get("OTPA_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "otpa"


def _complete(folder: Path) -> bool:
    files = (OSM_FILENAME, GTFS_FILENAME, ROUTER_CONFIG_FILENAME, f"{GBFS_DIRNAME}/gbfs.json")
    return all((folder / name).is_file() for name in files)


def demo_city_dir(cache_root: PathLike | None = None) -> Path:
    """Return a folder holding the default demo city, generating it on first use.

    The files are those of ``write_demo_city(folder)`` (seed 7, ``"demo"``)
    and live in ``<cache_root>/demo-city-<DEMO_CITY_VERSION>``.  Generation
    happens in a temporary sibling folder that is renamed into place, so
    concurrent callers never see half-written files.

    Parameters
    ----------
    cache_root
        Cache folder; default ``$OTPA_CACHE``, else ``$XDG_CACHE_HOME/otpa``,
        else ``~/.cache/otpa``.

    Returns
    -------
    pathlib.Path
        The folder with ``demo-city.osm`` and ``demo-city-gtfs.zip``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = demo_city_dir(tmp)
    ...     again = demo_city_dir(tmp)
    ...     print(folder.name, folder == again, (folder / "demo-city.osm").is_file())
    demo-city-3 True True
    """
    root = Path(cache_root) if cache_root is not None else _default_cache_root()
    target = root / f"demo-city-{DEMO_CITY_VERSION}"
    if _complete(target):
        return target
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".demo-city-", dir=root))
    try:
        write_demo_city(tmp)
        if target.exists() and not _complete(target):
            shutil.rmtree(target)  # a leftover from an interrupted older layout
        try:
            tmp.rename(target)
        except OSError:
            if not _complete(target):  # lost a race only if the winner finished
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return target


def demo_network(cache_root: PathLike | None = None) -> TransportNetwork:
    """Return the built demo city network, building and saving it on first use.

    The saved graph lives beside the generated files (``demo_city_dir(cache_root) /
    "graph"``); a graph that no longer loads (an older format) is rebuilt.

    Parameters
    ----------
    cache_root
        As for :func:`demo_city_dir`.

    Returns
    -------
    TransportNetwork
        The demo city, ready to plan on and to serve.
    """
    from otpa.network import TransportNetwork, build_network

    directory = demo_city_dir(cache_root)
    graph = directory / "graph"
    if graph.exists():
        try:
            return TransportNetwork.load(graph)
        except OtpaError:
            graph.unlink()
    print(f"building the demo city network in {directory} ...", file=sys.stderr)
    network = build_network(directory)
    network.save(graph)
    return network
