"""``/otp/surfaces``: create, list, indicator, isochrones, raster, iso and difference tiles.

The surface's own travel times are read through ``/timegrid`` with the same query (same
grid, same request; the off-road limit of 1 km removes nothing the surface can reach), so
expectations are computed from HTTP outputs with plain arithmetic.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
import shapely
from _analyst_helpers import (
    ATL_QUERY,
    FIVE_POINTS,
    analyst_server,
    atl_query,
    get,
    pixel_lon_lat,
    post,
    rgba,
    tile_of,
)
from _fakes import Service
from rasterio.io import MemoryFile
from rasterio.warp import transform_bounds

from otpa.analysis.otp1.render import color_table
from otpa.analysis.otp1.timegrid import TimeGrid, decode_timegrid
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.http

CUTOFF_MIN = 40
UNREACHABLE = 2_147_483_647  # Java's Integer.MAX_VALUE, OTP 1.x's unreachable time
Z = 14


def _places_frame() -> pd.DataFrame:
    """600 random places with opportunities over central Atlanta (the ``places`` point set)."""
    rng = np.random.default_rng(21)
    n = 600
    return pd.DataFrame(
        {
            "id": [f"q{i}" for i in range(n)],
            "lat": rng.uniform(33.70, 33.80, n),
            "lon": rng.uniform(-84.47, -84.33, n),
            "jobs": rng.integers(0, 1000, n),
            "clinics": rng.integers(0, 2, n),
        }
    )


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    require_data("tiny", "atlanta")
    network = built_network(DATA_ROOT, "tiny/atlanta")
    folder = tmp_path_factory.mktemp("pointsets")
    _places_frame().to_csv(folder / "places.csv", index=False)
    with analyst_server(
        {"atlanta": network, "atlanta2": network}, pointsets_dir=folder, max_surfaces=5
    ) as service:
        yield service


def _create(svc: Service, query: str, router: str = "atlanta", cutoff: int = CUTOFF_MIN) -> int:
    resp = post(svc, f"/otp/surfaces?{query}&routerId={router}&cutoffMinutes={cutoff}")
    body = resp.json()
    assert body["params"]["cutoffMinutes"] == str(cutoff)
    assert body["params"]["routerId"] == router
    return int(body["id"])


@pytest.fixture(scope="module")
def surface_id(svc: Service) -> int:
    return _create(svc, ATL_QUERY)


@pytest.fixture(scope="module")
def times(svc: Service) -> TimeGrid:
    """The surface's travel times and grid, through /timegrid with the same query."""
    path = f"/otp/routers/atlanta/timegrid?{ATL_QUERY}&maxTimeSec={CUTOFF_MIN * 60}"
    return decode_timegrid(get(svc, f"{path}&offRoadDistanceMeters=1000").body)


def test_create_list_and_describe(svc: Service, surface_id: int) -> None:
    listed = get(svc, "/otp/surfaces").json()
    assert surface_id in [s["id"] for s in listed]
    one = get(svc, f"/otp/surfaces/{surface_id}").json()
    assert one["id"] == surface_id
    assert one["params"]["fromPlace"] == "33.7539,-84.3916"
    assert one["params"]["mode"] == "WALK,TRANSIT"
    get(svc, "/otp/surfaces/987654", 404)
    get(svc, "/otp/surfaces/abc", 404)


def test_create_refusals(svc: Service) -> None:
    post(svc, f"/otp/surfaces?{ATL_QUERY}&routerId=nowhere", status=404)
    body = post(svc, f"/otp/surfaces?{ATL_QUERY}&cutoffMinutes=100000", status=400).json()
    assert "cutoffMinutes" in body["message"]
    tiny = f"/otp/surfaces?{ATL_QUERY}&routerId=atlanta&cutoffMinutes=240&precisionMeters=10"
    assert "precisionMeters" in post(svc, tiny, status=400).json()["message"]
    no_origin = f"/otp/surfaces?{atl_query(fromPlace=None)}&routerId=atlanta"
    assert "fromPlace" in post(svc, no_origin, status=400).json()["message"]
    assert "zoom" in post(svc, f"/otp/surfaces?{ATL_QUERY}&zoom=15", status=400).json()["message"]


def test_web_mercator_surfaces(svc: Service) -> None:
    sid = _create(svc, f"{ATL_QUERY}&zoom=11", cutoff=20)
    pixel = 2 * 20037508.342789244 / (256 * 2**11)
    tif = get(svc, f"/otp/surfaces/{sid}/raster?crs=EPSG:3857&resolution={pixel!r}")
    with MemoryFile(tif.body) as memfile, memfile.open() as dataset:
        # zoom 11 pixels: the raster's edges lie on the global pixel lattice
        columns = (dataset.bounds.left + 20037508.342789244) / pixel
        rows = (20037508.342789244 - dataset.bounds.top) / pixel
        assert columns == pytest.approx(round(columns), abs=1e-6)
        assert rows == pytest.approx(round(rows), abs=1e-6)
        assert (dataset.read(1) != 128).any()


def test_store_is_bounded_lru(svc: Service, surface_id: int) -> None:
    get(svc, f"/otp/surfaces/{surface_id}")  # recently used: survives
    made = [_create(svc, ATL_QUERY, cutoff=10) for _ in range(4)]
    ids = [s["id"] for s in get(svc, "/otp/surfaces").json()]
    assert len(ids) == 5
    assert surface_id in ids
    assert made[-1] in ids
    assert made == sorted(made)


def _cell_time(times: TimeGrid, lat: float, lon: float) -> float:
    """Seconds of the grid cell holding a point (NaN: outside or unreachable)."""
    grid = times.grid
    c = math.floor((lon - (grid.x0 - grid.dx / 2)) / grid.dx)
    r = math.floor((lat - (grid.y0 - grid.dy / 2)) / grid.dy)
    if not (0 <= r < grid.ny and 0 <= c < grid.nx):
        return math.nan
    return float(times.travel_time[r, c])


def _expected_times(times: TimeGrid, places: pd.DataFrame) -> list[int]:
    cells = [_cell_time(times, row.lat, row.lon) for row in places.itertuples()]
    return [UNREACHABLE if math.isnan(t) else round(t) for t in cells]


def _expected_histograms(times: TimeGrid, places: pd.DataFrame) -> dict[str, tuple[list, list]]:
    grid = times.grid
    counts: dict[int, int] = defaultdict(int)
    sums: dict[str, dict[int, float]] = {"jobs": defaultdict(float), "clinics": defaultdict(float)}
    for row in places.itertuples():
        c = math.floor((row.lon - (grid.x0 - grid.dx / 2)) / grid.dx)
        r = math.floor((row.lat - (grid.y0 - grid.dy / 2)) / grid.dy)
        if not (0 <= r < grid.ny and 0 <= c < grid.nx) or math.isnan(times.travel_time[r, c]):
            continue
        minute = int(times.travel_time[r, c] // 60)
        counts[minute] += 1
        sums["jobs"][minute] += row.jobs
        sums["clinics"][minute] += row.clinics
    n = max(counts) + 1
    return {k: ([counts[m] for m in range(n)], [v[m] for m in range(n)]) for k, v in sums.items()}


def test_indicator_counts_opportunities_per_minute(
    svc: Service, surface_id: int, times: TimeGrid
) -> None:
    body = get(svc, f"/otp/surfaces/{surface_id}/indicator?targets=places&detail=true").json()
    assert body["properties"]["id"] == f"places_{surface_id}"
    frame = _places_frame()
    expected = _expected_histograms(times, frame)
    assert set(body["data"]) == {"jobs", "clinics"}
    for column, (counts, sums) in expected.items():
        assert body["data"][column]["counts"] == counts
        assert body["data"][column]["sums"] == sums
    assert sum(expected["jobs"][0]) > 30
    # OTP's point-set times: seconds, Integer.MAX_VALUE (not -1) where unreachable
    assert body["times"] == _expected_times(times, frame)
    reached = [t for t in body["times"] if t != UNREACHABLE]
    assert len(reached) == sum(expected["jobs"][0])
    assert 0 < len(reached) < len(frame)
    assert min(body["times"]) >= 0
    assert max(reached) <= CUTOFF_MIN * 60


def test_indicator_refusals(svc: Service, surface_id: int) -> None:
    get(svc, f"/otp/surfaces/{surface_id}/indicator?targets=nothing", 404)
    assert "targets" in get(svc, f"/otp/surfaces/{surface_id}/indicator", 400).json()["message"]
    get(svc, "/otp/surfaces/987654/indicator?targets=places", 404)


def test_surface_isochrones(svc: Service, surface_id: int, times: TimeGrid) -> None:
    body = get(svc, f"/otp/surfaces/{surface_id}/isochrone?spacing=10&nMax=4").json()
    features = body["features"]
    assert [f["properties"]["time"] for f in features] == [600, 1200, 1800, 2400]
    shapes = [shapely.geometry.shape(f["geometry"]) for f in features]
    origin = shapely.Point(FIVE_POINTS[1], FIVE_POINTS[0])
    assert all(s.contains(origin) for s in shapes)
    for smaller, larger in itertools.pairwise(shapes):
        assert larger.buffer(1e-9).contains(smaller)
    # every cell reached within 10 minutes lies in the 10-minute isochrone
    grid = times.grid
    lat, lon = grid.points()
    quick = np.flatnonzero(times.travel_time.ravel() <= 600)
    assert quick.size > 0
    assert all(shapes[0].buffer(1e-9).contains(shapely.Point(lon[i], lat[i])) for i in quick)
    default = get(svc, f"/otp/surfaces/{surface_id}/isochrone").json()
    assert [f["properties"]["time"] for f in default["features"]] == [1800]
    many = get(svc, f"/otp/surfaces/{surface_id}/isochrone?nMax=50", 400)
    assert "nMax" in many.json()["message"]


def test_raster_is_a_geotiff_of_the_surface(svc: Service, surface_id: int, times: TimeGrid) -> None:
    grid = times.grid
    reached = times.travel_time[np.isfinite(times.travel_time)]
    # OTP's raster: one byte of whole minutes, 128 where unreachable
    resp = get(svc, f"/otp/surfaces/{surface_id}/raster?width=300&height=120")
    assert resp.header("Content-Type").startswith("image/tiff")
    with MemoryFile(resp.body) as memfile, memfile.open() as dataset:
        assert dataset.crs.to_string() == "EPSG:4326"
        assert (dataset.width, dataset.height) == (300, 120)
        assert tuple(dataset.bounds) == pytest.approx(grid.edges, abs=1e-7)
        assert dataset.dtypes == ("uint8",)
        assert dataset.nodata == 128
        minutes = dataset.read(1)
    assert (minutes == 128).any()
    assert np.isin(minutes[minutes != 128], np.trunc(reached / 60)).all()
    # the float32 seconds on request, the same pixels
    resp = get(svc, f"/otp/surfaces/{surface_id}/raster?width=300&height=120&units=seconds")
    with MemoryFile(resp.body) as memfile, memfile.open() as dataset:
        assert tuple(dataset.bounds) == pytest.approx(grid.edges, abs=1e-7)
        band = dataset.read(1)
    finite = band[np.isfinite(band)]
    assert finite.size > 0
    assert np.isin(finite, reached).all()
    assert np.array_equal(np.isfinite(band), minutes != 128)
    assert np.array_equal(np.trunc(finite / 60), minutes[minutes != 128])
    merc = get(svc, f"/otp/surfaces/{surface_id}/raster?crs=EPSG:3857&resolution=100&units=seconds")
    with MemoryFile(merc.body) as memfile, memfile.open() as dataset:
        assert dataset.crs.to_string() == "EPSG:3857"
        want = transform_bounds("EPSG:4326", "EPSG:3857", *grid.edges, densify_pts=21)
        assert dataset.bounds.left == pytest.approx(want[0], abs=1e-3)
        assert dataset.bounds.top == pytest.approx(want[3], abs=1e-3)
        assert dataset.res == pytest.approx((100.0, 100.0))
    for extra, needle in (
        ("crs=EPSG:999999", "crs"),
        ("width=100000&height=100000", "width"),
        ("format=image/png", "image format"),
        ("resolution=-3", "resolution"),
        ("units=hours", "units"),
    ):
        refused = get(svc, f"/otp/surfaces/{surface_id}/raster?{extra}", 400)
        assert needle in refused.json()["message"]


def test_isotiles_colour_reachable_pixels(svc: Service, surface_id: int, times: TimeGrid) -> None:
    z = 12  # a tile reaching past the streets of the data set
    x, y = tile_of(*FIVE_POINTS, z)
    image = rgba(get(svc, f"/otp/surfaces/{surface_id}/isotiles/{z}/{x}/{y}.png").body)
    assert image.shape == (256, 256, 4)
    lon, lat = pixel_lon_lat(z, x, y)
    grid = times.grid
    cols = np.floor((lon - (grid.x0 - grid.dx / 2)) / grid.dx).astype(int)
    rows = np.floor((lat - (grid.y0 - grid.dy / 2)) / grid.dy).astype(int)
    inside = (rows[:, None] >= 0) & (rows[:, None] < grid.ny) & (cols >= 0) & (cols < grid.nx)
    safe_rows = np.clip(rows, 0, grid.ny - 1)[:, None]
    safe_cols = np.clip(cols, 0, grid.nx - 1)
    values = np.where(inside, times.travel_time[safe_rows, safe_cols], np.nan)
    reachable = np.isfinite(values)
    assert 0.2 < reachable.mean() < 1.0
    assert (image[reachable, 3] > 0).all()
    assert (image[~reachable, 3] == 0).all()
    minutes = np.clip(np.nan_to_num(values) // 60, 0, 120).astype(int)
    table = color_table("COLOR30")
    assert np.array_equal(image[reachable], table[minutes[reachable]])
    far = rgba(get(svc, f"/otp/surfaces/{surface_id}/isotiles/10/0/0.png").body)
    assert (far[..., 3] == 0).all()
    deep = get(svc, f"/otp/surfaces/{surface_id}/isotiles/23/0/0.png", 400)
    assert "z=" in deep.json()["message"]
    get(svc, f"/otp/surfaces/{surface_id}/isotiles/3/9/0.png", 400)
    get(svc, f"/otp/surfaces/987654/isotiles/{Z}/{x}/{y}.png", 404)


def test_difference_tiles(svc: Service, surface_id: int) -> None:
    x, y = tile_of(*FIVE_POINTS, Z)

    def tile(first: int, second: int) -> np.ndarray:
        path = f"/otp/surfaces/{first}/differencetiles/{second}/{Z}/{x}/{y}.png"
        return rgba(get(svc, path).body)

    same = tile(surface_id, surface_id)
    assert same.shape == (256, 256, 4)
    # where the surface reaches (coloured iso tile), the difference is 0: DIFFERENCE's
    # "no difference" is transparent, like unreachable places
    reached = rgba(get(svc, f"/otp/surfaces/{surface_id}/isotiles/{Z}/{x}/{y}.png").body)
    assert (reached[..., 3] > 0).sum() > 10_000
    assert (same[..., 3] == 0).all()
    # the same query on another router (the same network) differs nowhere either
    other_router = _create(svc, ATL_QUERY, router="atlanta2")
    twin = tile(surface_id, other_router)
    assert (twin[..., 3] == 0).all()
    # a later departure waits longer for trains: some places differ, in DIFFERENCE colours
    later = _create(svc, atl_query(time="8:07am"))
    diff = tile(later, surface_id)
    coloured = diff[..., 3] > 0
    assert coloured.any()
    table = color_table("DIFFERENCE")
    palette = {tuple(c) for c in table}
    assert {tuple(p) for p in diff[coloured]} <= palette
    get(svc, f"/otp/surfaces/{surface_id}/differencetiles/987654/{Z}/{x}/{y}.png", 404)
