"""The dashboard on Porto Alegre in Debian's chromium (real data; shares the session's build).

Loads with no console errors and no request leaving 127.0.0.1; the Public Market as origin
draws base and scenario isochrones, and the difference layer lists exactly the
cells where :func:`~otpa.analysis.compare_scenarios` finds a changed travel time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _browser import assert_not_blank

from otpa.analysis import Grid, RemoveRoutes, Scenario, ScenarioStore, compare_scenarios
from otpa.dashboards.model import default_date
from otpa.network import TransportNetwork
from service.config import ServiceConfig
from service.server import start_in_thread
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

pytestmark = [pytest.mark.http, pytest.mark.slow]

PUBLIC_MARKET = (-30.027565, -51.227811)
OPTIONS = {"window": 1800, "max_time": 3600, "percentiles": (50,)}


@pytest.fixture(scope="module")
def poa() -> TransportNetwork:
    require_data("small", "porto-alegre")
    return built_network(DATA_ROOT, "small/porto-alegre")


@pytest.fixture(scope="module")
def scenario(poa: TransportNetwork) -> Scenario:
    """Without the route with most trips among those stopping near the Public Market."""
    trips = poa.transit.trips.groupby("route_id").size().sort_values(ascending=False)
    return Scenario("without the busiest route", (RemoveRoutes((str(trips.index[0]),)),),
                    id="busiest")  # fmt: skip


@pytest.fixture(scope="module")
def page(
    browser: Any, poa: TransportNetwork, scenario: Scenario,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Any]:  # fmt: skip
    folder = tmp_path_factory.mktemp("poa-scenarios")
    ScenarioStore(folder).save("poa", scenario)
    url, stop = start_in_thread(
        ServiceConfig(port=0, dashboard=True, scenarios_dir=folder), {"poa": poa}
    )
    base = url.split("/otp/")[0]
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = context.new_page()
    page.errors, page.requests, page.base = [], [], base  # type: ignore[attr-defined]
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: page.requests.append(r.url))
    page.goto(base + "/dashboard/", wait_until="networkidle", timeout=180_000)
    page.wait_for_function(
        "() => window.Bokeh && Bokeh.documents.length > 0"
        " && Bokeh.documents[0].get_model_by_name('iso_base') != null",
        timeout=120_000,
    )
    yield page
    context.close()
    stop()


def _columns(page: Any, name: str) -> dict[str, list[Any]]:
    return page.evaluate(
        """(name) => { const d = Bokeh.documents[0].get_model_by_name(name).data;
            const items = d instanceof Map ? Array.from(d.entries()) : Object.entries(d);
            return Object.fromEntries(items.map(([k, v]) => [k, Array.from(v)])); }""",
        name,
    )


def test_porto_alegre_click_draws_isochrones_and_the_exact_difference(
    page: Any, poa: TransportNetwork, scenario: Scenario, screenshot_dir: Path
) -> None:
    outside = [u for u in page.requests if not u.startswith((page.base + "/", "blob:", "data:"))]
    assert outside == []
    assert page.errors == []
    for select in page.locator("select").all():
        if select.is_visible() and "busiest" in select.locator("option").all_inner_texts():
            select.select_option("busiest")
            break
    else:
        pytest.fail("the stored scenario is not offered")
    # the origin typed in (the demo test clicks on the map; here the exact point matters)
    label = page.locator("label", has_text="origin latitude").locator("xpath=..")
    lat_box = label.locator("input")
    label = page.locator("label", has_text="origin longitude").locator("xpath=..")
    lon_box = label.locator("input")
    lat_box.first.fill(str(PUBLIC_MARKET[0]))
    lat_box.first.press("Enter")
    lon_box.first.fill(str(PUBLIC_MARKET[1]))
    lon_box.first.press("Enter")
    page.get_by_role("button", name="Compute").click()
    page.wait_for_function(
        "() => { const d = Bokeh.documents[0].get_model_by_name('iso_scenario').data;"
        " return (d instanceof Map ? d.get('xs') : d.xs).length > 0; }",
        timeout=300_000,
    )
    assert len(_columns(page, "iso_base")["xs"]) == 3
    shown = _columns(page, "difference")
    departure = dt.datetime.combine(default_date(poa), dt.time(8, 0))
    grid = Grid.for_network(poa, cell_size_m=200.0, buffer_m=400.0)
    expected = compare_scenarios(
        poa, None, scenario, PUBLIC_MARKET, departure, target=grid, **OPTIONS
    )["difference"].sel(percentile=50)
    changed = np.isfinite(expected.values) & (expected.values != 0)
    lat = np.round(expected["lat"].values[changed], 6).tolist()
    lon = np.round(expected["lon"].values[changed], 6).tolist()
    want = sorted(zip(lat, lon, strict=True))
    got = sorted(zip(np.round(shown["lat"], 6).tolist(), np.round(shown["lon"], 6).tolist(),
                     strict=True))  # fmt: skip
    assert got == want
    shot = screenshot_dir / "dashboard-porto-alegre.png"
    page.screenshot(path=str(shot))
    assert_not_blank(shot)
