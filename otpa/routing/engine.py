"""The routing engine: the steps every search is built from, for plans and analyses alike.

:func:`otpa.plan` and the analysis functions (:mod:`otpa.analysis`: surfaces,
matrices, profile routing) compute travel times with the same steps, taken from
this module, so a time in a matrix equals the time of the plan for the same
request:

1. **Places** -- :func:`resolve_location` turns a :class:`~otpa.routing.Location`
   (coordinate, stop id, vertex label) into an :class:`Endpoint`.
2. **Street ends** -- :func:`street_end` links an endpoint to the streets for one
   mode (a snap onto an edge, or a vertex), with the options of that mode from
   :func:`street_options`; batches of points are snapped with :func:`snap_many`.
3. **Access and egress** -- :func:`find_access` finds the stops within the walk
   (cycle, drive) limit of a street end by one street search.
4. **Transit** -- :func:`raptor_filters` and :func:`transit_request` map a
   :class:`~otpa.routing.PlanRequest` onto a RAPTOR request (slacks, board costs,
   penalties, bans and whitelists, wheelchair, transfers.txt rules);
   :func:`transit_itineraries` runs the planner's McRAPTOR search and assembles
   itineraries.  The analysis runs range RAPTOR on the same request with the
   earliest-arrival criteria.
5. **Geometry** -- :func:`path_geometry` and :func:`edge_part_points` give the
   points of street paths and partial edges.

Nothing else in :mod:`otpa.routing`'s private modules is meant for other packages.

Examples
--------
>>> import datetime as dt
>>> from otpa.routing import PlanRequest, RequestModes
>>> bike = RequestModes(street=frozenset({"BICYCLE"}), transit_modes=frozenset())
>>> req = PlanRequest(None, None, dt.datetime(2026, 1, 1), modes=bike)
>>> street_options(req).mode
'BICYCLE'
>>> street_options(req, "WALK").speed_mps
1.33
"""

from __future__ import annotations

import dataclasses
from typing import Literal
from zoneinfo import ZoneInfo

from otpa.network import TransportNetwork
from otpa.routing import _access, _places, _raptor_mapping, _snap, _street_geometry, _transit_plan
from otpa.routing._access import MAX_SNAP_M, Access, StreetEnd
from otpa.routing._legs import StreetLegGeometry
from otpa.routing._mobility_plan import MobilityAccess, origin_mobility, uses_mobility
from otpa.routing._places import Endpoint
from otpa.routing._raptor_mapping import RaptorFilters
from otpa.routing._snap import SnapArrays
from otpa.routing._transit_plan import TransitSearch
from otpa.routing.model import Itinerary
from otpa.routing.request import Location, PlanRequest
from otpa.routing.street_router import StreetOptions, StreetPath
from otpa.street import StreetGraph
from otpa.transit.model import TransitModel
from otpa.transit.raptor.api import RaptorRequest
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import FloatArray

__all__ = [
    "MAX_SNAP_M",
    "Access",
    "Endpoint",
    "MobilityAccess",
    "RaptorFilters",
    "SnapArrays",
    "StreetEnd",
    "StreetLegGeometry",
    "TransitSearch",
    "edge_part_points",
    "find_access",
    "mobility_access",
    "path_geometry",
    "raptor_filters",
    "resolve_location",
    "snap_many",
    "street_end",
    "street_options",
    "transit_itineraries",
    "transit_request",
    "uses_mobility",
]


def resolve_location(
    network: TransportNetwork, location: Location, role: str, default_name: str
) -> Endpoint:
    """Resolve a requested place against a network.

    Parameters
    ----------
    network
        The network.
    location
        A coordinate, a stop id (``feed:stop`` or OTP's ``feed_stop``) or a street
        vertex label (``osm:node:N``).
    role
        ``"from"`` or ``"to"``: named in the error's ``missing`` list.
    default_name
        Name of a coordinate given without one ("Origin", "Destination").

    Returns
    -------
    Endpoint
        The point, with its stop and street vertex when it is a stop or a vertex.

    Raises
    ------
    otpa.routing.OutsideBoundsError
        When the coordinate is outside the network or the label is unknown.
    """
    return _places.resolve_location(network, location, role, default_name)


def street_options(request: PlanRequest, mode: str | None = None) -> StreetOptions:
    """The street-search options of one street mode under a request's preferences.

    Parameters
    ----------
    request
        The preferences (walk, bike, car, wheelchair) are read; places and time are
        not (they may be ``None``).
    mode
        ``"WALK"``, ``"BICYCLE"`` or ``"CAR"``; default: the request's access mode
        (:attr:`~otpa.routing.RequestModes.access_mode`).

    Returns
    -------
    StreetOptions
        Speed, reluctances, optimisation, wheelchair and slope limits of the mode.

    Raises
    ------
    ValueError
        When ``mode`` is not a street mode.
    """
    return StreetOptions.from_request(request, mode or request.modes.access_mode)


def street_end(network: TransportNetwork, endpoint: Endpoint, mode: str, role: str) -> StreetEnd:
    """Link an endpoint to the streets for ``mode``.

    A stop or vertex endpoint starts at its vertex; a coordinate is snapped onto the
    nearest edge usable by ``mode`` within :data:`MAX_SNAP_M` (the graph is not
    changed).  Without streets the end has no street position (``where=None``).

    Parameters
    ----------
    network
        The network.
    endpoint
        A resolved place (:func:`resolve_location`).
    mode
        ``"WALK"``, ``"BICYCLE"`` or ``"CAR"``.
    role
        ``"from"`` or ``"to"``: named in the error.

    Returns
    -------
    StreetEnd

    Raises
    ------
    otpa.routing.OutsideBoundsError
        When a coordinate is not near any street usable by ``mode``.
    """
    return _access.street_end(network, endpoint, mode, role)


def find_access(
    network: TransportNetwork,
    end: StreetEnd,
    options: StreetOptions,
    *,
    max_distance_m: float,
    reverse: bool,
) -> Access:
    """Stops reachable from (``reverse``: to) a street end within the access limit.

    One street search from the end (OTP 1.x's access/egress search); without
    streets, the stop's own transfers or a straight-line walk.  A stop endpoint
    includes itself at 0 s.

    Parameters
    ----------
    network
        The network.
    end
        The street end (:func:`street_end`).
    options
        Street options of the access mode (:func:`street_options`).
    max_distance_m
        Distance limit; the time limit is this distance at the mode's speed.
    reverse
        Search towards the end (egress) instead of away from it (access).

    Returns
    -------
    Access
        Stop indices with times, generalized costs, distances and the search's paths.
    """
    return _access.find_access(
        network, end, options, max_distance_m=max_distance_m, reverse=reverse
    )


def mobility_access(
    network: TransportNetwork, request: PlanRequest, origin: Endpoint
) -> MobilityAccess:
    """Access stops and street-only trips of an origin that changes vehicle on the street.

    For requests where :func:`uses_mobility` is true (``BICYCLE_RENT``, ``CAR_PARK``,
    ``BICYCLE_PARK`` or ``CAR`` with transit): the planner's chained street searches
    (walk, rent, ride, return, walk; drive, park, walk...) from the origin, so a
    travel time in an analysis equals the plan's.

    Parameters
    ----------
    network
        The network.
    request
        Its rental, bike, car and walk preferences are read.
    origin
        The resolved origin (:func:`resolve_location`).

    Returns
    -------
    MobilityAccess
        The stops' access (walking competes where the rider may walk) and, for bike
        rental, the street trees of the rental trips.
    """
    return origin_mobility(network, request, origin)


def raptor_filters(
    model: TransitModel, timetable: RaptorTimetable, request: PlanRequest
) -> RaptorFilters:
    """The RAPTOR masks of a request's bans, whitelists, preferences and wheelchair needs.

    Parameters
    ----------
    model
        The network's transit model.
    timetable
        The RAPTOR timetable of the service day.
    request
        The request whose filters are mapped.

    Returns
    -------
    RaptorFilters
        Route, trip and stop masks and route penalties over ``timetable``.
    """
    return _raptor_mapping.raptor_filters(model, timetable, request)


def transit_request(
    network: TransportNetwork,
    request: PlanRequest,
    timetable: RaptorTimetable,
    origin: StreetEnd,
    options: StreetOptions,
    access: Access,
    egress: Access | None = None,
    *,
    destination: StreetEnd | None = None,
    criteria: Literal["cost", "arrival"] = "cost",
) -> RaptorRequest:
    """The one mapping of a :class:`~otpa.routing.PlanRequest` onto a RAPTOR request.

    Walking transfers at the walk speed, slacks, board costs, transfer penalties,
    waiting, route and trip filters (:func:`raptor_filters`) and transfers.txt
    rules, departing (or arriving, ``arrive_by``) at ``request.date_time``.  The
    planner searches with ``criteria="cost"``; the analysis functions with
    ``"arrival"`` (and range RAPTOR), so their times agree with plans.

    Parameters
    ----------
    network
        The network.
    request
        The request; ``date_time`` must be time-zone aware or on the network's clock.
    timetable
        The RAPTOR timetable of the service day.
    origin, destination
        The street ends (``destination`` defaults to ``origin``: one-to-many searches).
    options
        Street options of the access mode (its board cost applies).
    access, egress
        Access and egress stops (:func:`find_access`); no egress by default.
    criteria
        ``"cost"`` (McRAPTOR, generalized cost) or ``"arrival"`` (earliest arrival).

    Returns
    -------
    otpa.transit.raptor.api.RaptorRequest
    """
    search = TransitSearch(
        network,
        request,
        request.date_time,
        origin,
        origin if destination is None else destination,
        options,
        ZoneInfo(network.time_zone),
    )
    filters = raptor_filters(network.transit, timetable, request)
    rreq = _transit_plan.raptor_request(
        search,
        timetable,
        filters,
        access,
        Access.empty() if egress is None else egress,
        filters.trip_allowed,
    )
    return rreq if criteria == "cost" else dataclasses.replace(rreq, criteria=criteria)


def transit_itineraries(search: TransitSearch) -> list[Itinerary]:
    """The planner's transit itineraries for a search (possibly none).

    Access and egress searches, McRAPTOR on the generalized cost, repeated with the
    trips used banned until ``numItineraries`` distinct itineraries are found, and
    the itineraries assembled with street geometry, walk steps and fares.

    Parameters
    ----------
    search
        Network, request, time, street ends, options and an optional on-board start.

    Returns
    -------
    list of Itinerary
    """
    return _transit_plan.transit_itineraries(search)


def path_geometry(network: TransportNetwork, path: StreetPath) -> StreetLegGeometry:
    """Geometry, walk steps and elevation change of a street path.

    Parameters
    ----------
    network
        The network the path was searched on.
    path
        A street path (:func:`otpa.routing.street_router.street_path`).

    Returns
    -------
    StreetLegGeometry
    """
    return _access.path_geometry(network, path)


def edge_part_points(
    graph: StreetGraph, edge: int, start: float, end: float
) -> tuple[FloatArray, FloatArray]:
    """Coordinates of the part ``[start, end]`` (fractions) of a directed edge.

    Parameters
    ----------
    graph
        The street graph.
    edge
        Directed edge index.
    start, end
        Fractions along the edge (0 at its start, 1 at its end).

    Returns
    -------
    lat, lon : ndarray
        The points, first and last interpolated on the edge's geometry.
    """
    return _street_geometry.edge_part_points(graph, edge, start, end)


def snap_many(
    graph: StreetGraph, lat: FloatArray, lon: FloatArray, mode: str, max_distance_m: float
) -> SnapArrays:
    """Snap many points onto the nearest street edges usable by ``mode`` (vectorised).

    Exactly the snap of :func:`street_end` (OTP 1.x's origin linking), for batches:
    the edge is the direction of the nearest segment ``mode`` may use (the forward
    one when both may be used) and ``fraction`` the share of it before the snapped
    position.

    Parameters
    ----------
    graph
        The street graph.
    lat, lon
        Coordinates of the points.
    mode
        ``"WALK"``, ``"BICYCLE"`` (also edges a cyclist can only walk) or ``"CAR"``.
    max_distance_m
        Points farther than this from a usable edge are not snapped.

    Returns
    -------
    SnapArrays
        Per point; ``edge == -1`` where nothing usable is in reach.
    """
    return _snap.snap_many(graph, lat, lon, mode, max_distance_m)
