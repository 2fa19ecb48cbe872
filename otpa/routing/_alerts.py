"""Service alerts onto the transit legs of itineraries (OTP 1.x ``LocalizedAlert``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from otpa.network import TransportNetwork
from otpa.realtime import TimetableSnapshot, route_agency
from otpa.routing.model import Itinerary, Leg, LocalizedAlert
from otpa.routing.request import PlanRequest


def _leg_alerts(
    network: TransportNetwork, snapshot: TimetableSnapshot, leg: Leg, request: PlanRequest
) -> tuple[LocalizedAlert, ...]:
    agency = route_agency(network.transit).get(leg.route_id or "")
    stops = [s for s in (leg.from_place.stop_id, leg.to_place.stop_id) if s]
    found = snapshot.alerts.for_leg(
        agency=agency,
        route=leg.route_id,
        trip=leg.trip_id,
        stops=stops,
        route_type=leg.route_type,
        start_s=leg.start_time.timestamp(),
        end_s=leg.end_time.timestamp(),
        filtered=not request.itineraries.disable_alert_filtering,
    )
    locale = request.itineraries.locale
    return tuple(
        LocalizedAlert(
            alert_header_text=a.header.text(locale),
            alert_description_text=a.description.text(locale),
            alert_url=a.url.text(locale),
            effective_start_date=a.effective_start,
        )
        for a in found
    )


def with_alerts(
    network: TransportNetwork,
    itineraries: Sequence[Itinerary],
    snapshot: TimetableSnapshot | None,
    request: PlanRequest,
) -> list[Itinerary]:
    """The itineraries with each transit leg's active alerts (``request.itineraries.locale``).

    A leg gets the alerts of its agency, route type, route, trip, board and alight
    stops and its route and trip at those stops, active during the leg unless
    ``disableAlertFiltering``; legs without alerts are left as they are.
    """
    if snapshot is None or not snapshot.alerts:
        return list(itineraries)
    out: list[Itinerary] = []
    for itinerary in itineraries:
        legs = []
        for leg in itinerary.legs:
            alerts = _leg_alerts(network, snapshot, leg, request) if leg.transit_leg else ()
            legs.append(replace(leg, alerts=alerts) if alerts else leg)
        out.append(replace(itinerary, legs=tuple(legs)))
    return out
