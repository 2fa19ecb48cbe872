"""The dashboard's view-model and Panel view without a browser (what a notebook does)."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import panel as pn
import pytest
from _browser import python_env

from otpa.analysis import PointSet, RemoveRoutes, Scenario, ScenarioStore, compare_scenarios
from otpa.dashboards import (
    BASE_LABEL,
    ComparisonModel,
    DashboardError,
    RegionalCancelledError,
    ScenarioComparison,
)
from otpa.dashboards.geometry import mercator
from otpa.dashboards.model import default_date
from otpa.network import TransportNetwork

OPTIONS = {"window": 1800, "max_time": 3600, "percentiles": (50,)}
NO_LINE_1 = Scenario("no line 1", (RemoveRoutes(("demo:1",)),), id="no-line-1")


def _run(coroutine: Any) -> Any:
    """``asyncio.run`` in a fresh thread (the browser tests' Playwright loop may own this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _departure(network: TransportNetwork) -> dt.datetime:
    """The dashboard's default departure: 08:00 on its default date (30 min window)."""
    return dt.datetime.combine(default_date(network), dt.time(8, 0))


@pytest.fixture(scope="module")
def points(demo_network: TransportNetwork) -> PointSet:
    """Nine points around the centre with jobs and population."""
    stops = demo_network.transit.stops
    lat0, lon0 = float(stops["lat"].mean()), float(stops["lon"].mean())
    rows = [
        {"id": f"q{i}{j}", "lat": lat0 + (i - 1) * 0.004, "lon": lon0 + (j - 1) * 0.006,
         "jobs": 100 * (1 + 3 * i + j), "population": 10 + i}
        for i in range(3) for j in range(3)
    ]  # fmt: skip
    return PointSet.from_frame(pd.DataFrame(rows), name="nine")


@pytest.fixture
def model(demo_network: TransportNetwork, points: PointSet, tmp_path: Path) -> ComparisonModel:
    return ComparisonModel(
        {"demo": demo_network}, pointsets={"nine": points}, store=ScenarioStore(tmp_path)
    )


def test_scenarios_are_validated_with_the_librarys_messages_and_stored(
    model: ComparisonModel, demo_network: TransportNetwork
) -> None:
    bad = Scenario("ghost", (RemoveRoutes(("demo:nope",)),), id="ghost")
    scenario, problems = model.validate_scenario(bad.to_json())
    assert scenario == bad
    assert problems == bad.validate(demo_network) != []
    with pytest.raises(DashboardError, match="demo:nope"):
        model.save_scenario(bad)
    assert model.store is not None
    assert model.store.list("demo") == []
    unreadable = model.validate_scenario('{"name": 3}')
    assert unreadable[0] is None
    assert unreadable[1]
    assert model.save_scenario(NO_LINE_1) == "no-line-1"
    assert model.store.get("demo", "no-line-1") == NO_LINE_1
    assert model.param.scenario.objects == [BASE_LABEL, "no-line-1"]


def test_one_origin_equals_compare_scenarios(
    model: ComparisonModel, demo_network: TransportNetwork, points: PointSet
) -> None:
    model.save_scenario(NO_LINE_1)
    model.pointset = "nine"  # first: the column choices follow the point set
    model.param.update(scenario="no-line-1", column="jobs")
    origin = (float(points.lat[4]), float(points.lon[4]))
    result = model.compute(origin)
    grid, _ = model.grid()
    expected = compare_scenarios(
        demo_network, None, NO_LINE_1, origin, _departure(demo_network), target=grid, **OPTIONS
    )
    np.testing.assert_array_equal(
        result.difference["difference"].values,
        expected["difference"].sel(percentile=50).values,
    )
    access = compare_scenarios(
        demo_network, None, NO_LINE_1, origin, _departure(demo_network), opportunities=points,
        cutoffs=(900, 1800, 2700), **OPTIONS,
    )["accessibility"].sel(percentile=50, opportunity="jobs")  # fmt: skip
    for label, column in (("a", "base"), ("b", "scenario")):
        want = access.sel(scenario=label).to_series()
        assert result.reached[column].tolist() == want.tolist()
    assert list(result.isochrones["base"]["time"]) == [900, 1800, 2700]


def test_bad_choices_are_clear_errors(model: ComparisonModel, points: PointSet) -> None:
    with pytest.raises(DashboardError, match=r"outside|away|network|bounds"):
        model.compute((10.0, 10.0))
    model.add_pointset("bare", PointSet(points.ids, points.lat, points.lon, name="bare"))
    chosen = model.column
    select = pn.widgets.Select.from_param(model.param.column)  # as the app's widget
    model.pointset = "bare"  # no opportunity columns: the chosen one stays, never None
    assert model.param.column.objects == [chosen]
    assert select.value == model.column == chosen
    with pytest.raises(DashboardError, match="has no column"):
        model.compute((float(points.lat[4]), float(points.lon[4])))
    model.pointset = "nine"
    model.time = "8 o'clock"
    with pytest.raises(DashboardError, match="HH:MM"):
        model.request()


def test_regional_progress_cancel_and_downloads(
    model: ComparisonModel, demo_network: TransportNetwork, points: PointSet, tmp_path: Path
) -> None:
    model.save_scenario(NO_LINE_1)
    model.pointset = "nine"
    model.param.update(scenario="no-line-1", column="jobs", weight="population")
    with pytest.raises(RegionalCancelledError):
        model.regional(chunks=3, cancelled=lambda: True)
    seen: list[float] = []
    result = model.regional(chunks=3, progress=seen.append)
    assert seen[0] == 0.0
    assert seen[-1] == 1.0
    assert seen == sorted(seen)
    assert len(seen) >= 3  # 0, then after each batch of tasks of both versions
    access = compare_scenarios(
        demo_network, None, NO_LINE_1, points, _departure(demo_network), opportunities=points,
        cutoffs=(900, 1800, 2700), **OPTIONS,
    )["accessibility"].sel(percentile=50, opportunity="jobs")  # fmt: skip
    csv = pd.read_csv(io.StringIO(result.to_csv()), dtype={"id": str}).set_index("id")
    (tmp_path / "result.gpkg").write_bytes(result.to_geopackage())
    gpkg = gpd.read_file(tmp_path / "result.gpkg", layer="accessibility").set_index("id")
    for frame in (csv, gpkg):
        for m in (15, 30, 45):
            want = access.sel(scenario="b", cutoff=60 * m).to_series().reindex(frame.index)
            np.testing.assert_allclose(frame[f"scenario_{m}"], want)
            base = access.sel(scenario="a", cutoff=60 * m).to_series().reindex(frame.index)
            np.testing.assert_allclose(frame[f"change_{m}"], want - base)
    summary = result.summary(threshold=1000)
    pop = points.opportunities["population"].to_numpy(dtype=float)
    base30 = access.sel(scenario="a", cutoff=1800).to_series().reindex(points.ids).to_numpy()
    assert summary.loc[30, "mean base"] == pytest.approx((base30 * pop).sum() / pop.sum())


def test_view_draws_inline_without_a_server(
    demo_network: TransportNetwork, points: PointSet
) -> None:
    view = ScenarioComparison(demo_network, pointsets={"nine": points})
    origin = (float(points.lat[4]), float(points.lon[4]))
    result = _run(view.compute_origin(*origin))
    assert result is not None
    assert len(view.iso_base.data["xs"]) == len(view.iso_scenario.data["xs"]) == 3
    assert view.diff_source.data["x"] == []  # base against base: nothing changed
    assert _run(view.compute_origin(10.0, 10.0)) is None
    assert view.message.visible
    assert "Cannot compute" in view.message.object
    assert len(view.iso_base.data["xs"]) == 3  # the last good result stays


def test_an_earlier_origin_finishing_later_neither_draws_nor_hides_the_message(
    demo_network: TransportNetwork, points: PointSet
) -> None:
    view = ScenarioComparison(demo_network, pointsets={"nine": points})
    origin = (float(points.lat[4]), float(points.lon[4]))
    compute = view.model.compute
    release = asyncio.Event()

    async def both() -> tuple[Any, Any]:
        started = asyncio.Event()

        def slow(where: tuple[float, float]) -> Any:
            result = compute(where)
            loop.call_soon_threadsafe(started.set)
            future = asyncio.run_coroutine_threadsafe(release.wait(), loop)
            future.result(timeout=60)
            return result

        loop = asyncio.get_running_loop()
        view.model.compute = slow  # type: ignore[method-assign]
        first = asyncio.ensure_future(view.compute_origin(*origin))  # clicked first
        await started.wait()
        view.model.compute = compute  # type: ignore[method-assign]
        second = await view.compute_origin(10.0, 10.0)  # clicked next: away from the network
        release.set()
        return await first, second

    first, second = _run(both())
    assert second is None
    assert first is not None  # the library result is returned ...
    assert view.iso_base.data["xs"] == []  # ... but not drawn over the later click's outcome
    assert view.model.origin is None
    assert view.message.visible
    assert view.message.object.startswith("Cannot compute from 10.00000, 10.00000")


def test_otpa_dashboard_command_prints_its_url(
    tmp_path: Path, demo_network: TransportNetwork
) -> None:
    del demo_network  # built and cached for the command to load
    env = python_env()
    proc = subprocess.Popen(
        [sys.executable, "-m", "otpa.cli", "dashboard", "--port", "0",
         "--scenarios", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("otpa dashboard ready: "):
                url = line.split(": ", 1)[1].strip()
                break
        else:
            pytest.fail("no URL printed")
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/dashboard")
        with urllib.request.urlopen(url, timeout=60) as response:
            html = response.read().decode()
        assert response.status == 200
        assert "static/js/bokeh" in html
        assert "cdn." not in html
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_service_without_the_dashboard_answers_404(demo_network: TransportNetwork) -> None:
    from service.config import ServiceConfig
    from service.server import start_in_thread

    url, stop = start_in_thread(ServiceConfig(port=0), {"demo": demo_network})
    try:
        base = url.split("/otp/")[0]
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(f"{base}/dashboard/", timeout=30)
        assert info.value.code == 404
    finally:
        stop()


def test_editor_drafts_an_added_route_that_validates(
    demo_network: TransportNetwork, tmp_path: Path
) -> None:
    view = ScenarioComparison(demo_network, store=ScenarioStore(tmp_path))
    view.scenario_name.value = "cross"
    view.scenario_id.value = "cross"
    view.stop_choice.value = ["demo:bus_c_2_2", "demo:bus_c_6_6", "demo:bus_c_10_10"]
    view.headway.value = 12
    view._draft_add()
    scenario = view.validate_document()
    assert scenario is not None
    (route,) = scenario.modifications
    assert route.stops == ("demo:bus_c_2_2", "demo:bus_c_6_6", "demo:bus_c_10_10")
    assert route.headway_s == 720
    assert view.save_document() == "cross"
    assert ScenarioStore(tmp_path).get("default", "cross") == scenario
    view.document.value = '{"name": "x", "modifications": [{"type": "remove-routes"}]}'
    assert view.validate_document() is None
    assert view.problems.object.startswith("- ")  # the library's problems, one per line


def test_editor_map_clicks_add_the_nearest_stops_in_order(
    demo_network: TransportNetwork, tmp_path: Path
) -> None:
    view = ScenarioComparison(demo_network, store=ScenarioStore(tmp_path))
    stops = demo_network.transit.stops.set_index("stop_id")
    picked = ["demo:bus_c_2_2", "demo:bus_c_10_10", "demo:bus_c_6_6"]
    for sid in picked:  # a click 10 m beside each stop
        x, y = mercator([stops.loc[sid, "lon"]], [stops.loc[sid, "lat"]])
        view._on_stop_tap(SimpleNamespace(x=float(x[0]) + 10.0, y=float(y[0]) - 10.0))
    assert view.stop_choice.value == picked
    view._on_stop_tap(SimpleNamespace(x=float(x[0]), y=float(y[0])))  # the last one again
    assert view.stop_choice.value == picked
    assert view.new_route.data["order"] == [1, 2, 3]
    assert view.picked.object.count("→") == 2
    x, y = mercator([float(stops["lon"].max()) + 0.05], [float(stops["lat"].max()) + 0.05])
    view._on_stop_tap(SimpleNamespace(x=float(x[0]), y=float(y[0])))  # far from any stop
    assert view.stop_choice.value == picked
    assert view.picked.object.startswith("No stop near the click")
    view._draft_add()
    scenario = view.validate_document()
    assert scenario is not None
    assert scenario.modifications[0].stops == tuple(picked)


def test_side_by_side_maps_share_ranges_and_the_ecdf_is_weighted() -> None:
    from otpa.dashboards.comparison import _ecdf

    assert _ecdf([3.0, 1.0, 1.0, 2.0], [1.0, 1.0, 2.0, 4.0]) == {
        "x": [1.0, 1.0, 2.0, 3.0], "y": [0.0, 0.375, 0.875, 1.0]
    }  # fmt: skip
    assert _ecdf([], None) == {"x": [], "y": []}
