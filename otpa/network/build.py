"""Build a :class:`TransportNetwork` from GTFS, OSM and elevation inputs."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from otpa._version import __version__
from otpa.errors import NetworkBuildError, OtpaWarning
from otpa.network._discover import BuildInputs, discover_inputs
from otpa.network._links import link_network
from otpa.network.config import BuildConfig, load_build_config
from otpa.network.transport_network import TransportNetwork, compute_convex_hull, now_ms
from otpa.transit.build import build_transit_model, empty_transit_model
from otpa.types import PathLike
from otpa.walkcomfort import (
    WALK_CONFIG_FILENAME,
    WalkComfort,
    WalkComfortConfigError,
    WalkComfortRules,
    load_walk_config,
)

__all__ = ["BuildReport", "build_network"]

Progress = Callable[[str], None]


@dataclass
class BuildReport:
    """What a build read, how long each step took, and what it warned about."""

    inputs: BuildInputs
    timings_s: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


class _Steps:
    def __init__(self, report: BuildReport, progress: Progress | None) -> None:
        self.report = report
        self.progress = progress
        self._t = time.perf_counter()
        self._name: str | None = None

    def start(self, name: str) -> None:
        self.stop()
        self._name, self._t = name, time.perf_counter()
        if self.progress is not None:
            self.progress(name)

    def stop(self) -> None:
        if self._name is not None:
            self.report.timings_s[self._name] = round(time.perf_counter() - self._t, 4)
            self._name = None


def _unique_feed_ids(feeds: list[Any], report: BuildReport) -> list[Any]:
    from dataclasses import replace

    seen: dict[str, int] = {}
    out = []
    for feed in feeds:
        fid = feed.feed_id
        if fid in seen:
            seen[fid] += 1
            new = f"{fid}_{seen[fid]}"
            report.warnings.append(f"duplicate feed id {fid!r} in {feed.path}: renamed to {new!r}")
            feed = replace(feed, feed_id=new)
        else:
            seen[fid] = 1
        out.append(feed)
    return out


def build_network(
    source: PathLike | None = None,
    *,
    gtfs: Sequence[PathLike] = (),
    osm: Sequence[PathLike] = (),
    elevation: Sequence[PathLike] = (),
    config: BuildConfig | None = None,
    progress: Progress | None = None,
) -> TransportNetwork:
    """Build a transport network.

    Parameters
    ----------
    source
        A directory whose GTFS (``*.zip`` or folders), OSM (``*.pbf``, ``*.osm``)
        and GeoTIFF (``*.tif``) files, plus an optional ``build-config.json``
        and ``walk-config.json`` (walk-comfort rules, :mod:`otpa.walkcomfort`),
        are all read.
    gtfs, osm, elevation
        Explicit input files, in addition to (or instead of) ``source``.
    config
        Build options; by default read from ``source/build-config.json``.
    progress
        Called with the name of each build step as it starts.

    Returns
    -------
    TransportNetwork
        The network; its ``meta["report"]`` holds timings and warnings.

    Raises
    ------
    otpa.errors.NetworkBuildError
        If there is nothing to build, or an input cannot be used.
    otpa.errors.GtfsError, otpa.errors.OsmError, otpa.errors.ElevationError
        If an input file is unusable.

    Examples
    --------
    >>> net = build_network("path/to/city")  # doctest: +SKIP
    >>> net.save("path/to/city/graph")  # doctest: +SKIP
    """
    inputs = discover_inputs(Path(source)) if source is not None else BuildInputs()
    inputs = BuildInputs(
        gtfs=[*inputs.gtfs, *map(Path, gtfs)],
        osm=[*inputs.osm, *map(Path, osm)],
        elevation=[*inputs.elevation, *map(Path, elevation)],
        config=inputs.config,
        skipped=inputs.skipped,
    )
    if not inputs.gtfs and not inputs.osm:
        msg = f"nothing to build: no GTFS feed and no OSM file found in {source}"
        raise NetworkBuildError(msg)
    if config is None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", OtpaWarning)
            config = load_build_config(inputs.config)
    else:
        caught = []
    report = BuildReport(inputs=inputs)
    report.warnings.extend(str(w.message) for w in caught)
    report.warnings.extend(f"{p.name}: skipped, {why}" for p, why in inputs.skipped)
    steps = _Steps(report, progress)
    walk_rules = _walk_rules(Path(source)) if source is not None else None
    return _build(inputs, config, report, steps, walk_rules)


def _walk_rules(source: Path) -> WalkComfortRules | None:
    """The rules of ``source/walk-config.json``, if there is one (unusable: NetworkBuildError)."""
    path = source / WALK_CONFIG_FILENAME
    if not path.is_file():
        return None
    try:
        return load_walk_config(path)
    except WalkComfortConfigError as exc:
        msg = f"{path}: {exc}"
        raise NetworkBuildError(msg) from None


def _build(
    inputs: BuildInputs,
    config: BuildConfig,
    report: BuildReport,
    steps: _Steps,
    walk_rules: WalkComfortRules | None = None,
) -> TransportNetwork:
    from otpa.gtfs import read_gtfs

    steps.start("read GTFS")
    feeds = [read_gtfs(p) for p in inputs.gtfs]
    feeds = _unique_feed_ids(feeds, report)
    gtfs_counts = {"stops": 0, "routes": 0, "trips": 0, "stop_times": 0}
    for feed in feeds:
        report.warnings.extend(f"{feed.feed_id}: {w.message}" for w in feed.report.warnings)
        report.warnings.extend(f"{feed.feed_id}: {e.message}" for e in feed.report.errors)
        gtfs_counts["stops"] += len(feed.stops)
        gtfs_counts["routes"] += len(feed.routes)
        gtfs_counts["trips"] += len(feed.trips)
        gtfs_counts["stop_times"] += len(feed.stop_times)

    steps.start("build transit model")
    transit = build_transit_model(feeds) if feeds else empty_transit_model()

    osm_data = None
    if inputs.osm:
        from otpa.osm import WALK_TAG_KEYS, read_osm

        steps.start("read OSM")
        keys = WALK_TAG_KEYS | (walk_rules.keys if walk_rules is not None else frozenset())
        osm_data = read_osm(inputs.osm, keep_tags=keys)
        report.warnings.extend(osm_data.warnings)
    links = link_network(
        transit,
        osm_data,
        inputs.elevation,
        config,
        start_step=steps.start,
        warn=report.warnings.append,
    )
    steps.stop()

    network = TransportNetwork(
        transit=transit,
        street=links.street,
        stop_vertex=links.stop_vertex,
        stop_link_distance_m=links.stop_link_distance_m,
        transfer_offsets=links.transfer_offsets,
        transfer_to=links.transfer_to,
        transfer_distance_m=links.transfer_distance_m,
        features=_features(osm_data),
        meta={},
        walk_comfort=(
            WalkComfort(osm_data.way_tags, walk_rules)
            if osm_data is not None and osm_data.way_tags is not None
            else None
        ),
    )
    lat, lon = network._coordinates()
    meta: dict[str, Any] = {
        "otpa_version": __version__,
        "build_time_ms": now_ms(),
        "time_zone": config.time_zone,
        "config": config.to_dict(),
        "inputs": [{"path": str(p), "name": p.name, "size": _size(p)} for p in inputs.all_files],
        "gtfs_counts": gtfs_counts,
        "elevation": links.elevation_meta,
        "bounds": [float(lon.min()), float(lat.min()), float(lon.max()), float(lat.max())]
        if lat.size
        else None,
        "convex_hull": compute_convex_hull(lat, lon) if lat.size else [],
        "timings_s": report.timings_s,
        "warnings": report.warnings[:10000],
        "n_warnings": len(report.warnings),
    }
    network.meta.update(meta)
    return network


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir() if p.is_file())
    return path.stat().st_size


def _features(osm_data: Any) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {
        "park_and_ride": [],
        "bike_parking": [],
        "bike_rental": [],
    }
    if osm_data is None:
        return out
    for kind in out:
        for f in getattr(osm_data, kind):
            out[kind].append(
                {
                    "osm_id": int(f.osm_id),
                    "osm_type": f.osm_type,
                    "lat": float(f.lat),
                    "lon": float(f.lon),
                    "name": f.name,
                    "tags": dict(f.tags),
                }
            )
    return out
