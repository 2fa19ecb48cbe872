"""The demo city's bike share as a GBFS v2.3 feed (``gbfs/``) and a ``router-config.json``.

Every ``amenity=bicycle_rental`` node of the plan becomes a station (id
``station-<osm node id>``, the node's name, position and ``capacity``) holding
``capacity * 2 // 5`` bikes, the rest free docks.  ``router-config.json`` configures a
``bike-rental`` updater on that folder (network ``DemoBike``) and, as OTP 1.x's
``transportation-network-company-updater`` entry of the same list, the built-in ride-hail
estimator (company ``NOAPI``) with the fares of :data:`DEMO_TNC`.  Everything is
deterministic (fixed ``last_updated``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from otpa.mobility import TNC_UPDATER_TYPE
from otpa.testing._demo_gtfs import TIMEZONE
from otpa.testing._demo_model import CityPlan, to_latlon

__all__ = ["DEMO_NETWORK", "DEMO_TNC", "GBFS_DIRNAME", "ROUTER_CONFIG_FILENAME", "write_gbfs"]

GBFS_DIRNAME = "gbfs"
ROUTER_CONFIG_FILENAME = "router-config.json"
#: The rental network (system id) of the demo bike share.
DEMO_NETWORK = "DemoBike"
#: 2026-01-01 00:00 UTC: every file's ``last_updated``.
_LAST_UPDATED = 1767225600
_BIKE_TYPE = "demo-bike"
#: The demo router's built-in ride-hail estimator (a ``transportation-network-company-updater``).
DEMO_TNC: dict[str, Any] = {
    "sourceType": "no-api",
    "defaultArrivalTimeSeconds": 240,
    "isWheelChairAccessible": False,
    "currency": "EUR",
    "baseFare": 3.0,
    "perKm": 1.5,
    "perMinute": 0.3,
    "minimumFare": 8.0,
    "speedKph": 30.0,
    "detourFactor": 1.3,
    "priceSpread": 0.1,
}


def _doc(data: Any, ttl: int = 60) -> str:
    body = {"last_updated": _LAST_UPDATED, "ttl": ttl, "version": "2.3", "data": data}
    return json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _stations(plan: CityPlan) -> list[dict[str, Any]]:
    out = []
    for node, tags in plan.node_tags.items():
        t = dict(tags)
        if t.get("amenity") != "bicycle_rental":
            continue
        x, y = plan.nodes[node]
        lat, lon = to_latlon(np.array([x]), np.array([y]))
        out.append(
            {
                "station_id": f"station-{node}",
                "name": t.get("name", f"Bikes {node}"),
                "lat": round(float(lat[0]), 7),
                "lon": round(float(lon[0]), 7),
                "capacity": int(t.get("capacity", "10")),
            }
        )
    return out


def write_gbfs(plan: CityPlan, directory: Path) -> tuple[Path, int]:
    """Write ``directory/gbfs/*.json`` and ``directory/router-config.json``.

    Returns
    -------
    tuple
        The ``gbfs`` folder and the number of stations.
    """
    folder = directory / GBFS_DIRNAME
    folder.mkdir(parents=True, exist_ok=True)
    stations = _stations(plan)
    names = (
        "system_information",
        "vehicle_types",
        "station_information",
        "station_status",
        "system_pricing_plans",
    )
    feeds = [{"name": n, "url": f"{n}.json"} for n in names]
    status = []
    for s in stations:
        bikes = s["capacity"] * 2 // 5
        status.append(
            {
                "station_id": s["station_id"],
                "num_bikes_available": bikes,
                "num_docks_available": s["capacity"] - bikes,
                "vehicle_types_available": [{"vehicle_type_id": _BIKE_TYPE, "count": bikes}],
                "is_installed": True,
                "is_renting": True,
                "is_returning": True,
                "last_reported": _LAST_UPDATED,
            }
        )
    files = {
        "gbfs": _doc({"en": {"feeds": feeds}}),
        "system_information": _doc(
            {
                "system_id": DEMO_NETWORK,
                "language": "en",
                "name": "Demo City Bikes",
                "operator": "Demo City Transit",
                "timezone": TIMEZONE,
            },
            ttl=86400,
        ),
        "vehicle_types": _doc(
            {
                "vehicle_types": [
                    {
                        "vehicle_type_id": _BIKE_TYPE,
                        "form_factor": "bicycle",
                        "propulsion_type": "human",
                        "name": "Demo bike",
                    }
                ]
            },
            ttl=86400,
        ),
        "station_information": _doc({"stations": stations}, ttl=86400),
        "station_status": _doc({"stations": status}),
        "system_pricing_plans": _doc(
            {
                "plans": [
                    {
                        "plan_id": "single-ride",
                        "name": "Single ride",
                        "currency": "EUR",
                        "price": 1.0,
                        "is_taxable": False,
                        "description": "EUR 1 to unlock, then EUR 0.10 a minute",
                        "per_min_pricing": [{"start": 0, "rate": 0.1, "interval": 1}],
                    }
                ]
            },
            ttl=86400,
        ),
    }
    for name, text in files.items():
        (folder / f"{name}.json").write_text(text, encoding="utf-8")
    config = {
        "updaters": [
            {
                "type": "bike-rental",
                "sourceType": "gbfs",
                "file": GBFS_DIRNAME,
                "frequencySec": 60,
                "network": DEMO_NETWORK,
            },
            {"type": TNC_UPDATER_TYPE, **DEMO_TNC},
        ],
    }
    (directory / ROUTER_CONFIG_FILENAME).write_text(
        json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return folder, len(stations)
