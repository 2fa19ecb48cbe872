"""OTP's ``feed_route`` route specs over HTTP, for a feed id that has underscores.

Feed ids come from file names (``caltrain_gtfs.zip`` -> ``caltrain_gtfs``), so
``bannedRoutes=caltrain_gtfs_Bullet`` must be read against the network's feed ids:
route name ``Bullet`` of feed ``caltrain_gtfs`` (not agency ``caltrain``, route id
``gtfs``, name ``Bullet``).  Caltrain's routes (routes.txt): ``ct_bullet`` "Bullet",
``ct_limited`` "Limited", ``ct_local`` "Local".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from _fakes import Service

from otpa.network import TransportNetwork, build_network

pytestmark = pytest.mark.http

FEED = "caltrain_gtfs"
#: San Francisco to Palo Alto on a weekday afternoon (service WD20090831: Mon-Fri).
QUERY = (
    f"fromPlace={quote(FEED + ':San Francisco Caltrain')}"
    f"&toPlace={quote(FEED + ':Palo Alto Caltrain')}"
    "&mode=TRANSIT,WALK&date=2010-03-10&time=16:00:00&numItineraries=3"
)


@pytest.fixture(scope="module")
def caltrain(data_root: Path) -> TransportNetwork:
    return build_network(gtfs=[data_root / "tiny" / "transit-only" / f"{FEED}.zip"])


@pytest.fixture
def svc(make_service: Any, caltrain: TransportNetwork) -> Service:
    service: Service = make_service(networks={"caltrain": caltrain}, graphs_dir=None)
    return service


def _routes(svc: Service, extra: str = "") -> set[str]:
    # the first plan of a session loads the search kernels: give it time
    resp = svc.request("GET", f"/otp/routers/caltrain/plan?{QUERY}{extra}", timeout=120.0)
    assert resp.status == 200, resp.text
    body = resp.json()
    assert "error" not in body or body["error"] is None, body
    return {
        leg["routeId"]
        for it in body["plan"]["itineraries"]
        for leg in it["legs"]
        if leg["transitLeg"]
    }


def test_feed_ids_with_underscores_in_route_specs(svc: Service) -> None:
    assert f"{FEED}:ct_bullet" in _routes(svc)  # the Bullet is in play at this hour
    by_name = _routes(svc, f"&bannedRoutes={FEED}_Bullet,{FEED}_Limited")
    assert by_name == {f"{FEED}:ct_local"}
    by_id = _routes(svc, f"&bannedRoutes={FEED}__ct\\_bullet,{FEED}__ct\\_limited")
    assert by_id == {f"{FEED}:ct_local"}
    assert _routes(svc, f"&whiteListedRoutes={FEED}_Bullet") == {f"{FEED}:ct_bullet"}
