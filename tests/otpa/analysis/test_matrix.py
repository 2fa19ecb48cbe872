"""Travel-time matrices: the Porto Alegre hexgrid, the dask path, bad input."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import dask
import dask.array as da
import numpy as np
import pandas as pd
import pytest

import otpa
from otpa.analysis import AnalysisRequest, PointSet, compute_time_surface, travel_time_matrix
from otpa.network import TransportNetwork
from otpa.routing import Location
from otpa.util.geo import haversine_m
from tests.fixtures.networks import built_network

POA_DEPARTURE = dt.datetime(2019, 5, 13, 14, 0)
ATL_DEPARTURE = dt.datetime(2021, 9, 15, 8, 0)


@pytest.fixture(scope="module")
def poa(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "small/porto-alegre")


@pytest.fixture(scope="module")
def hexgrid(data_root: Path) -> PointSet:
    return PointSet.from_csv(data_root / "small" / "porto-alegre" / "poa_hexgrid.csv")


@pytest.fixture(scope="module")
def atlanta(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def atlanta_points() -> PointSet:
    lat, lon = np.meshgrid(np.linspace(33.73, 33.77, 6), np.linspace(-84.43, -84.36, 6))
    frame = pd.DataFrame({"lat": lat.ravel(), "lon": lon.ravel(), "jobs": np.arange(36) * 10})
    return PointSet.from_frame(frame)


@pytest.mark.slow
def test_full_porto_alegre_hexgrid_matrix_is_plausible(
    poa: TransportNetwork, hexgrid: PointSet
) -> None:
    ttm = travel_time_matrix(poa, hexgrid, departure=POA_DEPARTURE)
    n = len(hexgrid)
    assert ttm.dims == ("origin", "destination", "percentile")
    assert ttm.shape == (n, n, 1)
    assert ttm.attrs["units"] == "s"
    t = ttm.sel(percentile=50).to_numpy()
    # a handful of hexagons lie over 1 km from any street: no links, NaN rows
    linked = ~np.isnan(t).all(axis=1)
    assert linked.sum() >= n - 8
    # every other hexagon reaches itself at once
    assert np.all(np.diag(t)[linked] == 0)
    # 120 minutes by bus cover most of the city
    assert np.mean(~np.isnan(t)) > 0.85
    # nothing moves faster than a train (100 km/h) as the crow flies...
    lat, lon = hexgrid.lat, hexgrid.lon
    d = haversine_m(lat[:, None], lon[:, None], lat[None], lon[None])
    ok = ~np.isnan(t)
    assert np.all(t[ok] >= d[ok] / (100 / 3.6) - 1)
    # ...and transit beats walking (3.6 km/h) for far pairs
    far = ok & (d > 5000)
    assert np.median(t[far] / (d[far] / 1.0)) < 0.6
    # rows agree with single-origin surfaces
    for i in (0, n // 2):
        here = (float(hexgrid.lat[i]), float(hexgrid.lon[i]))
        ds = compute_time_surface(poa, here, POA_DEPARTURE, target=hexgrid)
        np.testing.assert_array_equal(ds.travel_time.sel(percentile=50).to_numpy(), t[i])


def _count_network_loads() -> None:
    """On a worker: count networks unpickled there (they arrive via ``from_bytes``)."""
    from otpa.network import TransportNetwork as Net

    original = Net.from_bytes.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Net], data: bytes, *, verify: bool = True) -> Net:
        counting.n += 1  # type: ignore[attr-defined]
        return original(cls, data, verify=verify)  # type: ignore[no-any-return]

    counting.n = 0  # type: ignore[attr-defined]
    Net.from_bytes = classmethod(counting)  # type: ignore[assignment,method-assign]


def _network_loads() -> int:
    from otpa.network import TransportNetwork as Net

    return int(Net.from_bytes.n)  # type: ignore[attr-defined]


def test_dask_chunks_equal_in_memory_on_a_local_cluster(
    atlanta: TransportNetwork, atlanta_points: PointSet, tmp_path: Path
) -> None:
    from distributed import Client, LocalCluster

    kw = {"window": 600, "step": 120, "percentiles": (10, 50, 90), "max_time": 3600}
    eager = travel_time_matrix(atlanta, atlanta_points, departure=ATL_DEPARTURE, **kw)
    lazy = travel_time_matrix(atlanta, atlanta_points, departure=ATL_DEPARTURE, chunks=8, **kw)
    assert isinstance(lazy.data, da.Array)
    assert lazy.data.numblocks[0] == 5  # 36 origins in chunks of 8
    graph = atlanta.save(tmp_path / "atlanta.graph", compress=False)  # exact arrays
    by_path = travel_time_matrix(graph, atlanta_points, departure=ATL_DEPARTURE, chunks=8, **kw)
    # every task assigned when submitted, none moved later: a worker then keeps the network
    # while its tasks run (with queued or stolen tasks, a worker that has released its copy
    # may be given one more task and fetch it again, as seen once on a loaded machine)
    fixed = {
        "distributed.scheduler.work-stealing": False,
        "distributed.scheduler.worker-saturation": float("inf"),
    }
    with (
        dask.config.set(fixed),
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(_count_network_loads)
        computed = lazy.compute()
        # 5 tasks on 2 workers: the network travels once to each worker, not with each task
        loads = client.run(_network_loads)
        from_file = by_path.compute()  # each worker opens the saved graph itself
        loads_after = client.run(_network_loads)
    assert len(loads) == 2
    assert 1 <= sum(loads.values()) <= 2
    assert max(loads.values()) == 1
    assert loads_after == loads
    np.testing.assert_array_equal(computed.to_numpy(), eager.to_numpy())
    np.testing.assert_array_equal(from_file.to_numpy(), eager.to_numpy())
    assert list(computed.origin.values) == list(atlanta_points.ids)
    assert np.isfinite(eager.to_numpy()).sum() > 36 * 36  # most pairs reached (x3 pct)


def test_origins_off_the_network_give_nan_rows(
    atlanta: TransportNetwork, atlanta_points: PointSet
) -> None:
    frame = atlanta_points.to_frame().reset_index()
    frame.loc[0, ["lat", "lon"]] = [10.0, 10.0]
    pts = PointSet.from_frame(frame)
    ttm = travel_time_matrix(atlanta, pts, atlanta_points, ATL_DEPARTURE, max_time=1800)
    t = ttm.to_numpy()
    assert np.isnan(t[0]).all()
    assert not np.isnan(t[1:]).all()


def test_bad_matrix_arguments(atlanta: TransportNetwork, atlanta_points: PointSet) -> None:
    with pytest.raises(ValueError, match="chunks"):
        travel_time_matrix(atlanta, atlanta_points, departure=ATL_DEPARTURE, chunks=0)
    with pytest.raises(TypeError, match="unknown analysis option"):
        travel_time_matrix(atlanta, atlanta_points, departure=ATL_DEPARTURE, max_trip=10)


#: Beatty (Nevada): from the town to a point 14 m along a 6.2 km desert road, whose
#: whole length is far past the 10-minute limit.
BEATTY_FROM = (36.87828, -116.82100)
BEATTY_TO = (36.881076, -116.817751)


def test_a_walk_takes_as_long_as_the_plans_walk(data_root: Path) -> None:
    """A matrix cell's walk is the plan's WALK itinerary: its lowest-weight path's time,
    the limit applied to that time (a point partway along an edge longer than the limit
    is read too, as the planner finds it)."""
    net = built_network(data_root, "tiny/beatty")
    when = dt.datetime(2021, 9, 15, 8, 0)
    request = AnalysisRequest(departure=when, modes="WALK", max_time_s=600, walk_connectors=False)
    lat, lon = zip(BEATTY_FROM, BEATTY_TO, strict=True)
    points = PointSet.from_frame(pd.DataFrame({"lat": lat, "lon": lon}))
    ttm = travel_time_matrix(net, points, request=request).sel(percentile=50).to_numpy()
    here, there = (Location(lat=p[0], lon=p[1]) for p in (BEATTY_FROM, BEATTY_TO))
    plan = otpa.plan(net, request.plan_request(here, there))
    walk = plan.itineraries[0]
    assert [leg.mode for leg in walk.legs] == ["WALK"]
    duration = (walk.end_time - walk.start_time).total_seconds()
    assert duration == 431.0
    assert ttm[0, 1] == duration
    assert ttm[0, 0] == 0.0
