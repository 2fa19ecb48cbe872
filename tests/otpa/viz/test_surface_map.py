"""Maps of analysis results: colour scales, styled GeoJSON layers and the ipyleaflet maps.

Everything is checked on the Python side (layers, feature styles, legend, view); no
browser is needed.
"""

from __future__ import annotations

import math
from pathlib import Path

import ipyleaflet
import numpy as np
import pandas as pd
import pytest
import shapely
import xarray as xr

from otpa.analysis import Grid, PointSet, isochrones, travel_time_difference
from otpa.analysis._layout import surface_dataset
from otpa.network import TransportNetwork, build_network
from otpa.testing.demo import write_demo_city
from otpa.viz.colors import PALETTES, ColorScale, palette, travel_time_scale
from otpa.viz.result_geojson import (
    cell_polygons,
    isochrone_geojson,
    surface_geojson,
    values_geojson,
)
from otpa.viz.surface_map import choropleth_map, difference_map, isochrone_map, surface_map

VIRIDIS_4 = ("#440154", "#31678d", "#39b777", "#fde725")
M_PER_DEG = 111_195.0


# -- helpers ---------------------------------------------------------------------------------------
def _grid_surface(times: list[list[float]], *, crs: str = "EPSG:4326") -> xr.Dataset:
    """A 1-percentile surface on a small grid near Porto Alegre; rows go south to north."""
    values = np.asarray(times, dtype=np.float64)
    ny, nx = values.shape
    grid = Grid.from_bounds(-51.23, -30.03, -51.23 + 0.002 * nx, -30.03 + 0.002 * ny,
                            cell_size_deg=0.002, crs=crs)  # fmt: skip
    assert grid.shape == (ny, nx)
    attrs = {"origin_lat": -30.029, "origin_lon": -51.229}
    return surface_dataset(grid, values.reshape(1, -1), [50], attrs=attrs)


def _radial_surface() -> xr.Dataset:
    """Walking at 1 m/s in straight lines from the middle of a 2.2 km square grid."""
    grid = Grid.around(-30.03, -51.23, 1100, cell_size_m=100)
    lat, lon = grid.points()
    dist = np.hypot((lat + 30.03) * M_PER_DEG, (lon + 51.23) * M_PER_DEG * math.cos(0.524))
    return surface_dataset(
        grid, dist[None, :], [50], attrs={"origin_lat": -30.03, "origin_lon": -51.23}
    )


def _points(n_side: int = 4, spacing_m: float = 300.0) -> PointSet:
    lat0, lon0 = -30.03, -51.23
    kx = M_PER_DEG * math.cos(math.radians(lat0))
    rows = [
        {"id": f"p{r}{c}", "lat": lat0 + r * spacing_m / M_PER_DEG,
         "lon": lon0 + c * spacing_m / kx, "jobs": 100 * (r * n_side + c)}
        for r in range(n_side) for c in range(n_side)
    ]  # fmt: skip
    return PointSet.from_frame(pd.DataFrame(rows), name="test points")


def _metres(ring: list[list[float]], lat0: float) -> shapely.Polygon:
    kx = M_PER_DEG * math.cos(math.radians(lat0))
    return shapely.Polygon([(x * kx, y * M_PER_DEG) for x, y in ring])


def _fill(feature: dict[str, object]) -> str:
    props = feature["properties"]
    assert isinstance(props, dict)
    return str(props["style"]["fillColor"])


@pytest.fixture(scope="module")
def demo_network(tmp_path_factory: pytest.TempPathFactory) -> TransportNetwork:
    city = write_demo_city(Path(tmp_path_factory.mktemp("demo")))
    return build_network(city.directory)


# -- colours ---------------------------------------------------------------------------------------
def test_palette_ends_interpolation_and_reverse() -> None:
    assert palette("viridis", 2) == ("#440154", "#fde725")
    assert palette("viridis", 11) == PALETTES["viridis"]  # the anchors themselves
    assert palette("viridis", 4) == VIRIDIS_4
    assert palette("viridis", 4, reverse=True) == VIRIDIS_4[::-1]
    assert palette("rdbu", 1) == ("#f7f7f7",)  # one colour: the middle
    with pytest.raises(ValueError, match="unknown palette 'jet'"):
        palette("jet", 3)
    with pytest.raises(ValueError, match="at least one colour"):
        palette("viridis", 0)


def test_travel_time_scale_classes_known_values() -> None:
    scale = travel_time_scale()
    assert scale.labels == ("0–15 min", "15–30 min", "30–45 min", "45–60 min")
    assert scale.colors == VIRIDIS_4
    assert scale.legend == dict(zip(scale.labels, VIRIDIS_4, strict=True))
    # upper edges belong to their class; 0 to the first; beyond the last cutoff is blank
    values = [0, 1, 900, 901, 1800, 2700, 3599, 3600, 3601, np.nan, -5]
    assert scale.classes(values).tolist() == [0, 0, 0, 1, 1, 2, 3, 3, -1, -1, -1]
    assert scale.color(900) == "#440154"
    assert scale.color(901) == "#31678d"
    assert scale.color(3600) == "#fde725"
    assert scale.color(3601) is None
    assert scale.color(float("nan")) is None


def test_clipped_scale_colours_out_of_range_values_with_the_end_classes() -> None:
    scale = ColorScale.from_bounds([0, 10, 20], "ylorrd")
    assert scale.colors == ("#ffffcc", "#800026")
    assert scale.classes([-1, 25, np.nan]).tolist() == [0, 1, -1]
    assert scale.labels == ("0–10", "10–20")


def test_diverging_scale_is_symmetric_with_a_neutral_middle() -> None:
    scale = ColorScale.diverging(600, 5, unit=" min", factor=60)
    assert scale.bounds == (-600.0, -360.0, -120.0, 120.0, 360.0, 600.0)
    assert scale.labels[0] == "−10 to −6 min"
    assert scale.labels[2] == "−2 to 2 min"
    assert scale.color(0) == "#f7f7f7"
    assert scale.color(-600) == "#67001f"  # red: lower
    assert scale.color(10_000) == "#053061"  # clipped to the blue end
    flipped = ColorScale.diverging(600, 5, reverse=True)
    assert flipped.color(-600) == "#053061"
    with pytest.raises(ValueError, match="positive"):
        ColorScale.diverging(0)


def test_quantile_scale_rounds_edges_and_spans_the_data() -> None:
    values = np.concatenate([np.zeros(50), np.arange(1, 1001), [np.nan]])
    scale = ColorScale.quantiles(values, 4, title="jobs")
    assert scale.bounds[0] == 0
    assert scale.bounds[-1] == 1000
    assert all(len(str(int(b)).rstrip("0")) <= 2 for b in scale.bounds[1:-1])
    assert scale.title == "jobs"
    assert scale.color(1000) == PALETTES["ylorrd"][-1]


def test_bad_scales_raise() -> None:
    with pytest.raises(ValueError, match="increasing"):
        ColorScale((1.0, 1.0), ("#000",), ("a",))
    with pytest.raises(ValueError, match="as many colors"):
        ColorScale((0.0, 1.0, 2.0), ("#000",), ("a", "b"))
    with pytest.raises(ValueError, match="no finite values"):
        ColorScale.quantiles([np.nan])


# -- GeoJSON layers --------------------------------------------------------------------------------
def test_grid_surface_cells_keep_their_class_colour() -> None:
    ds = _grid_surface([[300, 1000, np.nan], [2000, 3000, 4000]])
    data = surface_geojson(ds, dissolve=False)
    by_cell = {(f["properties"]["row"], f["properties"]["col"]): f for f in data["features"]}
    # NaN and beyond 60 minutes are not drawn
    assert set(by_cell) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert [_fill(by_cell[k]) for k in sorted(by_cell)] == [
        "#440154", "#31678d", "#39b777", "#fde725",
    ]  # fmt: skip
    # each square is the cell around its centre
    lat, lon = ds["lat"].values, ds["lon"].values
    for (r, c), f in by_cell.items():
        box = shapely.geometry.shape(f["geometry"])
        assert box.contains(shapely.Point(lon[r, c], lat[r, c]))
        assert box.area == pytest.approx(0.002**2, rel=1e-3)
        assert f["properties"]["value"] == ds["travel_time"].values[0, r, c]


def test_dissolved_grid_surface_has_one_feature_per_class() -> None:
    ds = _grid_surface([[300, 400, 1000], [500, 1200, 5000]])
    data = surface_geojson(ds)
    assert [f["properties"]["label"] for f in data["features"]] == ["0–15 min", "15–30 min"]
    first = shapely.geometry.shape(data["features"][0]["geometry"])
    assert first.area == pytest.approx(3 * 0.002**2, rel=1e-3)  # three cells, merged
    assert first.geom_type == "Polygon"


def test_web_mercator_grid_cells_are_in_degrees() -> None:
    grid = Grid.around(-30.03, -51.23, 400, cell_size_m=200, crs="EPSG:3857")
    ds = surface_dataset(grid, np.full((1, grid.n_cells), 60.0), [50], attrs={})
    data = surface_geojson(ds, dissolve=False)
    assert len(data["features"]) == grid.n_cells
    lat, lon = ds["lat"].values, ds["lon"].values
    for f in data["features"]:
        r, c = f["properties"]["row"], f["properties"]["col"]
        assert shapely.geometry.shape(f["geometry"]).contains(shapely.Point(lon[r, c], lat[r, c]))


def test_percentile_selection() -> None:
    grid = Grid.around(-30.03, -51.23, 200, cell_size_m=200)
    times = np.stack([np.full(grid.n_cells, 600.0), np.full(grid.n_cells, 2000.0)])
    ds = surface_dataset(grid, times, [25, 75], attrs={})
    assert _fill(surface_geojson(ds, percentile=25)["features"][0]) == VIRIDIS_4[0]
    assert _fill(surface_geojson(ds, percentile=75)["features"][0]) == VIRIDIS_4[2]
    assert _fill(surface_geojson(ds)["features"][0]) == VIRIDIS_4[2]  # the middle of 2
    with pytest.raises(ValueError, match="percentile 50 is not in the result"):
        surface_geojson(ds, percentile=50)


def test_point_surface_draws_circles() -> None:
    points = _points(2)
    ds = surface_dataset(points, np.array([[100.0, 1000.0, np.nan, 5000.0]]), [50], attrs={})
    data = surface_geojson(ds)
    assert [f["properties"]["id"] for f in data["features"]] == ["p00", "p01"]
    assert [f["geometry"]["type"] for f in data["features"]] == ["Point", "Point"]
    assert [_fill(f) for f in data["features"]] == [VIRIDIS_4[0], VIRIDIS_4[1]]
    assert data["features"][0]["geometry"]["coordinates"] == [-51.23, -30.03]


def test_isochrone_bands_do_not_overlap_and_are_coloured_by_time() -> None:
    ds = _radial_surface()
    iso = isochrones(ds, [300, 600, 900])
    data = isochrone_geojson(iso)
    assert [f["properties"]["time"] for f in data["features"]] == [300, 600, 900]
    assert [_fill(f) for f in data["features"]] == list(palette("viridis", 3))
    bands = [shapely.geometry.shape(f["geometry"]) for f in data["features"]]
    assert bands[0].contains(shapely.Point(-51.23, -30.03))
    for a in range(3):
        for b in range(a + 1, 3):
            assert bands[a].intersection(bands[b]).area < 1e-12
    # the bands add up to the largest isochrone (up to the 6-decimal rounding)
    assert shapely.union_all(bands).area == pytest.approx(iso.geometry.iloc[-1].area, rel=1e-4)


def test_hexagon_cells_tile_a_hexagon_lattice() -> None:
    # a regular lattice of 320 m, turned by 10 degrees, 9 x 9 points
    lat0, lon0, d = -30.03, -51.23, 320.0
    kx = M_PER_DEG * math.cos(math.radians(lat0))
    a1 = np.array([math.cos(math.radians(10)), math.sin(math.radians(10))]) * d
    a2 = np.array([math.cos(math.radians(70)), math.sin(math.radians(70))]) * d
    xy = np.array([i * a1 + j * a2 for i in range(9) for j in range(9)])
    lat, lon = lat0 + xy[:, 1] / M_PER_DEG, lon0 + xy[:, 0] / kx
    rings = cell_polygons(lat, lon)
    assert len(rings) == 81
    cells = [_metres(r, lat0) for r in rings]
    assert all(len(r) == 7 for r in rings)  # hexagons, closed
    regular_area = math.sqrt(3) / 2 * d**2
    inner = [c for c, (i, j) in zip(cells, np.ndindex(9, 9), strict=True)
             if 0 < i < 8 and 0 < j < 8]  # fmt: skip
    assert [c.area for c in inner] == pytest.approx([regular_area] * len(inner), rel=1e-3)
    # the cells tile: no overlap, and the union has no holes
    union = shapely.union_all(shapely.set_precision(cells, 0.01))
    assert union.area == pytest.approx(sum(c.area for c in cells), rel=1e-4)
    assert union.geom_type == "Polygon"
    assert not union.interiors
    for c, (x, y) in zip(cells, xy, strict=True):
        assert c.contains(shapely.Point(x + lon0 * kx, y + lat0 * M_PER_DEG))


def test_square_cells_and_single_points() -> None:
    points = _points(3, 200.0)
    rings = cell_polygons(points.lat, points.lon, shape="square")
    areas = [_metres(r, -30.03).area for r in rings]
    assert areas[4] == pytest.approx(200.0**2, rel=1e-3)  # the middle cell, exact
    assert max(areas) <= (200 * 1.1) ** 2 * 1.001
    with pytest.raises(ValueError, match="give size_m"):
        cell_polygons([-30.0], [-51.0])
    assert len(cell_polygons([-30.0], [-51.0], size_m=300)[0]) == 7
    with pytest.raises(ValueError, match="'hexagon' or 'square'"):
        cell_polygons(points.lat, points.lon, shape="circle")  # type: ignore[arg-type]


def test_values_over_origins_and_series() -> None:
    points = _points(2)
    da = xr.DataArray(
        [0.0, 10.0, 20.0, np.nan],
        dims="origin",
        coords={"origin": points.ids, "origin_lat": ("origin", points.lat),
                "origin_lon": ("origin", points.lon)},
        name="accessibility",
    )  # fmt: skip
    scale = ColorScale.from_bounds([0, 10, 20], "ylorrd")
    data = values_geojson(da, scale)
    assert [f["properties"]["id"] for f in data["features"]] == ["p00", "p01", "p10"]
    assert [_fill(f) for f in data["features"]] == ["#ffffcc", "#ffffcc", "#800026"]
    assert all(f["geometry"]["type"] == "Polygon" for f in data["features"])
    series = pd.Series([20.0, 0.0], index=["p11", "p00"])
    data = values_geojson(series, scale, points=points, shape="circle")
    assert [f["properties"]["id"] for f in data["features"]] == ["p11", "p00"]
    assert data["features"][0]["properties"]["style"]["radius"] == 5
    with pytest.raises(ValueError, match="needs the PointSet"):
        values_geojson(series, scale)
    with pytest.raises(ValueError, match="select along"):
        values_geojson(da.expand_dims(cutoff=[1800, 3600]), scale)


# -- maps ------------------------------------------------------------------------------------------
def _assert_offline(m: ipyleaflet.Map) -> None:
    assert not any(isinstance(layer, ipyleaflet.TileLayer) for layer in m.layers)


def _legend(m: ipyleaflet.Map) -> ipyleaflet.LegendControl:
    (legend,) = [c for c in m.controls if isinstance(c, ipyleaflet.LegendControl)]
    return legend


def test_surface_map_layers_legend_origin_and_view() -> None:
    ds = _radial_surface()
    m = surface_map(ds, cutoffs=(300, 600, 900))
    _assert_offline(m)
    assert [layer.name for layer in m.layers] == ["travel time", "origin"]
    layer, origin = m.layers
    assert [_fill(f) for f in layer.data["features"]] == list(palette("viridis", 3))
    assert tuple(origin.location) == (-30.03, -51.23)
    assert _legend(m).legend == {"0–5 min": "#440154", "5–10 min": "#21918c",
                                 "10–15 min": "#fde725"}  # fmt: skip
    # the view: centred on the drawn cells, zoomed to fit 2 km on 400 pixels
    assert m.center[0] == pytest.approx(-30.03, abs=1e-3)
    assert m.center[1] == pytest.approx(-51.23, abs=1e-3)
    assert m.zoom == 14
    assert any(isinstance(c, ipyleaflet.LayersControl) for c in m.controls)


def test_maps_draw_the_network_underneath(demo_network: TransportNetwork) -> None:
    grid = Grid.for_network(demo_network, cell_size_m=200, buffer_m=0)
    ds = surface_dataset(grid, np.full((1, grid.n_cells), 600.0), [50], attrs={})
    m = surface_map(ds, network=demo_network, max_edges=100)
    _assert_offline(m)
    assert [layer.name for layer in m.layers] == ["streets", "stops", "travel time"]
    streets = m.layers[0].data["features"]
    assert len(streets) == 100
    assert streets[0]["properties"]["style"]["color"] == "#999"
    assert len(m.layers[1].data["features"]) == len(demo_network.transit.stops)


def test_isochrone_map_from_a_surface_or_isochrones() -> None:
    ds = _radial_surface()
    m = isochrone_map(ds, [300, 600])
    _assert_offline(m)
    assert [layer.name for layer in m.layers] == ["isochrones", "origin"]
    assert [f["properties"]["time"] for f in m.layers[0].data["features"]] == [300, 600]
    assert list(_legend(m).legend) == ["0–5 min", "5–10 min"]
    m2 = isochrone_map(isochrones(ds, [300, 600]), origin=(-30.03, -51.23))
    assert m2.layers[0].data == m.layers[0].data


def test_choropleth_map_of_values_per_hexagon() -> None:
    points = _points(4)
    series = pd.Series(points.opportunities["jobs"].to_numpy(), index=points.ids, name="jobs")
    m = choropleth_map(series, points=points)
    _assert_offline(m)
    (layer,) = m.layers
    assert layer.name == "jobs"
    assert len(layer.data["features"]) == 16
    top = max(layer.data["features"], key=lambda f: f["properties"]["value"])
    assert _fill(top) == PALETTES["ylorrd"][-1]
    assert _legend(m).title == "jobs"


def test_difference_map_of_travel_times_lower_is_better() -> None:
    base = _grid_surface([[600, 1200], [1800, np.nan]])
    after = _grid_surface([[600, 600], [2400, 900]])
    diff = travel_time_difference(base, after)
    m = difference_map(diff, n_classes=5)
    _assert_offline(m)
    (layer,) = m.layers
    fills = {(f["properties"]["row"], f["properties"]["col"]): _fill(f)
             for f in layer.data["features"]}  # fmt: skip
    # unchanged: neutral; 10 min faster: blue end; 10 min slower: red end; NaN: blank
    assert fills == {(0, 0): "#f7f7f7", (0, 1): "#053061", (1, 0): "#67001f"}
    assert _legend(m).title == "travel time change"
    assert next(iter(_legend(m).legend)) == "−10 to −6 min"


def test_difference_map_of_accessibility_higher_is_better() -> None:
    points = _points(2)
    change = pd.Series([-50.0, 0.0, 50.0, 100.0], index=points.ids, name="jobs gained")
    m = difference_map(change, points=points, limit=100, n_classes=5)
    fills = [_fill(f) for f in m.layers[0].data["features"]]
    assert fills[0] in palette("rdbu", 5)[:2]  # a loss: red side
    assert fills[1] == "#f7f7f7"
    assert fills[3] == "#053061"  # the largest gain: blue end
    assert _legend(m).title == "jobs gained"
