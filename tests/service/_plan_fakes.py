"""Test doubles for ``/plan``: a hand-built TripPlan, a recording planner, a server with it.

The plan is a walk - bus - walk trip in the demo city's time zone
(``Europe/Amsterdam``, UTC+1 in January) on 2026-01-05:

=====  =====  ============================  ================================
leg    mode   local time                    epoch milliseconds
=====  =====  ============================  ================================
0      WALK   08:00:00 - 08:05:00           1767596400000 - 1767596700000
1      BUS    08:07:00 - 08:17:30 (route 1)  1767596820000 - 1767597450000
2      WALK   08:17:30 - 08:20:00           1767597450000 - 1767597600000
=====  =====  ============================  ================================
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

import tornado.web
from _fakes import FakeNetwork, Service

from otpa.routing.model import (
    AbsoluteDirection,
    DebugOutput,
    ElevationMetadata,
    EncodedPolyline,
    Fare,
    FareComponent,
    Itinerary,
    Leg,
    LocalizedAlert,
    Money,
    Place,
    RelativeDirection,
    TripPlan,
    VertexType,
    WalkStep,
    WrappedCurrency,
)
from otpa.routing.request import PlanRequest
from service.app import make_app
from service.config import ServiceConfig
from service.handlers.plan import PlanHandler
from service.otp1.plan_params import RoutingDefaults
from service.registry import RouterRegistry
from tests.fixtures.loopback import serve_app

TZ = ZoneInfo("Europe/Amsterdam")
DEMO = FakeNetwork(name="demo", time_zone="Europe/Amsterdam")
T0 = dt.datetime(2026, 1, 5, 8, 0, tzinfo=TZ)
T0_MS = 1767596400000  # 2026-01-05T07:00:00Z
OFFSET_MS = 3_600_000  # UTC+1


def at(minutes: float) -> dt.datetime:
    """T0 plus some minutes."""
    return T0 + dt.timedelta(minutes=minutes)


def ms(minutes: float) -> int:
    """Epoch milliseconds of ``at(minutes)``."""
    return T0_MS + round(minutes * 60_000)


USD = WrappedCurrency(currency="USD", currency_code="USD", symbol="$", default_fraction_digits=2)
LINE = EncodedPolyline(points="_p~iF~ps|U_ulLnnqC", length=2)
ORIGIN = Place(name="Origin", lon=4.19, lat=53.295, orig="Home")
DESTINATION = Place(name="Destination", lon=4.21, lat=53.305, orig="")
STOP_A = Place(
    name="Stop A",
    lon=4.195,
    lat=53.297,
    vertex_type=VertexType.TRANSIT,
    stop_id="demo:A",
    stop_code="1001",
    zone_id="z1",
    stop_index=0,
    stop_sequence=1,
    departure=at(7),
    arrival=at(6),
)
STOP_B = Place(
    name="Stop B",
    lon=4.2,
    lat=53.3,
    vertex_type=VertexType.TRANSIT,
    stop_id="demo:B",
    stop_index=1,
    stop_sequence=2,
    arrival=at(12),
    departure=at(12.5),
)
STOP_C = Place(
    name="Stop C",
    lon=4.205,
    lat=53.303,
    vertex_type=VertexType.TRANSIT,
    stop_id="demo:C",
    stop_index=2,
    stop_sequence=3,
    arrival=at(17.5),
    departure=at(18),
)
STEP = WalkStep(
    distance=120.5,
    relative_direction=RelativeDirection.DEPART,
    street_name="Main Street",
    absolute_direction=AbsoluteDirection.NORTH,
    lon=4.19,
    lat=53.295,
    elevation=((0.0, 1.5), (120.5, 2.0)),
)
ALERT = LocalizedAlert(alert_header_text="Detour", effective_start_date=at(-60))


def walk_leg(start: float, end: float, origin: Place, destination: Place) -> Leg:
    """A walking leg between two places."""
    return Leg(
        mode="WALK",
        start_time=at(start),
        end_time=at(end),
        from_place=Place(origin.name, origin.lon, origin.lat, departure=at(start)),
        to_place=Place(destination.name, destination.lon, destination.lat, arrival=at(end)),
        distance=350.25,
        leg_geometry=LINE,
        agency_time_zone_offset=OFFSET_MS,
        steps=(STEP,),
    )


BUS_LEG = Leg(
    mode="BUS",
    start_time=at(7),
    end_time=at(17.5),
    from_place=STOP_A,
    to_place=STOP_C,
    distance=2500.0,
    leg_geometry=LINE,
    agency_time_zone_offset=OFFSET_MS,
    route="1",
    transit_leg=True,
    intermediate_stops=(STOP_B,),
    inter_stop_geometry=(LINE, LINE),
    agency_name="Demo Transit",
    agency_url="https://demo.example",
    agency_id="DT",
    route_color="FF0000",
    route_text_color="FFFFFF",
    route_type=3,
    route_id="demo:r1",
    route_short_name="1",
    route_long_name="Harbour - Centre",
    trip_id="demo:t1",
    trip_short_name="101",
    headsign="Centre",
    service_date="20260105",
    board_rule="mustPhone",
    alerts=(ALERT,),
    accessibility_score=0.5,
)
FARE = Fare(
    fare={"regular": Money(250, USD)},
    details={"regular": (FareComponent("demo:F1", Money(250, USD), ("demo:r1",), leg_index=1),)},
)
ITINERARY = Itinerary(
    legs=(walk_leg(0, 5, ORIGIN, STOP_A), BUS_LEG, walk_leg(17.5, 20, STOP_C, DESTINATION)),
    start_time=at(0),
    end_time=at(20),
    walk_time=450,
    transit_time=630,
    waiting_time=120,
    walk_distance=700.5,
    transfers=0,
    elevation_gained=1.0,
    fare=FARE,
    generalized_cost=2500.0,
)
PLAN = TripPlan(
    date=T0,
    from_place=ORIGIN,
    to_place=DESTINATION,
    itineraries=(ITINERARY,),
    debug_output=DebugOutput(1, 20, (15, 5), 3, 24, False),
    elevation_metadata=ElevationMetadata(0.0, False),
)


@dataclass
class RecordingPlanner:
    """Records each request; returns ``result`` or raises ``error``."""

    result: TripPlan = PLAN
    error: BaseException | None = None
    requests: list[PlanRequest] = field(default_factory=list)

    def __call__(self, network: Any, request: PlanRequest) -> TripPlan:
        self.requests.append(request)
        if self.error is not None:
            raise self.error
        return self.result

    @property
    def last(self) -> PlanRequest:
        """The last request planned."""
        return self.requests[-1]


def start_app(app: tornado.web.Application) -> tuple[str, Callable[[], None]]:
    """Serve an application on a loopback port in a thread; return its base URL and a stopper."""
    return serve_app(app)


def plan_app(
    networks: Mapping[str, Any],
    planner: Any = None,
    routing_defaults: Mapping[str, RoutingDefaults] | None = None,
) -> tornado.web.Application:
    """``make_app`` with the plan route's planner (and defaults) injected through the URL table."""
    registry = RouterRegistry(None)
    for router_id, network in networks.items():
        registry.register(router_id, network)
    app = make_app(ServiceConfig(port=0), registry, builder=None)
    if planner is not None or routing_defaults is not None:
        ctx = app.wildcard_router.named_rules["plan"].target_kwargs["ctx"]
        kwargs = {"ctx": ctx, "planner": planner, "routing_defaults": routing_defaults}
        app.add_handlers(
            r".*", [tornado.web.url(r"/otp/routers/([^/]+)/plan/?", PlanHandler, kwargs)]
        )
    return app


def serve_plan(
    planner: Any = None,
    networks: Mapping[str, Any] | None = None,
    routing_defaults: Mapping[str, RoutingDefaults] | None = None,
) -> Iterator[Service]:
    """Run a plan server for the duration of a fixture."""
    app = plan_app(networks or {"demo": DEMO}, planner, routing_defaults)
    base, stop = start_app(app)
    try:
        yield Service(base, f"{base}/otp/routers/default", None, stop)
    finally:
        stop()
