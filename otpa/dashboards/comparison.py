"""The scenario-comparison dashboard (Panel + Bokeh), over a :class:`ComparisonModel`.

Three tabs:

* **Single point** — click on the map (or type the origin) to compute the time
  surfaces of the base network and of the chosen scenario: their isochrones are drawn
  overlaid (base filled blue, scenario outlined orange), a difference layer shows the
  grid cells whose travel time changed, and a table and bar chart give the
  opportunities reached per cutoff under both.
* **Scenario editor** — write a scenario as JSON (any modification of
  :mod:`otpa.analysis.scenario`) or start from "remove these routes"; it is validated
  against the network with the library's messages and saved in the same
  :class:`~otpa.analysis.ScenarioStore` the ``/scenarios`` HTTP endpoints use.
* **Regional** — accessibility from every point of the point set under both versions
  (dask tasks, with a progress bar and a cancel button), a choropleth and a weighted
  histogram of the change, a summary table, CSV and GeoPackage downloads.

Every map is a Bokeh figure in Web Mercator; its only tiles are the ``basemap_url``
given (e.g. the service's own rendered basemap), so nothing is fetched from the
internet.  Errors never replace the last good result: they are shown as a message.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import panel as pn
from bokeh import events
from bokeh.models import (  # type: ignore[attr-defined]
    ColorBar,
    ColumnDataSource,
    FactorRange,
    HoverTool,
    LinearColorMapper,
    Range1d,
    WMTSTileSource,
)
from bokeh.palettes import RdBu11
from bokeh.plotting import figure

from otpa.analysis import AddRoute, PointSet, RemoveRoutes, Scenario, ScenarioStore
from otpa.dashboards.geometry import cells_frame, lonlat_from_mercator, mercator, multipolygons
from otpa.dashboards.model import (
    ComparisonModel,
    DashboardError,
    RegionalCancelledError,
    RegionalResult,
    SinglePointResult,
)
from otpa.network import TransportNetwork

__all__ = ["ScenarioComparison"]

_BASE_COLOR = "#2c7fb8"
_SCENARIO_COLOR = "#e6550d"
# blue = faster (negative time change) or more access (positive change) in the scenario
_TIME_CHANGE = list(RdBu11)
_ACCESS_CHANGE = list(reversed(RdBu11))


def _map_figure(
    name: str,
    extent: tuple[float, float, float, float],
    basemap: str | None,
    linked: Any = None,
) -> Any:
    """An empty Web Mercator map over ``(west, south, east, north)``, basemap tiles if any.

    ``linked``: a map whose ranges this one shares (pan and zoom move both).
    """
    west, south, east, north = extent
    (x0, x1), (y0, y1) = mercator([west, east], [south, north])
    fig = figure(
        name=name,
        x_range=linked.x_range if linked is not None else Range1d(start=float(x0), end=float(x1)),
        y_range=linked.y_range if linked is not None else Range1d(start=float(y0), end=float(y1)),
        x_axis_type="mercator",
        y_axis_type="mercator",
        match_aspect=True,
        tools="pan,wheel_zoom,reset,tap",
        active_scroll="wheel_zoom",
        sizing_mode="stretch_width",
        height=520,
        toolbar_location="above",
    )
    if basemap:
        fig.add_tile(WMTSTileSource(url=basemap, attribution="basemap: otpa"), name="basemap")
    return fig


class ScenarioComparison(pn.viewable.Viewer):
    """Compare the base network with a scenario, from one origin or from every point.

    Parameters
    ----------
    networks
        A network, networks by router id, or a callable returning them (the service
        passes its loaded routers: no second copy).
    pointsets
        Opportunity point sets by name (the grid's cells are always offered).
    store
        The scenario store shared with the ``/scenarios`` endpoints (None: scenarios
        stay in this dashboard).
    basemap_url
        A tile URL template with ``{Z}/{X}/{Y}`` (or ``{z}/{x}/{y}``) placeholders; the
        text ``{router}`` is replaced with the chosen router id.  None: no tiles (the
        network's stops give the map its context).
    **params
        Initial :class:`ComparisonModel` values (``router``, ``date``, ``time``...).

    Examples
    --------
    >>> ScenarioComparison(net).servable()  # doctest: +SKIP
    """

    def __init__(
        self,
        networks: TransportNetwork
        | Mapping[str, TransportNetwork]
        | Callable[[], Mapping[str, TransportNetwork]],
        *,
        pointsets: Mapping[str, PointSet] | None = None,
        store: ScenarioStore | None = None,
        basemap_url: str | None = None,
        **params: Any,
    ) -> None:
        if isinstance(networks, TransportNetwork):
            networks = {"default": networks}
        super().__init__()
        self.model = ComparisonModel(networks, pointsets=pointsets, store=store, **params)
        self.basemap_url = basemap_url
        self.result: SinglePointResult | None = None
        self.regional_result: RegionalResult | None = None
        self._cancel = False
        #: the number of single-point computations started; only the latest one draws
        self._computations = 0
        self._build()

    # -- layout -----------------------------------------------------------------------------
    def _basemap(self) -> str | None:
        if not self.basemap_url:
            return None
        url = self.basemap_url.replace("{router}", str(self.model.router))
        return url.replace("{z}", "{Z}").replace("{x}", "{X}").replace("{y}", "{Y}")

    def _extent(self) -> tuple[float, float, float, float]:
        grid, _ = self.model.grid()
        west, south, east, north = grid.bounds
        return float(west), float(south), float(east), float(north)

    def _build(self) -> None:
        m = self.model
        self.message = pn.pane.Alert("", alert_type="light", name="message", visible=False)
        # single point
        self.iso_base = ColumnDataSource({"xs": [], "ys": [], "cutoff": []}, name="iso_base")
        self.iso_scenario = ColumnDataSource(
            {"xs": [], "ys": [], "cutoff": []}, name="iso_scenario"
        )
        self.diff_source = ColumnDataSource(
            {"x": [], "y": [], "w": [], "h": [], "value": [], "lat": [], "lon": []},
            name="difference",
        )
        self.origin_source = ColumnDataSource(
            {"x": [], "y": [], "lat": [], "lon": []}, name="origin"
        )
        self.reached_source = ColumnDataSource(
            {"cutoff": [], "version": [], "value": [], "color": []}, name="reached"
        )
        self.map = self._single_map()
        self.reached_chart = self._reached_chart()
        self.reached_table = pn.pane.DataFrame(pd.DataFrame(), name="reached_table", index=True)
        self.lat_input = pn.widgets.FloatInput(label="origin latitude", value=None, width=140)
        self.lon_input = pn.widgets.FloatInput(label="origin longitude", value=None, width=140)
        self.compute_button = pn.widgets.Button(label="Compute", color="primary")
        self.compute_button.on_click(lambda _e: self._schedule(self._from_inputs))
        self.status = pn.pane.Markdown("Click on the map to choose an origin.", name="status")
        cutoffs = pn.widgets.TextInput(
            label="cutoffs (min)", value=", ".join(str(c) for c in m.cutoffs_min), width=240
        )
        cutoffs.param.watch(self._set_cutoffs, "value")
        controls = pn.Column(
            pn.widgets.Select.from_param(m.param.router, label="router", width=240),
            pn.widgets.Select.from_param(m.param.pointset, label="point set", width=240),
            pn.widgets.Select.from_param(m.param.column, label="opportunities", width=240),
            pn.widgets.DatePicker.from_param(m.param.date, label="date", width=240),
            pn.widgets.TextInput.from_param(m.param.time, label="departure (HH:MM)", width=240),
            pn.widgets.IntInput.from_param(m.param.window_min, label="window (min)", width=240),
            pn.widgets.IntInput.from_param(m.param.percentile, label="percentile", width=240),
            cutoffs,
            pn.widgets.Select.from_param(m.param.modes, label="modes", width=240),
            pn.widgets.IntInput.from_param(m.param.max_time_min, label="max trip (min)", width=240),
            pn.widgets.Select.from_param(m.param.scenario, label="scenario", width=240),
            width=260,
        )
        self.base_map, self.scenario_map = self._side_maps()
        self.view_choice = pn.widgets.RadioButtonGroup(
            options=["overlaid", "side by side"], value="overlaid"
        )
        overlaid = pn.pane.Bokeh(self.map, sizing_mode="stretch_width")
        side = pn.Row(
            pn.pane.Bokeh(self.base_map, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self.scenario_map, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
            visible=False,
        )

        def show_view(event: Any) -> None:
            overlaid.visible = event.new == "overlaid"
            side.visible = event.new != "overlaid"

        self.view_choice.param.watch(show_view, "value")
        single = pn.Row(
            pn.Column(
                pn.Row(self.lat_input, self.lon_input, self.compute_button, self.view_choice),
                self.status,
                overlaid,
                side,
                sizing_mode="stretch_width",
            ),
            pn.Column(
                pn.pane.Markdown("**Opportunities reached**"),
                self.reached_table,
                pn.pane.Bokeh(self.reached_chart),
                width=360,
            ),
            sizing_mode="stretch_width",
        )
        self.tabs = pn.Tabs(
            ("Single point", single),
            ("Scenario editor", self._editor()),
            ("Regional", self._regional_view()),
            dynamic=False,
            sizing_mode="stretch_width",
        )
        m.param.watch(self._router_changed, "router")
        self.layout = pn.Row(
            controls,
            pn.Column(self.message, self.tabs, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )

    def __panel__(self) -> Any:
        """The dashboard's layout."""
        return self.layout

    def _single_map(self) -> Any:
        fig = _map_figure("single_map", self._extent(), self._basemap())
        self.stops_source = ColumnDataSource(self._stops(), name="stops")
        fig.scatter(
            x="x", y="y", source=self.stops_source, size=4, color="#555", alpha=0.6,
            name="stops_layer", legend_label="stops",
        )  # fmt: skip
        mapper = LinearColorMapper(palette=_TIME_CHANGE, low=-600, high=600)
        self.diff_mapper = mapper
        fig.rect(
            x="x", y="y", width="w", height="h", source=self.diff_source,
            fill_color={"field": "value", "transform": mapper}, line_color=None,
            fill_alpha=0.7, name="difference_layer", legend_label="difference",
        )  # fmt: skip
        fig.multi_polygons(
            xs="xs", ys="ys", source=self.iso_base, fill_color=_BASE_COLOR,
            fill_alpha=0.12, line_color=_BASE_COLOR, line_width=2,
            name="iso_base_layer", legend_label="base",
        )  # fmt: skip
        fig.multi_polygons(
            xs="xs", ys="ys", source=self.iso_scenario, fill_alpha=0.0,
            line_color=_SCENARIO_COLOR, line_width=2, line_dash="dashed",
            name="iso_scenario_layer", legend_label="scenario",
        )  # fmt: skip
        fig.scatter(
            x="x", y="y", source=self.origin_source, size=12, marker="circle_cross",
            color="black", fill_alpha=0.2, name="origin_layer",
        )  # fmt: skip
        fig.add_layout(ColorBar(color_mapper=mapper, title="Δ travel time (s)"), "right")
        fig.legend.click_policy = "hide"
        fig.legend.location = "top_left"
        fig.on_event(events.Tap, self._on_tap)
        return fig

    def _side_maps(self) -> tuple[Any, Any]:
        """Base (left) and scenario (right) maps; shared ranges link their pan and zoom."""
        maps = []
        for name, source, color, title in (
            ("base_map", self.iso_base, _BASE_COLOR, "base"),
            ("scenario_map", self.iso_scenario, _SCENARIO_COLOR, "scenario"),
        ):
            fig = _map_figure(name, self._extent(), self._basemap(), self.map)
            fig.title.text = title
            fig.height = 420
            fig.scatter(x="x", y="y", source=self.stops_source, size=3, color="#555", alpha=0.5)
            if name == "scenario_map":
                fig.rect(
                    x="x", y="y", width="w", height="h", source=self.diff_source,
                    fill_color={"field": "value", "transform": self.diff_mapper},
                    line_color=None, fill_alpha=0.7, name="difference_side_layer",
                )  # fmt: skip
            fig.multi_polygons(
                xs="xs", ys="ys", source=source, fill_color=color, fill_alpha=0.12,
                line_color=color, line_width=2, name=f"{name}_iso_layer",
            )  # fmt: skip
            fig.scatter(
                x="x", y="y", source=self.origin_source, size=12, marker="circle_cross",
                color="black", fill_alpha=0.2,
            )  # fmt: skip
            fig.on_event(events.Tap, self._on_tap)
            maps.append(fig)
        return maps[0], maps[1]

    def _stops(self) -> dict[str, list[Any]]:
        stops = self.model.network.transit.stops
        sx, sy = mercator(stops["lon"].to_numpy(), stops["lat"].to_numpy())
        return {
            "x": sx.tolist(), "y": sy.tolist(),
            "stop_id": [str(v) for v in stops["stop_id"]],
            "name": [str(v) for v in stops["name"]],
        }  # fmt: skip

    def _router_changed(self, _event: Any = None) -> None:
        """Another network: its extent, stops, basemap and routes; results are cleared."""
        west, south, east, north = self._extent()
        (x0, x1), (y0, y1) = mercator([west, east], [south, north])
        for fig in (self.map, self.regional_map, self.editor_map):
            fig.x_range.start, fig.x_range.end = float(x0), float(x1)
            fig.y_range.start, fig.y_range.end = float(y0), float(y1)
            basemap = self._basemap()
            for renderer in fig.renderers:
                if basemap and isinstance(getattr(renderer, "tile_source", None), WMTSTileSource):
                    renderer.tile_source.url = basemap
        self.stops_source.data = self._stops()
        for source in (self.iso_base, self.iso_scenario, self.diff_source, self.origin_source):
            source.data = {k: [] for k in source.data}
        self.route_choice.options = self._route_options()
        self.route_choice.value = []
        self.stop_choice.options = self._stop_options()
        self.stop_choice.value = []
        self.editor_stops.data = self._stops()

    def _route_options(self) -> dict[str, str]:
        routes = self.model.network.transit.routes
        return {
            f"{r.route_id} ({r.short_name or r.long_name})": str(r.route_id)
            for r in routes.itertuples()
        }

    def _reached_chart(self) -> Any:
        fig = figure(
            name="reached_chart", height=220, width=340, x_range=FactorRange(), tools="",
            toolbar_location=None, title="opportunities reached",
        )  # fmt: skip
        fig.vbar(x="cutoff", top="value", width=0.8, color="color", source=self.reached_source)
        fig.add_tools(HoverTool(tooltips=[("", "@cutoff"), ("reached", "@value{0,0}")]))
        return fig

    # -- scheduling -------------------------------------------------------------------------
    def _schedule(self, func: Callable[[], Any]) -> None:
        """Run a (possibly async) callback in the current context (server or notebook)."""
        pn.state.execute(func, schedule=True)

    def show_error(self, text: str) -> None:
        """Show a message (the last good result stays on screen)."""
        self.message.object = text
        self.message.alert_type = "danger"
        self.message.visible = True

    def show_info(self, text: str) -> None:
        """Show a success message."""
        self.message.object = text
        self.message.alert_type = "success"
        self.message.visible = True

    def _set_cutoffs(self, event: Any) -> None:
        try:
            values = [int(v) for v in str(event.new).replace(";", ",").split(",") if v.strip()]
            if not values or min(values) <= 0:
                raise ValueError
        except ValueError:
            self.show_error(f"cutoffs {event.new!r}: give positive whole minutes, e.g. 15, 30, 45")
            return
        self.model.cutoffs_min = values

    # -- single point -----------------------------------------------------------------------
    def _on_tap(self, event: Any) -> None:
        lon, lat = lonlat_from_mercator(float(event.x), float(event.y))
        self.lat_input.value = round(lat, 6)
        self.lon_input.value = round(lon, 6)
        self._schedule(self._from_inputs)

    async def _from_inputs(self) -> None:
        if self.lat_input.value is None or self.lon_input.value is None:
            self.show_error("Give the origin's latitude and longitude (or click on the map).")
            return
        await self.compute_origin(float(self.lat_input.value), float(self.lon_input.value))

    def _ui(self) -> Callable[[Callable[[], None]], None]:
        """Run UI updates on the page's document (its lock) after work in a thread."""
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            return lambda update: update()

        def later(update: Callable[[], None]) -> None:
            doc.add_next_tick_callback(update)

        return later

    async def compute_origin(self, lat: float, lon: float) -> SinglePointResult | None:
        """Compute from ``(lat, lon)`` in a worker thread and draw the results.

        Only the latest computation started shows its outcome: a slower earlier one
        (an origin clicked before) that finishes later neither redraws the map nor hides
        the latest one's message.
        """
        ui = self._ui()
        self._computations += 1
        number = self._computations
        self.status.object = f"Computing from {lat:.5f}, {lon:.5f} …"
        try:
            result = await asyncio.to_thread(self.model.compute, (lat, lon))
        except DashboardError as exc:
            message = f"Cannot compute from {lat:.5f}, {lon:.5f}: {exc}"

            def failed() -> None:
                if number != self._computations:
                    return
                self.status.object = "Last result kept."
                self.show_error(message)

            ui(failed)
            return None

        def done() -> None:
            if number != self._computations:
                return
            self.model.origin = (lat, lon)
            self.draw(result)

        ui(done)
        found: SinglePointResult = result
        return found

    def draw(self, result: SinglePointResult) -> None:
        """Draw a single-point result on the map, the table and the chart."""
        self.result = result
        for version, source in (("base", self.iso_base), ("scenario", self.iso_scenario)):
            iso = result.isochrones[version].sort_values("time", ascending=False)
            xs, ys = multipolygons(iso.geometry)
            source.data = {"xs": xs, "ys": ys, "cutoff": [int(t) for t in iso["time"]]}
        diff = result.difference["difference"]
        changed = np.isfinite(diff.values) & (diff.values != 0)
        grid, _ = self.model.grid()
        lat = np.asarray(diff["lat"].values)[changed]
        lon = np.asarray(diff["lon"].values)[changed]
        size = float(np.mean(grid.cell_size)) if grid.crs == "EPSG:3857" else None
        cell_m = size if size is not None else float(self.model.cell_size_m)
        self.diff_source.data = cells_frame(lat, lon, diff.values[changed], cell_m)
        ox, oy = mercator([result.origin[1]], [result.origin[0]])
        self.origin_source.data = {
            "x": ox.tolist(), "y": oy.tolist(),
            "lat": [result.origin[0]], "lon": [result.origin[1]],
        }  # fmt: skip
        table = result.reached.copy()
        table.index = [f"{c // 60} min" for c in table.index]
        self.reached_table.object = table.round(1)
        cats = [(f"{c // 60} min", v) for c in result.reached.index for v in ("base", "scenario")]
        self.reached_chart.x_range.factors = cats
        self.reached_source.data = {
            "cutoff": cats,
            "version": [c[1] for c in cats],
            "value": [float(result.reached.loc[int(c[0].split()[0]) * 60, c[1]]) for c in cats],
            "color": [_BASE_COLOR if c[1] == "base" else _SCENARIO_COLOR for c in cats],
        }
        self.status.object = (
            f"From {result.origin[0]:.5f}, {result.origin[1]:.5f}: base vs "
            f"**{result.scenario_name}**; {int(changed.sum())} cells changed."
        )
        self.message.visible = False

    # -- scenario editor --------------------------------------------------------------------
    def _editor(self) -> Any:
        self.route_choice = pn.widgets.MultiChoice(
            label="routes to remove", options=self._route_options()
        )
        self.scenario_name = pn.widgets.TextInput(label="name", value="")
        self.scenario_id = pn.widgets.TextInput(label="id (optional)", value="")
        self.document = pn.widgets.TextAreaInput(
            label="scenario (JSON)", max_length=1_000_000, height=260, sizing_mode="stretch_width"
        )
        draft = pn.widgets.Button(label="Remove-routes draft")
        draft.on_click(self._draft_remove)
        self.stop_choice = pn.widgets.MultiChoice(
            label="stops of a new route, in order", options=self._stop_options()
        )
        self.headway = pn.widgets.IntInput(label="headway (min)", value=10, start=1, width=120)
        self.speed = pn.widgets.FloatInput(label="speed (km/h)", value=20.0, start=1.0, width=120)
        add_draft = pn.widgets.Button(label="Add-route draft")
        add_draft.on_click(self._draft_add)
        clear_stops = pn.widgets.Button(label="Clear stops")
        clear_stops.on_click(lambda _e: setattr(self.stop_choice, "value", []))
        self.editor_map = self._editor_map()
        self.stop_choice.param.watch(self._draw_new_route, "value")
        self.picked = pn.pane.Markdown("", name="picked")
        validate = pn.widgets.Button(label="Validate")
        validate.on_click(self._on_validate)
        save = pn.widgets.Button(label="Save", color="primary")
        save.on_click(self._on_save)
        refresh = pn.widgets.Button(label="Refresh list")
        refresh.on_click(self._on_refresh)
        self.problems = pn.pane.Markdown("", name="problems")
        return pn.Column(
            pn.pane.Markdown(
                "Write a scenario as JSON (modifications: `remove-routes`, `remove-trips`, "
                "`remove-stops`, `adjust-frequency`, `adjust-speed`, `adjust-dwell-time`, "
                "`add-route`), or start from a remove-routes draft. Saved scenarios are "
                "served at `/otp/routers/{id}/scenarios` too."
            ),
            pn.Row(self.scenario_name, self.scenario_id),
            pn.Row(self.route_choice, draft),
            pn.pane.Markdown(
                "**New route**: click stops on the map to add them in order (or pick them "
                "from the list below)."
            ),
            pn.pane.Bokeh(self.editor_map, sizing_mode="stretch_width"),
            self.picked,
            pn.Row(self.stop_choice, self.headway, self.speed, add_draft, clear_stops),
            self.document,
            pn.Row(validate, save, refresh),
            self.problems,
            sizing_mode="stretch_width",
        )

    def _editor_map(self) -> Any:
        """The network's stops to click (each click adds the nearest stop to the new route)."""
        fig = _map_figure("editor_map", self._extent(), self._basemap())
        fig.height = 420
        self.editor_stops = ColumnDataSource(self._stops(), name="editor_stops")
        self.new_route = ColumnDataSource({"x": [], "y": [], "order": []}, name="new_route")
        stops = fig.scatter(
            x="x", y="y", source=self.editor_stops, size=7, color="#555", alpha=0.7,
            name="editor_stops_layer",
        )  # fmt: skip
        fig.line(x="x", y="y", source=self.new_route, color=_SCENARIO_COLOR, line_width=3)
        fig.scatter(
            x="x", y="y", source=self.new_route, size=11, color=_SCENARIO_COLOR,
            name="new_route_layer",
        )  # fmt: skip
        fig.add_tools(
            HoverTool(renderers=[stops], tooltips=[("stop", "@name"), ("id", "@stop_id")])
        )
        fig.on_event(events.Tap, self._on_stop_tap)
        return fig

    def _on_stop_tap(self, event: Any) -> None:
        """Add the stop nearest to the click (within 25 screen pixels' worth of metres)."""
        data = self.editor_stops.data
        if not data["x"]:
            return
        x = np.asarray(data["x"], dtype=np.float64)
        y = np.asarray(data["y"], dtype=np.float64)
        d = np.hypot(x - float(event.x), y - float(event.y))
        k = int(np.argmin(d))
        span = abs(float(self.editor_map.x_range.end) - float(self.editor_map.x_range.start))
        if d[k] > max(span / 40.0, 1.0):
            self.picked.object = "No stop near the click: click on a stop (grey dot)."
            return
        stop_id = str(data["stop_id"][k])
        chosen = list(self.stop_choice.value or [])
        if chosen and chosen[-1] == stop_id:  # a route does not stop twice in a row
            return
        self.stop_choice.value = [*chosen, stop_id]

    def _draw_new_route(self, _event: Any = None) -> None:
        """Draw the chosen stops of the new route, in order, on the editor's map."""
        data = self.editor_stops.data
        where = {sid: i for i, sid in enumerate(data["stop_id"])}
        chosen = [sid for sid in (self.stop_choice.value or []) if sid in where]
        self.new_route.data = {
            "x": [data["x"][where[sid]] for sid in chosen],
            "y": [data["y"][where[sid]] for sid in chosen],
            "order": list(range(1, len(chosen) + 1)),
        }
        names = [data["name"][where[sid]] for sid in chosen]
        self.picked.object = (
            "New route: " + " → ".join(names) if names else "No stops chosen yet."
        )

    def _on_validate(self, _event: Any) -> None:
        self.validate_document()

    def _on_save(self, _event: Any) -> None:
        self.save_document()

    def _on_refresh(self, _event: Any) -> None:
        self.model.refresh_scenarios()

    def _stop_options(self) -> dict[str, str]:
        stops = self.model.network.transit.stops
        return {f"{r.name} ({r.stop_id})": str(r.stop_id) for r in stops.itertuples()}

    def _draft_add(self, _event: Any = None) -> None:
        """A scenario adding a bus route through the chosen stops, 06:00-22:00, both ways."""
        chosen = list(self.stop_choice.value or [])
        name = (self.scenario_name.value or "").strip() or "new route"
        scenario = Scenario(
            name,
            (
                AddRoute(
                    name=name, mode="BUS", stops=tuple(chosen),
                    headway_s=int(self.headway.value or 10) * 60,
                    start_time=6 * 3600, end_time=22 * 3600,
                    speed_kmh=float(self.speed.value or 20.0), bidirectional=True,
                ),
            ),
            id=(self.scenario_id.value or "").strip() or None,
        )  # fmt: skip
        self.document.value = scenario.to_json()

    def _draft_remove(self, _event: Any = None) -> None:
        chosen = list(self.route_choice.value or [])
        name = (self.scenario_name.value or "").strip() or "remove " + ", ".join(chosen)
        scenario = Scenario(
            name,
            (RemoveRoutes(tuple(chosen)),),
            id=(self.scenario_id.value or "").strip() or None,
        )
        self.document.value = scenario.to_json()

    def validate_document(self) -> Scenario | None:
        """Check the JSON document; show the library's problems. Returns the scenario if valid."""
        text = self.document.value or ""
        if not text.strip():
            self.problems.object = "Write a scenario first."
            return None
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            self.problems.object = f"Not JSON: {exc}"
            self.show_error("The scenario is not valid JSON.")
            return None
        scenario, problems = self.model.validate_scenario(text)
        if problems or scenario is None:
            self.problems.object = "\n".join(f"- {p}" for p in problems)
            self.show_error(f"The scenario does not fit router '{self.model.router}'.")
            return None
        self.problems.object = "✔ The scenario fits the network."
        return scenario

    def save_document(self) -> str | None:
        """Validate and save the JSON document in the store; select it. Returns its id."""
        scenario = self.validate_document()
        if scenario is None:
            return None
        try:
            sid = self.model.save_scenario(scenario)
        except DashboardError as exc:
            self.show_error(str(exc))
            return None
        self.model.scenario = sid
        self.show_info(f"Saved scenario '{scenario.name}' as '{sid}'.")
        return sid

    # -- regional ---------------------------------------------------------------------------
    def _regional_view(self) -> Any:
        m = self.model
        self.progress = pn.indicators.Progress(
            value=0, max=100, bar_color="primary", sizing_mode="stretch_width"
        )
        self.progress_text = pn.pane.Markdown("", name="progress_text")
        run = pn.widgets.Button(label="Run regional comparison", color="primary")
        run.on_click(lambda _e: self._schedule(self.run_regional))
        cancel = pn.widgets.Button(label="Cancel", color="warning")
        cancel.on_click(self._on_cancel)
        self.regional_cutoff = pn.widgets.Select(label="map cutoff (min)", options=[])
        self.regional_cutoff.param.watch(lambda _e: self._draw_regional(), "value")
        self.regional_source = ColumnDataSource(
            {"x": [], "y": [], "w": [], "h": [], "value": [], "lat": [], "lon": []},
            name="regional_change",
        )
        self.hist_source = ColumnDataSource(
            {"left": [], "right": [], "top": []}, name="histogram"
        )
        fig = _map_figure("regional_map", self._extent(), self._basemap())
        self.regional_map = fig
        self.regional_mapper = LinearColorMapper(palette=_ACCESS_CHANGE, low=-1, high=1)
        fig.rect(
            x="x", y="y", width="w", height="h", source=self.regional_source,
            fill_color={"field": "value", "transform": self.regional_mapper},
            line_color=None, fill_alpha=0.75, name="regional_layer",
        )  # fmt: skip
        fig.add_layout(ColorBar(color_mapper=self.regional_mapper, title="Δ access"), "right")
        fig.add_tools(HoverTool(tooltips=[("change", "@value{0,0.0}")]))
        hist = figure(
            name="histogram_chart", height=260, width=420, tools="", toolbar_location=None,
            title="change in accessibility (weighted)",
        )  # fmt: skip
        hist.quad(
            left="left", right="right", top="top", bottom=0, source=self.hist_source,
            color=_SCENARIO_COLOR, alpha=0.7,
        )  # fmt: skip
        self.ecdf_source = ColumnDataSource({"x": [], "y": []}, name="ecdf")
        ecdf = figure(
            name="ecdf_chart", height=260, width=420, tools="", toolbar_location=None,
            title="share (weighted) with a change ≤ x", y_range=Range1d(start=0.0, end=1.02),
        )  # fmt: skip
        ecdf.step(x="x", y="y", source=self.ecdf_source, mode="after", color=_BASE_COLOR,
                  line_width=2)  # fmt: skip
        self.summary = pn.pane.DataFrame(pd.DataFrame(), name="summary", index=True)
        self.csv_download = pn.widgets.FileDownload(
            callback=self._csv_bytes, filename="regional-comparison.csv",
            label="Download CSV", disabled=True,
        )  # fmt: skip
        self.gpkg_download = pn.widgets.FileDownload(
            callback=self._gpkg_bytes, filename="regional-comparison.gpkg",
            label="Download GeoPackage", disabled=True,
        )  # fmt: skip
        return pn.Column(
            pn.Row(
                run,
                cancel,
                pn.widgets.Select.from_param(m.param.weight, label="weight column"),
                pn.widgets.FloatInput.from_param(m.param.threshold, label="summary threshold"),
                self.regional_cutoff,
            ),
            self.progress,
            self.progress_text,
            pn.Row(
                pn.pane.Bokeh(fig, sizing_mode="stretch_width"),
                pn.Column(
                    pn.pane.Bokeh(hist),
                    pn.pane.Bokeh(ecdf),
                    self.summary,
                    pn.Row(self.csv_download, self.gpkg_download),
                ),
                sizing_mode="stretch_width",
            ),
            sizing_mode="stretch_width",
        )

    def _on_cancel(self, _event: Any) -> None:
        self._cancel = True
        self.progress_text.object = "Cancelling …"

    def _set_progress(self, fraction: float) -> None:
        self.progress.value = round(100 * fraction)
        self.progress_text.object = f"{100 * fraction:.0f} %"

    async def run_regional(self) -> RegionalResult | None:
        """Compute the regional comparison in a worker thread, with progress and cancel."""
        self._cancel = False
        shown: list[float] = []

        def progress(fraction: float) -> None:
            shown.append(fraction)

        def cancelled() -> bool:
            return self._cancel

        ui = self._ui()
        task = asyncio.ensure_future(
            asyncio.to_thread(self.model.regional, progress=progress, cancelled=cancelled)
        )
        self._set_progress(0.0)
        last = 0.0
        while not task.done():
            await asyncio.sleep(0.25)
            if shown and shown[-1] != last:
                last = shown[-1]
                ui(partial(self._set_progress, last))
        try:
            result = task.result()
        except RegionalCancelledError as exc:
            cancelled_text = str(exc)
            ui(lambda: setattr(self.progress_text, "object", cancelled_text))
            return None
        except DashboardError as exc:
            failed_text = f"Regional comparison failed: {exc}"
            ui(lambda: self.show_error(failed_text))
            return None
        ui(lambda: self._show_regional(result))
        found: RegionalResult = result
        return found

    def _show_regional(self, result: RegionalResult) -> None:
        self.regional_result = result
        self._set_progress(1.0)
        minutes = [str(c // 60) for c in result.cutoffs]
        self.regional_cutoff.options = minutes
        if self.regional_cutoff.value not in minutes:
            self.regional_cutoff.value = minutes[len(minutes) // 2]
        self._draw_regional()
        self.csv_download.disabled = False
        self.gpkg_download.disabled = False
        self.message.visible = False

    def _draw_regional(self) -> None:
        result = self.regional_result
        if result is None or not self.regional_cutoff.value:
            return
        change = result.frame[f"change_{self.regional_cutoff.value}"].to_numpy(dtype=float)
        bound = float(np.nanmax(np.abs(change))) if np.isfinite(change).any() else 1.0
        self.regional_mapper.low, self.regional_mapper.high = -(bound or 1.0), bound or 1.0
        points = self.model.points()
        size = _spacing_m(points)
        self.regional_source.data = cells_frame(
            result.frame["lat"], result.frame["lon"], change, size
        )
        weights = (
            result.frame[result.weight].to_numpy(dtype=float) if result.weight else None
        )
        finite = np.isfinite(change)
        counts, edges = np.histogram(
            change[finite], bins=20, weights=None if weights is None else weights[finite]
        )
        self.hist_source.data = {
            "left": edges[:-1].tolist(), "right": edges[1:].tolist(), "top": counts.tolist()
        }  # fmt: skip
        self.ecdf_source.data = _ecdf(change[finite], None if weights is None else weights[finite])
        self.summary.object = result.summary(float(self.model.threshold)).round(1)

    def _csv_bytes(self) -> io.BytesIO:
        if self.regional_result is None:
            return io.BytesIO(b"")
        return io.BytesIO(self.regional_result.to_csv().encode())

    def _gpkg_bytes(self) -> io.BytesIO:
        if self.regional_result is None:
            return io.BytesIO(b"")
        return io.BytesIO(self.regional_result.to_geopackage())


def _spacing_m(points: PointSet) -> float:
    """A cell size for drawing points as squares: the median nearest-neighbour distance."""
    if len(points) < 2:
        return 200.0
    x, y = mercator(points.lon, points.lat)
    scale = np.cos(np.radians(float(np.mean(points.lat))))
    sample = np.arange(min(len(points), 200))
    d = np.hypot(x[sample, None] - x[None, :], y[sample, None] - y[None, :])
    d[d == 0] = np.inf
    return float(np.median(d.min(axis=1)) * scale)



def _ecdf(values: Any, weights: Any = None) -> dict[str, list[float]]:
    """The weighted empirical CDF as step points: ``(min, 0)``, then per distinct value ``x``
    the share of the weight at or below it (the last ``y`` is 1)."""
    v = np.asarray(values, dtype=np.float64)
    w = np.ones_like(v) if weights is None else np.asarray(weights, dtype=np.float64)
    if v.size == 0 or float(w.sum()) <= 0:
        return {"x": [], "y": []}
    order = np.argsort(v, kind="stable")
    v, w = v[order], w[order]
    cum = np.cumsum(w) / float(w.sum())
    last = np.r_[v[1:] != v[:-1], True]  # the last of each run of equal values
    return {"x": [float(v[0]), *v[last].tolist()], "y": [0.0, *cum[last].tolist()]}
