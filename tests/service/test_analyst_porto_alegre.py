"""End to end on Porto Alegre (two feeds, 2019-05-13 14:00): isochrones, a stored surface and
its jobs indicator over the hexagon grid r5r ships, checked against the surface's timegrid.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import shapely
from _analyst_helpers import analyst_server, get, post
from _fakes import Service

from otpa.analysis.otp1.timegrid import decode_timegrid
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

pytestmark = [pytest.mark.http, pytest.mark.slow]

PUBLIC_MARKET = (-30.027565, -51.227811)
QUERY = (
    f"fromPlace={PUBLIC_MARKET[0]},{PUBLIC_MARKET[1]}&date=2019-05-13&time=2:00pm&mode=WALK,TRANSIT"
)


@pytest.fixture(scope="module")
def hexgrid() -> Path:
    return require_data("small", "porto-alegre", "poa_hexgrid.csv")


@pytest.fixture(scope="module")
def svc(hexgrid: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    folder = tmp_path_factory.mktemp("poa-pointsets")
    (folder / "hexgrid.csv").symlink_to(hexgrid)
    network = built_network(DATA_ROOT, "small/porto-alegre")
    with analyst_server({"poa": network}, pointsets_dir=folder) as service:
        yield service


def test_isochrones_around_the_public_market(svc: Service) -> None:
    cutoffs = "&cutoffSec=900&cutoffSec=1800&cutoffSec=2700"
    body = get(svc, f"/otp/routers/poa/isochrone?{QUERY}{cutoffs}").json()
    shapes = [shapely.geometry.shape(f["geometry"]) for f in body["features"]]
    assert [f["properties"]["time"] for f in body["features"]] == [900, 1800, 2700]
    market = shapely.Point(PUBLIC_MARKET[1], PUBLIC_MARKET[0])
    for shape in shapes:
        assert shape.is_valid
        assert shape.contains(market)
    for smaller, larger in itertools.pairwise(shapes):
        assert larger.buffer(1e-9).contains(smaller)
        assert larger.area > 1.5 * smaller.area


def test_surface_indicator_counts_the_hexagons_jobs(svc: Service, hexgrid: Path) -> None:
    created = post(svc, f"/otp/surfaces?{QUERY}&routerId=poa&cutoffMinutes=45").json()
    sid = created["id"]
    body = get(svc, f"/otp/surfaces/{sid}/indicator?targets=hexgrid").json()
    assert set(body["data"]) == {"population", "schools", "jobs", "healthcare"}
    # the same query's timegrid holds the surface's times (same grid, same request)
    times = decode_timegrid(
        get(
            svc, f"/otp/routers/poa/timegrid?{QUERY}&maxTimeSec=2700&offRoadDistanceMeters=1000"
        ).body
    )
    grid = times.grid
    hexes = pd.read_csv(hexgrid, dtype={"id": str})
    counts: dict[int, int] = defaultdict(int)
    jobs: dict[int, float] = defaultdict(float)
    for row in hexes.itertuples():
        c = math.floor((row.lon - (grid.x0 - grid.dx / 2)) / grid.dx)
        r = math.floor((row.lat - (grid.y0 - grid.dy / 2)) / grid.dy)
        if 0 <= r < grid.ny and 0 <= c < grid.nx and np.isfinite(times.travel_time[r, c]):
            minute = int(times.travel_time[r, c] // 60)
            counts[minute] += 1
            jobs[minute] += 0.0 if math.isnan(row.jobs) else row.jobs  # missing: none
    n = max(counts) + 1
    assert body["data"]["jobs"]["counts"] == [counts[m] for m in range(n)]
    assert body["data"]["jobs"]["sums"] == [jobs[m] for m in range(n)]
    assert n <= 45
    reached_jobs = sum(body["data"]["jobs"]["sums"])
    # downtown Porto Alegre: a large share of the city's jobs within 45 minutes, not all
    assert 0.2 * hexes["jobs"].sum() < reached_jobs < hexes["jobs"].sum()  # NaN skipped
    within_15 = sum(body["data"]["jobs"]["sums"][:15])
    assert 0 < within_15 < reached_jobs
    iso = get(svc, f"/otp/surfaces/{sid}/isochrone?spacing=15&nMax=3").json()
    assert [f["properties"]["time"] for f in iso["features"]] == [900, 1800, 2700]
