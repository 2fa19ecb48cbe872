"""Ride hailing (CAR_HAIL): the ETA pre-check and the hailed leg's estimate, as the ibi fork.

Before planning, the router's ride-hail providers (:func:`otpa.mobility.tnc_for`, set
from ``router-config.json``) are asked how soon a car can be at the origin
(``companies``, default ``NOAPI``):

* no provider configured, or an unusable configuration: message 482
  (:class:`~otpa.routing.errors.TncConfigInvalidError`);
* estimates, but none whose ``wheelchairAccessible`` equals the request's
  ``wheelchair``: message 480 (:class:`~otpa.routing.errors.TncUnavailableError`);
* the provider fails (timeout, HTTP error, a company not configured): the plan goes on
  without the hailed option and its ``notices`` say why.

The hailed car waits the shortest ETA at the origin, then drives (CAR costs) to the
destination or, with transit, to where the rider gets out before a stop (the kiss and
ride chain).  The leg's ``tncData`` is the provider's ride estimate for that ride.
"""

from __future__ import annotations

from dataclasses import dataclass

from otpa.mobility import EtaEstimate, TncConfigError, TncError, TncProvider, tnc_for
from otpa.mobility import estimate_eta as _estimate_eta
from otpa.mobility import estimate_ride as _estimate_ride
from otpa.network import TransportNetwork
from otpa.routing.errors import TncConfigInvalidError, TncUnavailableError
from otpa.routing.model import TncData
from otpa.routing.request import PlanRequest

__all__ = ["Hail", "hail_check", "ride_data"]


@dataclass(frozen=True, eq=False)
class Hail:
    """A ride-hail option that passed the pre-check: the chosen ETA and the providers."""

    eta: EtaEstimate
    providers: dict[str, TncProvider]

    @property
    def wait_s(self) -> int:
        """Seconds until the car is at the origin."""
        return int(self.eta.estimated_seconds)


def hail_check(
    network: TransportNetwork, request: PlanRequest, lat: float, lon: float
) -> tuple[Hail | None, str | None]:
    """The ETA pre-check at the origin: the hail option, or why there is none.

    Returns
    -------
    (Hail or None, str or None)
        The option, or None and the reason (a provider that failed).

    Raises
    ------
    TncConfigInvalidError
        The router has no (usable) ride-hail configuration (482).
    TncUnavailableError
        No company can pick up here with the requested accessibility (480).
    """
    try:
        providers = dict(tnc_for(network))
    except TncConfigError as exc:
        msg = f"the router's ride-hail configuration is unusable: {exc}"
        raise TncConfigInvalidError(msg) from exc
    if not providers:
        msg = "ride hailing (CAR_HAIL) asked for, but no company is configured for this router"
        raise TncConfigInvalidError(msg)
    companies = list(request.rental.companies) or None
    try:
        etas = _estimate_eta(providers, lat, lon, companies)
    except TncError as exc:
        return None, f"ride hailing left out: {exc}"
    wheelchair = request.wheelchair.enabled
    fitting = [e for e in etas if e.wheelchair_accessible == wheelchair]
    if not fitting:
        msg = "no ride-hail company can pick up at the origin" + (
            " with a wheelchair-accessible car" if wheelchair else ""
        )
        raise TncUnavailableError(msg)
    best = min(fitting, key=lambda e: (e.estimated_seconds, e.company, e.product_id))
    return Hail(best, providers), None


def ride_data(
    hail: Hail, from_lat: float, from_lon: float, to_lat: float, to_lon: float
) -> tuple[TncData | None, str | None]:
    """The hailed leg's ``tncData``: the provider's estimate of the ride (or why none)."""
    eta = hail.eta
    try:
        rides = _estimate_ride(hail.providers, from_lat, from_lon, to_lat, to_lon, [eta.company])
    except TncError as exc:
        return None, f"ride-hail estimate unavailable: {exc}"
    same = [r for r in rides if r.ride_type == eta.product_id] or rides
    if not same:
        return None, f"ride-hail estimate unavailable: {eta.company} gave none"
    r = same[0]
    data = TncData(
        company=r.company,
        currency=r.currency,
        travel_duration=int(r.duration_s),
        max_cost=float(r.max_cost),
        min_cost=float(r.min_cost),
        product_id=eta.product_id,
        display_name=eta.display_name,
        estimated_arrival=hail.wait_s,
    )
    return data, None
