"""The dashboard in a real browser: ``otpa serve`` with ``dashboard: true``, Debian's chromium.

One service (demo city, a scenario folder, a small analyst point set) and one browser
page per module; the tests run in order on that page: load, click, scenario, regional.
"""

from __future__ import annotations

import base64
import datetime as dt
import io
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _browser import assert_not_blank

from otpa.analysis import Grid, PointSet, RemoveRoutes, Scenario, compare_scenarios
from otpa.dashboards.geometry import mercator
from otpa.dashboards.model import default_date
from otpa.network import TransportNetwork
from service.auth import ROLE_ROUTERS, UserEntry, hash_password
from service.config import ServiceConfig
from service.server import start_in_thread

pytestmark = pytest.mark.http

ROUTER = "demo"
USER, PASSWORD = "alice", "s3cret-for-tests"
OPTIONS = {"window": 1800, "max_time": 3600, "percentiles": (50,)}
REMOVED = "demo:1"


def _bokeh(page: Any, expression: str) -> Any:
    """Evaluate JS with ``doc`` bound to the page's Bokeh document."""
    return page.evaluate(f"() => {{ const doc = Bokeh.documents[0]; return {expression}; }}")


#: JS function: the length of column ``col`` of the ColumnDataSource named ``name``.
_LENGTH = (
    "((name, col) => { const d = Bokeh.documents[0].get_model_by_name(name).data;"
    " return (d instanceof Map ? d.get(col) : d[col]).length; })"
)


def _departure(network: TransportNetwork) -> dt.datetime:
    """The dashboard's default departure: 08:00 on its default date."""
    return dt.datetime.combine(default_date(network), dt.time(8, 0))


def _source(page: Any, name: str) -> dict[str, list[Any]]:
    """A named ColumnDataSource's columns, as plain lists."""
    return page.evaluate(
        """(name) => {
            const src = Bokeh.documents[0].get_model_by_name(name);
            const out = {};
            const d = src.data;
            const items = d instanceof Map ? Array.from(d.entries()) : Object.entries(d);
            for (const [k, v] of items) out[k] = Array.from(v);
            return out;
        }""",
        name,
    )


@pytest.fixture(scope="module")
def points_csv(tmp_path_factory: pytest.TempPathFactory, demo_network: TransportNetwork) -> Path:
    """25 points around the city centre with deterministic jobs and population."""
    folder = tmp_path_factory.mktemp("pointsets")
    stops = demo_network.transit.stops
    lat0, lon0 = float(stops["lat"].mean()), float(stops["lon"].mean())
    rows = []
    for i in range(5):
        for j in range(5):
            rows.append(
                {
                    "id": f"p{i}{j}",
                    "lat": lat0 + (i - 2) * 0.003,
                    "lon": lon0 + (j - 2) * 0.005,
                    "jobs": 100 * (1 + (i * 5 + j) % 7),
                    "population": 50 + 10 * i,
                }
            )
    pd.DataFrame(rows).to_csv(folder / "sample.csv", index=False)
    # the same points with no opportunity column (bad input: nothing to count)
    pd.DataFrame(rows)[["id", "lat", "lon"]].to_csv(folder / "bare.csv", index=False)
    return folder / "sample.csv"


@pytest.fixture(scope="module")
def service(
    tmp_path_factory: pytest.TempPathFactory, demo_network: TransportNetwork, points_csv: Path
) -> Iterator[dict[str, Any]]:
    """``otpa serve`` (in a thread) with the dashboard mounted at ``/dashboard``."""
    scenarios = tmp_path_factory.mktemp("scenarios")
    users = {
        USER: UserEntry(USER, hash_password(PASSWORD, n=2**10), frozenset({ROLE_ROUTERS}))
    }
    config = ServiceConfig(
        port=0,
        dashboard=True,
        scenarios_dir=scenarios,
        pointsets_dir=points_csv.parent,
        users=users,
    )
    url, stop = start_in_thread(config, {ROUTER: demo_network})
    base = url.split("/otp/")[0]
    yield {"base": base, "scenarios": scenarios}
    stop()


@pytest.fixture(scope="module")
def page(browser: Any, service: dict[str, Any]) -> Iterator[Any]:
    """The dashboard page, with every console message and request recorded."""
    context = browser.new_context(viewport={"width": 1500, "height": 1100}, accept_downloads=True)
    page = context.new_page()
    page.console_errors = []  # type: ignore[attr-defined]
    page.requests = []  # type: ignore[attr-defined]
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.on("request", lambda r: page.requests.append(r.url))
    page.goto(service["base"] + "/dashboard/", wait_until="networkidle", timeout=120_000)
    page.wait_for_function(
        "() => window.Bokeh && Bokeh.documents.length > 0"
        " && Bokeh.documents[0].get_model_by_name('iso_base') != null",
        timeout=60_000,
    )
    yield page
    context.close()


def _http(method: str, url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
        token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _screen_xy(page: Any, figure: str, x: float, y: float) -> tuple[float, float]:
    """Page coordinates of the Web Mercator point ``(x, y)`` on the Bokeh figure ``figure``."""
    found = page.evaluate(
        """([name, x, y]) => {
            const model = Bokeh.documents[0].get_model_by_name(name);
            const view = Bokeh.index.find_one(model);
            const box = view.canvas_view.events_el.getBoundingClientRect();
            return [box.left + view.frame.x_scale.compute(x),
                    box.top + view.frame.y_scale.compute(y)];
        }""",
        [figure, x, y],
    )
    return float(found[0]), float(found[1])


def _wait_settled(page: Any, figure: str) -> None:
    """Wait until the figure is laid out and has not moved for 300 ms (tab shown, text grown)."""
    page.wait_for_function(
        """(name) => {
            const view = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(name));
            if (view == null) return false;
            const b = view.canvas_view.events_el.getBoundingClientRect();
            const now = [b.left, b.top, b.width, b.height].join();
            const was = window.__otpaBox;
            if (b.width < 100 || was == null || was.box !== now) {
                window.__otpaBox = {box: now, since: performance.now()};
                return false;
            }
            return performance.now() - was.since > 300;
        }""",
        arg=figure,
        timeout=30_000,
    )


def _map_canvas_box(page: Any) -> dict[str, float]:
    """The bounding box of the single-point map (the largest visible canvas)."""
    boxes = [c.bounding_box() for c in page.locator("canvas").all() if c.is_visible()]
    boxes = [b for b in boxes if b is not None]
    return max(boxes, key=lambda b: b["width"] * b["height"])


def _tab(page: Any, title: str) -> None:
    page.locator(".bk-tab", has_text=title).first.click()


def _select_with_option(page: Any, *options: str) -> Any:
    """The first visible ``<select>`` offering all ``options``."""
    for select in page.locator("select").all():
        texts = [t.strip() for t in select.locator("option").all_inner_texts()]
        if select.is_visible() and all(o in texts for o in options):
            return select
    raise AssertionError(f"no <select> offers {options!r}")


def test_page_loads_offline_without_console_errors(
    page: Any, service: dict[str, Any], screenshot_dir: Path
) -> None:
    base = service["base"]
    outside = [
        u for u in page.requests
        if not u.startswith((base + "/", "blob:", "data:"))
    ]  # fmt: skip
    assert outside == []
    assert any("/dashboard/static/" in u for u in page.requests)  # JS from this server
    assert page.console_errors == []
    assert _bokeh(page, "doc.get_model_by_name('single_map') != null")
    shot = screenshot_dir / "dashboard-load.png"
    page.screenshot(path=str(shot))
    assert_not_blank(shot)


def test_scenario_posted_over_http_appears_in_the_list(
    page: Any, service: dict[str, Any]
) -> None:
    doc = Scenario("no line 1", (RemoveRoutes((REMOVED,)),), id="no-line-1").to_dict()
    created = _http("POST", f"{service['base']}/otp/routers/{ROUTER}/scenarios", doc)
    assert created == {"id": "no-line-1"}
    select = _select_with_option(page, "(base network)")  # re-read every 5 s, no click
    page.wait_for_function(
        "(el) => Array.from(el.options).some(o => o.value === 'no-line-1')",
        arg=select.element_handle(),
        timeout=15_000,
    )


def test_scenario_saved_in_the_dashboard_is_served_over_http(
    page: Any, service: dict[str, Any], demo_network: TransportNetwork, screenshot_dir: Path
) -> None:
    _tab(page, "Scenario editor")
    editor = page.locator("textarea")
    bad = Scenario("ghost", (RemoveRoutes(("demo:nope",)),), id="ghost")
    editor.fill(bad.to_json())
    editor.press("Tab")
    page.get_by_role("button", name="Save").click()
    problems = bad.validate(demo_network)
    assert problems  # the library rejects the unknown route ...
    page.get_by_text(problems[0][:40]).first.wait_for(timeout=15_000)  # ... and we show why
    assert "ghost" not in _http("GET", f"{service['base']}/otp/routers/{ROUTER}/scenarios")

    good = Scenario("no line 2", (RemoveRoutes(("demo:2",)),), id="no-line-2")
    editor.fill(good.to_json())
    editor.press("Tab")
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Saved scenario 'no line 2'").wait_for(timeout=15_000)
    listed = _http("GET", f"{service['base']}/otp/routers/{ROUTER}/scenarios")
    assert listed["no-line-2"] == "no line 2"
    stored = _http("GET", f"{service['base']}/otp/routers/{ROUTER}/scenarios/no-line-2")
    assert Scenario.from_json(stored) == good
    shot = screenshot_dir / "dashboard-editor.png"
    page.screenshot(path=str(shot))
    assert_not_blank(shot)


def test_click_draws_base_and_scenario_isochrones_and_the_difference(
    page: Any, demo_network: TransportNetwork, screenshot_dir: Path
) -> None:
    _tab(page, "Single point")
    _select_with_option(page, "no-line-1").select_option("no-line-1")
    box = _map_canvas_box(page)
    page.mouse.click(box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.5)
    page.wait_for_function(
        f"() => {_LENGTH}('origin', 'lat') > 0 && {_LENGTH}('iso_scenario', 'xs') > 0",
        timeout=120_000,
    )
    base_iso, scen_iso = _source(page, "iso_base"), _source(page, "iso_scenario")
    assert len(base_iso["xs"]) == len(scen_iso["xs"]) == 3  # one per cutoff: 15, 30, 45 min
    assert sorted(base_iso["cutoff"]) == [900, 1800, 2700]
    origin = _source(page, "origin")
    lat, lon = origin["lat"][0], origin["lon"][0]
    shown = _source(page, "difference")

    grid = Grid.for_network(demo_network, cell_size_m=200.0, buffer_m=400.0)
    scenario = Scenario("no line 1", (RemoveRoutes((REMOVED,)),), id="no-line-1")
    expected = compare_scenarios(
        demo_network, None, scenario, (lat, lon), _departure(demo_network), target=grid, **OPTIONS
    )["difference"].sel(percentile=50)
    changed = np.isfinite(expected.values) & (expected.values != 0)
    want = sorted(
        zip(
            np.round(expected["lat"].values[changed], 6),
            np.round(expected["lon"].values[changed], 6),
            expected.values[changed].astype(float),
            strict=True,
        )
    )
    got = sorted(
        zip(
            np.round(shown["lat"], 6), np.round(shown["lon"], 6), shown["value"], strict=True
        )
    )
    assert len(want) > 0  # removing line 1 slows trips from here
    assert got == want
    shot = screenshot_dir / "dashboard-single-point.png"
    page.screenshot(path=str(shot))
    assert_not_blank(shot)


def test_side_by_side_maps_show_base_and_scenario_with_linked_ranges(
    page: Any, screenshot_dir: Path
) -> None:
    page.get_by_role("button", name="side by side").click()
    page.wait_for_function(
        "() => { const v = Bokeh.index.find_one("
        "Bokeh.documents[0].get_model_by_name('base_map'));"
        " return v != null && v.canvas_view.events_el.getBoundingClientRect().width > 100; }",
        timeout=30_000,
    )
    assert _bokeh(
        page,
        "doc.get_model_by_name('base_map').x_range === doc.get_model_by_name('scenario_map')"
        ".x_range && doc.get_model_by_name('base_map').y_range === "
        "doc.get_model_by_name('single_map').y_range",
    )  # one pair of ranges: panning or zooming one map moves the other
    # the scenario side draws the same difference cells as the overlaid map
    assert _bokeh(
        page,
        "doc.get_model_by_name('difference_side_layer').data_source.name === 'difference'",
    )
    shot = screenshot_dir / "dashboard-side-by-side.png"
    page.screenshot(path=str(shot))
    assert_not_blank(shot)
    page.get_by_role("button", name="overlaid").click()
    page.wait_for_timeout(300)


def test_new_route_from_stops_clicked_on_the_map_is_saved(
    page: Any, service: dict[str, Any], demo_network: TransportNetwork, screenshot_dir: Path
) -> None:
    _tab(page, "Scenario editor")
    page.get_by_role("button", name="Clear stops").click()
    stops = demo_network.transit.stops.set_index("stop_id")
    picked = ["demo:bus_c_2_2", "demo:bus_c_6_6", "demo:bus_c_10_10"]
    _wait_settled(page, "editor_map")
    for k, sid in enumerate(picked, start=1):
        x, y = mercator([stops.loc[sid, "lon"]], [stops.loc[sid, "lat"]])
        sx, sy = _screen_xy(page, "editor_map", float(x[0]), float(y[0]))
        for attempt in range(3):  # chromium may drop a click as Bokeh re-lays the page out
            page.mouse.click(sx + 2, sy - 2)  # a click beside the stop picks it
            try:  # (clicking the last chosen stop again adds nothing)
                page.wait_for_function(
                    f"() => {_LENGTH}('new_route', 'x') === {k}", timeout=10_000 * (attempt + 1)
                )
                break
            except Exception:
                page.screenshot(path=str(screenshot_dir / "dashboard-editor-failed.png"))
                if attempt == 2:
                    raise
        _wait_settled(page, "editor_map")  # the chosen stops' list grows below the map
    page.get_by_text("New route: ").first.wait_for(timeout=15_000)
    page.locator("label", has_text="name").locator("xpath=..").locator("input").first.fill(
        "cross-town"
    )
    page.locator("label", has_text="id (optional)").locator("xpath=..").locator(
        "input"
    ).first.fill("cross-town")
    page.keyboard.press("Tab")
    page.get_by_role("button", name="Add-route draft").click()
    page.wait_for_function(
        "(el) => el.value.includes('demo:bus_c_10_10')",
        arg=page.locator("textarea").first.element_handle(),
        timeout=15_000,
    )
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Saved scenario 'cross-town'").wait_for(timeout=15_000)
    stored = Scenario.from_json(
        _http("GET", f"{service['base']}/otp/routers/{ROUTER}/scenarios/cross-town")
    )
    (route,) = stored.modifications
    assert route.stops == tuple(picked)
    assert stored.validate(demo_network) == []
    shot = screenshot_dir / "dashboard-editor-map.png"
    page.screenshot(path=str(shot))
    assert_not_blank(shot)
    _tab(page, "Single point")
    _select_with_option(page, "no-line-1").select_option("no-line-1")  # as the next tests expect


def test_bad_origin_shows_a_message_and_keeps_the_last_result(page: Any) -> None:
    before = _source(page, "iso_base")
    assert before["xs"]
    # a click on the map outside the network: zoom out with the mouse wheel, click a corner
    box = _map_canvas_box(page)
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    for _ in range(8):
        page.mouse.wheel(0, 500)
    page.mouse.click(box["x"] + 8, box["y"] + 8)
    _wait_for_text(page, "Cannot compute from")
    assert _source(page, "iso_base")["xs"] == before["xs"]
    # an origin typed far away
    lat_box, lon_box = _origin_inputs(page)
    lat_box.fill("10")
    lat_box.press("Enter")
    lon_box.fill("10")
    lon_box.press("Enter")
    page.get_by_role("button", name="Compute").click()
    _wait_for_text(page, "Cannot compute from 10.00000, 10.00000")
    assert _source(page, "iso_base")["xs"] == before["xs"]
    # a point set without the chosen opportunity column: a message, the result kept
    _select_with_option(page, "grid cells").select_option("bare")
    page.get_by_role("button", name="Compute").click()
    _wait_for_text(page, "10.00000, 10.00000: point set 'bare' has no column 'cells'")
    assert _source(page, "iso_base")["xs"] == before["xs"]
    _select_with_option(page, "grid cells").select_option("grid cells")


def _wait_for_text(page: Any, text: str, timeout: int = 60_000) -> None:
    """Wait until ``text`` is shown; on a timeout, fail with what the page shows instead."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.get_by_text(text).first.wait_for(timeout=timeout)
    except PlaywrightTimeoutError as exc:
        shown = page.evaluate(
            "() => Array.from(Bokeh.documents[0].all_models)"
            ".filter(m => typeof m.text === 'string' && m.text && m.visible !== false)"
            ".map(m => m.text.slice(0, 300)).join('\\n')"
        )  # the texts of the visible panes (markdown, alerts), as the browser has them
        pytest.fail(f"{text!r} not shown within {timeout} ms ({exc}); the page shows:\n{shown}")


def _origin_inputs(page: Any) -> tuple[Any, Any]:
    lat = page.locator("label", has_text="origin latitude").locator("xpath=..").locator("input")
    lon = page.locator("label", has_text="origin longitude").locator("xpath=..").locator("input")
    return lat.first, lon.first


def test_regional_comparison_reaches_100_percent_and_downloads_the_library_result(
    page: Any, demo_network: TransportNetwork, points_csv: Path, screenshot_dir: Path
) -> None:
    _select_with_option(page, "grid cells").select_option("sample")
    page.wait_for_timeout(500)  # the column choices follow the point set
    _select_with_option(page, "jobs").select_option("jobs")
    _tab(page, "Regional")
    _select_with_option(page, "", "population").select_option("population")  # the weight
    page.get_by_role("button", name="Run regional comparison").click()
    page.wait_for_function(f"() => {_LENGTH}('histogram', 'top') > 0", timeout=180_000)
    assert page.locator("progress").first.get_attribute("value") == "100"
    ecdf = _source(page, "ecdf")
    assert ecdf["y"][-1] == pytest.approx(1.0)  # the population-weighted ECDF is drawn
    assert ecdf["x"] == sorted(ecdf["x"])
    with page.expect_download(timeout=30_000) as info:
        page.get_by_role("button", name="Download CSV").click()
    frame = pd.read_csv(io.BytesIO(Path(info.value.path()).read_bytes()), dtype={"id": str})

    points = PointSet.from_csv(points_csv)
    scenario = Scenario("no line 1", (RemoveRoutes((REMOVED,)),), id="no-line-1")
    expected = compare_scenarios(
        demo_network, None, scenario, points, _departure(demo_network),
        opportunities=points, cutoffs=(900, 1800, 2700), **OPTIONS,
    )["accessibility"].sel(percentile=50, opportunity="jobs")  # fmt: skip
    frame = frame.set_index("id")
    for cutoff in (900, 1800, 2700):
        m = cutoff // 60
        for label, column in (("a", f"base_{m}"), ("b", f"scenario_{m}")):
            want = expected.sel(scenario=label, cutoff=cutoff).to_series()
            np.testing.assert_allclose(frame[column].to_numpy(), want.reindex(frame.index))
    assert list(frame["population"]) == list(points.opportunities["population"])
    shot = screenshot_dir / "dashboard-regional.png"
    page.screenshot(path=str(shot))
    assert_not_blank(shot)
