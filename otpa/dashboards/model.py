"""View-models of the dashboards: ``param`` objects over the public ``otpa.analysis`` API.

Nothing here imports Panel or Bokeh: a :class:`ComparisonModel` holds the choices of
a scenario comparison (network, point set, departure, window, percentile, cutoffs,
modes, scenario, origin) and computes its results with the library, so a notebook or
a test can drive it without a browser.  The Panel views of
:mod:`otpa.dashboards.comparison` watch its parameters and draw the results.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import param
import xarray as xr
from dask.base import compute as dask_compute

from otpa.analysis import (
    AnalysisRequest,
    Grid,
    PointSet,
    Scenario,
    ScenarioError,
    ScenarioStore,
    accessibility,
    compute_time_surface,
    paired_travel_time_matrix,
    travel_time_difference,
)
from otpa.errors import OtpaError
from otpa.network import TransportNetwork

__all__ = [
    "BASE_LABEL",
    "GRID_POINTS",
    "ComparisonModel",
    "DashboardError",
    "RegionalCancelledError",
    "RegionalResult",
    "SinglePointResult",
    "default_date",
]

#: Label of the unmodified network in the scenario choice.
BASE_LABEL = "(base network)"
#: Name of the built-in point set: the analysis grid's cells, one "cells" opportunity each.
GRID_POINTS = "grid cells"
#: Scenario networks kept per model (least recently used dropped first).
_MAX_SCENARIO_NETWORKS = 4


class DashboardError(OtpaError, ValueError):
    """A choice in a dashboard that cannot be computed (shown to the user as a message)."""


class RegionalCancelledError(DashboardError):
    """A regional comparison was cancelled before it finished."""


@dataclass(frozen=True)
class SinglePointResult:
    """Results of one origin under the base network and the chosen scenario.

    Attributes
    ----------
    origin
        ``(lat, lon)`` of the origin.
    surfaces
        Grid travel-time surfaces (Datasets), ``{"base": ..., "scenario": ...}``.
    isochrones
        Isochrone GeoDataFrames (one row per cutoff), by version.
    difference
        :func:`~otpa.analysis.travel_time_difference` of the two grid surfaces
        (``scenario - base``), at the chosen percentile.
    reached
        Opportunities reached per cutoff: index ``cutoff`` (seconds), columns ``base``,
        ``scenario`` and ``change``.
    scenario_name
        The compared scenario's name (``BASE_LABEL`` when none).
    """

    origin: tuple[float, float]
    surfaces: Mapping[str, xr.Dataset]
    isochrones: Mapping[str, Any]
    difference: xr.Dataset
    reached: pd.DataFrame
    scenario_name: str


@dataclass
class RegionalResult:
    """Accessibility of every point under the base network and the scenario.

    Attributes
    ----------
    frame
        One row per point (index: point id): ``lat``, ``lon``, the weight column when
        chosen, and ``base_<cutoff>``, ``scenario_<cutoff>``, ``change_<cutoff>`` for
        every cutoff in minutes.
    cutoffs
        Cutoffs in seconds.
    column
        The opportunity column counted.
    weight
        The weight column (e.g. population), or None.
    access
        Accessibility DataArrays ``{"base": ..., "scenario": ...}`` over
        ``(origin, cutoff)``, as :func:`~otpa.analysis.accessibility` returns them
        (at the chosen percentile and opportunity column).
    """

    frame: pd.DataFrame
    cutoffs: tuple[int, ...]
    column: str
    weight: str | None
    access: dict[str, xr.DataArray] = field(default_factory=dict)

    def summary(self, threshold: float) -> pd.DataFrame:
        """Per cutoff: (weighted) mean accessibility and who gains or loses ``threshold``.

        Parameters
        ----------
        threshold
            An accessibility level (opportunities): the table counts the points (or
            their weight) below it under the base network and at or above it under
            the scenario ("gaining access"), and the reverse.
        """
        weights = (
            self.frame[self.weight].to_numpy(dtype=float)
            if self.weight
            else np.ones(len(self.frame))
        )
        total = float(weights.sum()) or 1.0
        rows = []
        for c in self.cutoffs:
            m = c // 60
            a = self.frame[f"base_{m}"].to_numpy(dtype=float)
            b = self.frame[f"scenario_{m}"].to_numpy(dtype=float)
            gain = (a < threshold) & (b >= threshold)
            loss = (a >= threshold) & (b < threshold)
            rows.append(
                {
                    "cutoff (min)": m,
                    "mean base": float((a * weights).sum() / total),
                    "mean scenario": float((b * weights).sum() / total),
                    f"gaining ≥ {threshold:g}": float(weights[gain].sum()),
                    f"losing ≥ {threshold:g}": float(weights[loss].sum()),
                    "points better": int((b > a).sum()),
                    "points worse": int((b < a).sum()),
                }
            )
        return pd.DataFrame(rows).set_index("cutoff (min)")

    def to_csv(self) -> str:
        """The per-point table as CSV text (``id`` first)."""
        return str(self.frame.rename_axis("id").reset_index().to_csv(index=False))

    def to_geopackage(self) -> bytes:
        """The per-point table as a GeoPackage (points, EPSG:4326, layer ``accessibility``)."""
        import tempfile
        from pathlib import Path

        import geopandas as gpd

        frame = self.frame.rename_axis("id").reset_index()
        gdf = gpd.GeoDataFrame(
            frame, geometry=gpd.points_from_xy(frame["lon"], frame["lat"]), crs="EPSG:4326"
        )
        with tempfile.TemporaryDirectory(prefix="otpa-gpkg-") as folder:
            path = Path(folder) / "accessibility.gpkg"
            gdf.to_file(path, layer="accessibility", driver="GPKG")
            return path.read_bytes()


def default_date(network: TransportNetwork) -> dt.date:
    """A representative service day: the first Tuesday to Thursday with the most services.

    Falls back to the first service date, then to today, for networks without transit.
    """
    transit = network.transit
    period = transit.service_dates
    if period is None:
        return dt.date.today()
    first, last = period
    days = [first + dt.timedelta(d) for d in range(min((last - first).days + 1, 800))]
    counts = [int(np.count_nonzero(transit.services_on(d))) for d in days]
    best = max(counts)
    midweek = [
        d for d, c in zip(days, counts, strict=True) if c == best and d.weekday() in (1, 2, 3)
    ]
    return midweek[0] if midweek else days[counts.index(best)]


def _grid_pointset(grid: Grid) -> PointSet:
    points = PointSet.from_grid(grid, name=GRID_POINTS)
    frame = points.to_frame()
    frame["cells"] = 1.0
    return PointSet.from_frame(frame, name=GRID_POINTS)


class ComparisonModel(param.Parameterized):
    """The choices and results of a scenario comparison (base network vs one scenario).

    Parameters
    ----------
    networks
        Networks by router id, or a callable returning them (e.g. the service's loaded
        routers, read afresh on every use).
    pointsets
        Opportunity point sets by name; the grid's cells (one ``cells`` opportunity
        each) are always offered as ``"grid cells"``.
    store
        Where scenarios are listed and saved (the service's ``ScenarioStore``); None:
        scenarios live in this model only.
    **params
        Initial parameter values (``router``, ``date``, ``cutoffs``...).

    Examples
    --------
    >>> model = ComparisonModel({"demo": net}, store=ScenarioStore(folder))  # doctest: +SKIP
    >>> model.origin = (53.30, 4.20)  # doctest: +SKIP
    >>> result = model.compute()  # doctest: +SKIP
    """

    router: param.Selector[Any] = param.Selector(
        objects=[], doc="Router (network) id."
    )
    pointset: param.Selector[Any] = param.Selector(
        objects=[GRID_POINTS], default=GRID_POINTS, doc="Point set."
    )
    column: param.Selector[Any] = param.Selector(
        objects=["cells"], default="cells", doc="Opportunity column."
    )
    weight: param.Selector[Any] = param.Selector(
        objects=[""], default="", doc="Weight column (regional), or none."
    )
    date = param.CalendarDate(default=None, allow_None=True, doc="Departure date.")
    time = param.String(default="08:00", doc="Departure time of day, HH:MM.")
    window_min = param.Integer(default=30, bounds=(0, 240), doc="Departure window (minutes).")
    percentile = param.Integer(default=50, bounds=(0, 100), doc="Travel-time percentile.")
    cutoffs_min = param.List(default=[15, 30, 45], item_type=int, doc="Cutoffs (minutes).")
    modes: param.Selector[Any] = param.Selector(
        objects=["WALK,TRANSIT", "BICYCLE,TRANSIT", "WALK", "BICYCLE", "CAR"],
        default="WALK,TRANSIT",
        doc="Modes (OTP mode string).",
    )
    max_time_min = param.Integer(default=60, bounds=(1, 240), doc="Longest trip (minutes).")
    cell_size_m = param.Number(default=200.0, bounds=(25.0, 2000.0), doc="Grid cell size.")
    scenario: param.Selector[Any] = param.Selector(
        objects=[BASE_LABEL], default=BASE_LABEL, doc="Compared scenario."
    )
    origin = param.NumericTuple(default=None, length=2, allow_None=True, doc="(lat, lon).")
    threshold = param.Number(default=1000.0, doc="Accessibility level of the regional summary.")

    def __init__(
        self,
        networks: Mapping[str, TransportNetwork] | Callable[[], Mapping[str, TransportNetwork]],
        *,
        pointsets: Mapping[str, PointSet] | None = None,
        store: ScenarioStore | None = None,
        **params: Any,
    ) -> None:
        self._networks = networks if callable(networks) else (lambda n=dict(networks): n)
        self._pointsets: dict[str, PointSet] = dict(pointsets or {})
        self.store = store
        self._local: dict[str, Scenario] = {}
        self._applied: OrderedDict[tuple[int, str], TransportNetwork] = OrderedDict()
        self._grids: dict[tuple[int, float], tuple[Grid, PointSet]] = {}
        self._lock = threading.Lock()
        super().__init__()
        routers = list(self.networks())
        if not routers:
            msg = "a dashboard needs at least one network"
            raise DashboardError(msg)
        self.param.router.objects = routers
        self.param.pointset.objects = [GRID_POINTS, *self._pointsets]
        self.router = params.pop("router", routers[0])
        self.date = default_date(self.network)
        self.refresh_scenarios()
        self.param.update(**params)
        self._pointset_changed()

    # -- choices ----------------------------------------------------------------------------
    def networks(self) -> Mapping[str, TransportNetwork]:
        """The networks to choose from, by router id."""
        return self._networks()

    @property
    def network(self) -> TransportNetwork:
        """The chosen router's network."""
        nets = self.networks()
        if self.router not in nets:
            msg = f"router '{self.router}' is not loaded"
            raise DashboardError(msg)
        return nets[self.router]

    def add_pointset(self, name: str, points: PointSet) -> None:
        """Offer another opportunity point set."""
        self._pointsets[name] = points
        self.param.pointset.objects = [GRID_POINTS, *self._pointsets]

    def points(self) -> PointSet:
        """The chosen point set (the grid's cells for ``"grid cells"``)."""
        if self.pointset == GRID_POINTS:
            return self.grid()[1]
        return self._pointsets[self.pointset]

    @param.depends("router", watch=True)
    def _router_changed(self) -> None:
        self.refresh_scenarios()

    @param.depends("pointset", watch=True)
    def _pointset_changed(self) -> None:
        columns = list(self.points().opportunities.columns)
        # a point set without opportunity columns keeps the chosen one as the only option:
        # the widget never sends None, and computing says the column is missing
        self.param.column.objects = columns or [self.column]
        if self.column not in columns and columns:
            self.column = columns[0]
        self.param.weight.objects = ["", *columns]
        if self.weight not in columns:
            self.weight = ""

    def grid(self) -> tuple[Grid, PointSet]:
        """The analysis grid of the chosen network, and its cells as a point set."""
        net = self.network
        key = (id(net), float(self.cell_size_m))
        if key not in self._grids:
            grid = Grid.for_network(net, cell_size_m=float(self.cell_size_m), buffer_m=400.0)
            self._grids[key] = (grid, _grid_pointset(grid))
        return self._grids[key]

    def departure(self) -> dt.datetime:
        """The departure date and time as a naive datetime (the network's time zone)."""
        if self.date is None:
            msg = "choose a departure date"
            raise DashboardError(msg)
        try:
            clock = dt.datetime.strptime(self.time.strip(), "%H:%M").time()
        except ValueError:
            msg = f"departure time {self.time!r} is not HH:MM"
            raise DashboardError(msg) from None
        return dt.datetime.combine(self.date, clock)

    def request(self) -> AnalysisRequest:
        """The analysis request of the current choices."""
        cutoffs = self.cutoffs()
        try:
            return AnalysisRequest(
                departure=self.departure(),
                modes=self.modes,
                window_s=int(self.window_min) * 60,
                max_time_s=max(int(self.max_time_min) * 60, max(cutoffs)),
                percentiles=(int(self.percentile),),
            )
        except (TypeError, ValueError, OtpaError) as exc:
            raise DashboardError(str(exc)) from None

    def cutoffs(self) -> tuple[int, ...]:
        """Cutoffs in seconds, ascending."""
        values = sorted({int(c) for c in self.cutoffs_min})
        if not values or values[0] <= 0:
            msg = "cutoffs must be positive numbers of minutes"
            raise DashboardError(msg)
        return tuple(60 * c for c in values)

    # -- scenarios --------------------------------------------------------------------------
    def scenarios(self) -> dict[str, Scenario]:
        """Scenarios of the chosen router by id: the store's, then this model's own."""
        found: dict[str, Scenario] = {}
        if self.store is not None:
            try:
                listed = self.store.list(self.router)
            except (ScenarioError, OSError):
                listed = []
            for s in listed:
                if s.id is not None:
                    found[s.id] = s
        found.update(self._local)
        return found

    def refresh_scenarios(self) -> list[str]:
        """Re-read the scenario list (the store may have changed over HTTP)."""
        ids = [BASE_LABEL, *self.scenarios()]
        if list(self.param.scenario.objects) != ids:
            self.param.scenario.objects = ids
        if self.scenario not in ids:
            self.scenario = BASE_LABEL
        return ids

    def validate_scenario(
        self, document: str | Mapping[str, Any]
    ) -> tuple[Scenario | None, list[str]]:
        """Read a scenario document and check it against the chosen network.

        Returns
        -------
        tuple
            The scenario (None when the document cannot be read) and the library's
            problems, one sentence each (empty: it fits the network).
        """
        try:
            scenario = Scenario.from_json(document if isinstance(document, str) else dict(document))
        except ScenarioError as exc:
            return None, list(exc.problems or (str(exc),))
        return scenario, scenario.validate(self.network)

    def save_scenario(self, scenario: Scenario) -> str:
        """Validate and store a scenario (in the store when there is one); returns its id.

        Raises
        ------
        DashboardError
            With the library's problems when the scenario does not fit the network.
        """
        problems = scenario.validate(self.network)
        if problems:
            raise DashboardError("; ".join(problems))
        if self.store is not None:
            try:
                sid = self.store.save(self.router, scenario)
            except ScenarioError as exc:
                raise DashboardError("; ".join(exc.problems or (str(exc),))) from None
        else:
            sid = scenario.id or f"s{len(self._local) + 1}"
            self._local[sid] = scenario
        self.refresh_scenarios()
        return sid

    def scenario_object(self) -> Scenario | None:
        """The chosen scenario, None for the base network."""
        if self.scenario == BASE_LABEL:
            return None
        found = self.scenarios().get(str(self.scenario))
        if found is None:
            msg = f"scenario '{self.scenario}' no longer exists"
            raise DashboardError(msg)
        return found

    def scenario_network(self) -> TransportNetwork:
        """The chosen network with the chosen scenario applied (cached)."""
        base = self.network
        scenario = self.scenario_object()
        if scenario is None:
            return base
        key = (id(base), scenario.to_json(indent=None))
        with self._lock:
            if key in self._applied:
                self._applied.move_to_end(key)
                return self._applied[key]
        try:
            modified = scenario.apply(base)
        except ScenarioError as exc:
            raise DashboardError("; ".join(exc.problems or (str(exc),))) from None
        with self._lock:
            self._applied[key] = modified
            while len(self._applied) > _MAX_SCENARIO_NETWORKS:
                self._applied.popitem(last=False)
        return modified

    def scenario_label(self) -> str:
        """Display name of the chosen scenario."""
        s = self.scenario_object()
        return BASE_LABEL if s is None else s.name

    # -- one origin -------------------------------------------------------------------------
    def compute(self, origin: tuple[float, float] | None = None) -> SinglePointResult:
        """Surfaces, isochrones, difference and opportunities reached from one origin.

        Raises
        ------
        DashboardError
            When a choice is invalid or the origin is away from the network (the
            library's message).
        """
        where = origin if origin is not None else self.origin
        if where is None:
            msg = "click on the map to choose an origin"
            raise DashboardError(msg)
        lat, lon = float(where[0]), float(where[1])
        req = self.request()
        cutoffs = self.cutoffs()
        column = self._column()
        grid, _ = self.grid()
        points = self.points()
        versions = {"base": self.network, "scenario": self.scenario_network()}
        surfaces: dict[str, xr.Dataset] = {}
        isos: dict[str, Any] = {}
        reached: dict[str, pd.Series[float]] = {}
        for name, net in versions.items():
            try:
                surface = compute_time_surface(net, (lat, lon), target=grid, request=req)
                at_points = compute_time_surface(net, (lat, lon), target=points, request=req)
            except OtpaError as exc:
                raise DashboardError(str(exc)) from None
            surfaces[name] = surface
            isos[name] = surface.otpa.isochrones(list(cutoffs), percentile=int(self.percentile))
            acc = accessibility(at_points, points, cutoffs=cutoffs, columns=[column])
            reached[name] = acc.sel(percentile=int(self.percentile), opportunity=column).to_series()
        change = travel_time_difference(surfaces["base"], surfaces["scenario"])
        table = pd.DataFrame(reached)
        table["change"] = table["scenario"] - table["base"]
        table.index = pd.Index([int(c) for c in table.index], name="cutoff")
        return SinglePointResult(
            origin=(lat, lon),
            surfaces=surfaces,
            isochrones=isos,
            difference=change.sel(percentile=int(self.percentile)),
            reached=table,
            scenario_name=self.scenario_label(),
        )

    def _column(self) -> str:
        columns = list(self.points().opportunities.columns)
        if self.column not in columns:
            msg = f"point set '{self.pointset}' has no column '{self.column}'"
            raise DashboardError(msg)
        return str(self.column)

    # -- every point ------------------------------------------------------------------------
    def regional(
        self,
        *,
        chunks: int = 16,
        progress: Callable[[float], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> RegionalResult:
        """Accessibility from every point of the point set, base and scenario.

        Both versions' travel-time matrices come from one dask array
        (:func:`~otpa.analysis.paired_travel_time_matrix`) of ``chunks`` origins per
        task, each task computing its origins under both versions (a transit-only
        scenario shares each origin's street searches with the base network).  The
        first task runs alone (it links the points to the streets; the scenario's
        network shares that table when its stops are the base's), then the others run
        in a pool of one thread per core, so ``progress`` (called with the fraction
        done, 0 to 1, after every task) and ``cancelled`` (polled while tasks run; the
        tasks not started are dropped) work.

        Raises
        ------
        RegionalCancelledError
            When ``cancelled()`` became true.
        DashboardError
            When a choice is invalid.
        """
        req = self.request()
        cutoffs = self.cutoffs()
        column = self._column()
        weight = self.weight or None
        points = self.points()
        pair = paired_travel_time_matrix(
            self.network, self.scenario_network(), points, request=req, chunks=max(1, int(chunks))
        )
        tasks = list(enumerate(pair.data.to_delayed().ravel().tolist()))
        blocks = _run_tasks(tasks, progress=progress, cancelled=cancelled)
        both = pair.copy(data=np.concatenate([blocks[k] for k in range(len(tasks))], axis=1))
        computed = {
            name: both.isel(scenario=k, drop=True) for k, name in enumerate(("base", "scenario"))
        }
        access = {
            name: accessibility(ttm, points, cutoffs=cutoffs, columns=[column]).sel(
                percentile=int(self.percentile), opportunity=column
            )
            for name, ttm in computed.items()
        }
        frame = pd.DataFrame({"lat": points.lat, "lon": points.lon}, index=points.ids)
        if weight is not None:
            frame[weight] = points.opportunities[weight].reindex(frame.index).to_numpy()
        for c in cutoffs:
            minutes = c // 60
            a = access["base"].sel(cutoff=c).to_series().reindex(frame.index)
            b = access["scenario"].sel(cutoff=c).to_series().reindex(frame.index)
            frame[f"base_{minutes}"] = a.to_numpy()
            frame[f"scenario_{minutes}"] = b.to_numpy()
            frame[f"change_{minutes}"] = (b - a).to_numpy()
        frame.index.name = "id"
        return RegionalResult(frame, cutoffs, column, weight, access)



def _run_tasks(
    tasks: list[tuple[int, Any]],
    *,
    progress: Callable[[float], None] | None,
    cancelled: Callable[[], bool] | None,
) -> dict[int, Any]:
    """Compute dask tasks in a thread pool; the first alone (it fills the shared caches)."""

    def stop_requested() -> bool:
        return cancelled is not None and cancelled()

    def run(part: Any) -> Any:
        return dask_compute(part, scheduler="sync")[0]

    def cancel() -> RegionalCancelledError:
        msg = "the regional comparison was cancelled"
        return RegionalCancelledError(msg)

    total = len(tasks)
    done: dict[int, Any] = {}
    if progress is not None:
        progress(0.0)
    if not tasks:
        return done
    if stop_requested():
        raise cancel()
    k, part = tasks[0]
    done[k] = run(part)
    if progress is not None:
        progress(len(done) / total)
    pool = ThreadPoolExecutor(max(1, os.cpu_count() or 1), thread_name_prefix="otpa-regional")
    try:
        pending = {pool.submit(run, part): k for k, part in tasks[1:]}
        while pending:
            finished, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in finished:
                done[pending.pop(future)] = future.result()
            if finished and progress is not None:
                progress(len(done) / total)
            if pending and stop_requested():
                raise cancel()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return done
