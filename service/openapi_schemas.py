"""JSON Schemas (2020-12, as OpenAPI 3.1 uses) of the service's main response bodies.

They describe what :mod:`service.otp1` writes: the plan ``Response`` (a TripPlan or
OTP's PlannerError, both in a 200), RouterInfo and RouterList, ServerInfo, the one
JSON error body (:func:`service.otp1.errors.error_body`) and the index API's short
forms and full beans (:mod:`service.otp1.index_models`; a list holds full beans
with ``detail=true``).  Objects stay open
(``additionalProperties`` allowed): OTP 1.x clients ignore fields they do not know,
and optional fields appear only when they have a value.  The tests validate real
answers against them, so they cannot drift from the serializers.
"""

from __future__ import annotations

from typing import Any

from otpa.analysis.scenario import MODIFICATION_TYPES
from otpa.analysis.scenario.scenario import FORMAT_VERSION
from otpa.analysis.scenario.validate import SAFE_ID

__all__ = ["SCHEMAS", "ref"]


def ref(name: str) -> dict[str, str]:
    """Return a ``$ref`` to ``#/components/schemas/<name>``."""
    return {"$ref": f"#/components/schemas/{name}"}


_STR = {"type": "string"}
_INT = {"type": "integer"}
_NUM = {"type": "number"}
_BOOL = {"type": "boolean"}
_STR_OR_NULL = {"type": ["string", "null"]}
_EPOCH_MS = {"type": "integer", "description": "milliseconds since the Unix epoch"}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
    }


_GEOMETRY = {
    "type": "object",
    "description": "A GeoJSON geometry ([lon, lat] positions).",
    "properties": {"type": _STR, "coordinates": {"type": "array"}},
    "required": ["type", "coordinates"],
}

_PLACE = _object(
    {"name": _STR_OR_NULL, "lon": _NUM, "lat": _NUM, "vertexType": _STR},
    {
        "orig": _STR,
        "stopId": _STR,
        "stopCode": _STR_OR_NULL,
        "platformCode": _STR_OR_NULL,
        "zoneId": _STR_OR_NULL,
        "stopIndex": _INT,
        "stopSequence": _INT,
        "arrival": _EPOCH_MS,
        "departure": _EPOCH_MS,
        "bikeShareId": _STR,
    },
)

_LEG = _object(
    {
        "startTime": _EPOCH_MS,
        "endTime": _EPOCH_MS,
        "mode": _STR,
        "distance": _NUM,
        "duration": _NUM,
        "transitLeg": _BOOL,
        "from": ref("Place"),
        "to": ref("Place"),
        "legGeometry": _object({"points": _STR, "length": _INT}),
    },
    {
        "route": _STR,
        "routeId": _STR,
        "agencyId": _STR,
        "tripId": _STR,
        "serviceDate": _STR,
        "headsign": _STR,
        "realTime": _BOOL,
        "rentedBike": _BOOL,
        "interlineWithPreviousLeg": _BOOL,
        "steps": {"type": "array", "items": {"type": "object"}},
        "intermediateStops": {"type": "array", "items": ref("Place")},
        "agencyTimeZoneOffset": _INT,
    },
)

_ITINERARY = _object(
    {
        "duration": _INT,
        "startTime": _EPOCH_MS,
        "endTime": _EPOCH_MS,
        "walkTime": _INT,
        "transitTime": _INT,
        "waitingTime": _INT,
        "walkDistance": _NUM,
        "transfers": _INT,
        "legs": {"type": "array", "items": ref("Leg")},
    },
    {
        "walkLimitExceeded": _BOOL,
        "elevationLost": _NUM,
        "elevationGained": _NUM,
        "tooSloped": _BOOL,
        "fare": {"type": "object"},
    },
)

_TRIP_PLAN = _object(
    {
        "date": _EPOCH_MS,
        "from": ref("Place"),
        "to": ref("Place"),
        "itineraries": {"type": "array", "items": ref("Itinerary")},
    }
)

_PLANNER_ERROR = _object(
    {
        "id": {"type": "integer", "description": "OTP's Message code (400 OUTSIDE_BOUNDS...)"},
        "msg": {"type": "string", "description": "the sentence for people"},
        "message": {"type": "string", "description": "OTP's Message name, e.g. PATH_NOT_FOUND"},
        "noPath": _BOOL,
    },
    {
        "missing": {"type": "array", "items": _STR},
        "details": {"type": "object"},
    },
)

_RESPONSE = {
    "type": "object",
    "description": (
        "The answer of /plan: a TripPlan, or OTP's PlannerError.  Both come with HTTP 200, "
        "as in OTP 1.x: a refused or impossible request is not an HTTP error."
    ),
    "properties": {
        "requestParameters": {"type": "object", "additionalProperties": _STR},
        "plan": ref("TripPlan"),
        "error": ref("PlannerError"),
        "debugOutput": {"type": "object"},
        "elevationMetadata": {"type": "object"},
    },
    "required": ["requestParameters"],
    "oneOf": [{"required": ["plan"]}, {"required": ["error"]}],
}

_ROUTER_INFO = _object(
    {
        "routerId": _STR,
        "polygon": {"oneOf": [_GEOMETRY, {"type": "null"}]},
        "buildTime": _EPOCH_MS,
        "transitServiceStarts": {"type": "integer", "description": "epoch seconds"},
        "transitServiceEnds": {"type": "integer", "description": "epoch seconds"},
        "transitModes": {"type": "array", "items": _STR},
        "centerLatitude": _NUM,
        "centerLongitude": _NUM,
        "hasParkRide": _BOOL,
        "travelOptions": {
            "type": "array",
            "items": _object({"value": _STR, "name": _STR}),
        },
        "lowerLeftLatitude": _NUM,
        "lowerLeftLongitude": _NUM,
        "upperRightLatitude": _NUM,
        "upperRightLongitude": _NUM,
    },
    {"hasBikeSharing": _BOOL, "hasBikePark": _BOOL},
)

_SERVER_INFO = _object(
    {
        "serverVersion": _object(
            {
                "version": _STR,
                "major": _INT,
                "minor": _INT,
                "incremental": _INT,
                "qualifier": _STR,
                "commit": _STR,
            }
        ),
        "cpuName": _STR,
        "nCores": {"type": "integer", "minimum": 1},
    }
)

_ERROR = _object(
    {
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "error": {"type": "string", "description": "the status' reason phrase"},
        "message": _STR,
    },
    {"requestId": {"type": "string", "description": "only on 5xx: the id in the server log"}},
)

SCHEMAS: dict[str, dict[str, Any]] = {
    "ScenarioDocument": {
        "type": "object",
        "description": "A scenario (otpa.analysis.scenario.Scenario.from_json); each "
        "modification's fields depend on its type (docs/service.md)",
        "properties": {
            "id": {"type": "string", "pattern": SAFE_ID.pattern},
            "name": _STR,
            "description": _STR,
            "version": {"const": FORMAT_VERSION},
            "modifications": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"type": {"enum": sorted(MODIFICATION_TYPES)}},
                    "required": ["type"],
                },
            },
        },
        "required": ["name", "modifications"],
        "additionalProperties": False,
    },
    "Created": _object(
        {"id": _STR}, {"n": {"type": "integer", "description": "points in the uploaded set"}}
    ),
    "Response": _RESPONSE,
    "TripPlan": _TRIP_PLAN,
    "Itinerary": _ITINERARY,
    "Leg": _LEG,
    "Place": _PLACE,
    "PlannerError": _PLANNER_ERROR,
    "RouterInfo": _ROUTER_INFO,
    "RouterList": _object({"routerInfo": {"type": "array", "items": ref("RouterInfo")}}),
    "ServerInfo": _SERVER_INFO,
    "Health": _object(
        {"status": {"enum": ["UP", "DOWN"]}},
        {
            "routers": {"type": "array", "items": _STR},
            "missing": {"type": "array", "items": _STR},
            "draining": _BOOL,
            "work": {
                "type": "object",
                "description": "light, heavy and analysis work pools: workers, queue, pending, "
                "shed (503s), timedOut, stopped (at their deadline), completed",
                "additionalProperties": {"type": "object", "additionalProperties": _INT},
            },
            "memory": _object(
                {"trims": _INT, "retiredAlive": _INT},
                {},
            )
            | {
                "description": "heap trims so far; networks no longer served but still "
                "in memory (requests that started on them still run)"
            },
        },
    ),
    "Error": _ERROR,
    "StopShort": _object(
        {"id": _STR, "name": _STR, "lat": _NUM, "lon": _NUM},
        {"code": _STR_OR_NULL, "cluster": _STR_OR_NULL, "dist": _NUM},
    ),
    "RouteShort": _object(
        {"id": _STR, "mode": _STR},
        {
            "shortName": _STR_OR_NULL,
            "longName": _STR_OR_NULL,
            "color": _STR_OR_NULL,
            "agencyName": _STR,
            "agencyId": _STR,
            "sortOrder": _INT,
        },
    ),
    "TripShort": _object(
        {"id": _STR},
        {
            "tripHeadsign": _STR_OR_NULL,
            "serviceId": _STR,
            "shapeId": _STR_OR_NULL,
            "direction": {"type": ["integer", "string", "null"]},
        },
    ),
    "PatternShort": _object({"id": _STR}, {"desc": _STR_OR_NULL}),
    "Stop": _object(
        {"id": _STR, "name": _STR, "lat": _NUM, "lon": _NUM},
        {"code": _STR_OR_NULL, "desc": _STR_OR_NULL, "locationType": _INT},
    ),
    "Route": _object(
        {"id": _STR, "type": _INT},
        {"agency": {"type": ["object", "null"]}, "shortName": _STR_OR_NULL},
    ),
    "Trip": _object(
        {"id": _STR, "route": ref("Route")},
        {"serviceId": _STR, "tripHeadsign": _STR_OR_NULL, "directionId": _STR_OR_NULL},
    ),
    "Pattern": _object(
        {"id": _STR, "routeId": _STR},
        {
            "desc": _STR_OR_NULL,
            "stops": {"type": "array", "items": ref("StopShort")},
            "trips": {"type": "array", "items": ref("TripShort")},
        },
    ),
}

# -- shared mobility (service/handlers/rental.py, service/handlers/tnc.py) -------------------
_STATION_BASE = {
    "id": _STR,
    "name": _STR,
    "x": {"type": "number", "description": "longitude"},
    "y": {"type": "number", "description": "latitude"},
    "allowDropoff": _BOOL,
    "allowPickup": _BOOL,
    "networks": {"type": "array", "items": _STR},
    "lastReportedEpochSeconds": _INT,
}
_COUNT = {"type": "integer", "description": "2147483647 when the feed does not give it"}
_RENTAL_ERRORS = {
    "type": "object",
    "description": "per network: its feed's problems ({message, severity})",
    "additionalProperties": {
        "type": "array",
        "items": _object({"message": _STR, "severity": _STR}),
    },
}
_SYSTEMS = {
    "type": "object",
    "description": "per network: its GBFS system_information",
    "additionalProperties": _object(
        {"systemId": _STR, "name": _STR},
        {"operator": _STR, "timezone": _STR, "language": _STR, "url": _STR},
    ),
}


def _station_list(station: dict[str, Any]) -> dict[str, Any]:
    return _object(
        {"stations": {"type": "array", "items": station}},
        {"errorsByNetwork": _RENTAL_ERRORS, "systemInformationDataByNetwork": _SYSTEMS},
    )


SCHEMAS.update(
    {
        "BikeRentalStation": _object(
            {
                **_STATION_BASE,
                "bikesAvailable": _COUNT,
                "spacesAvailable": _COUNT,
                "isFloatingBike": _BOOL,
                "isCarStation": _BOOL,
                "realTimeData": _BOOL,
            }
        ),
        "CarRentalStation": _object(
            {
                **_STATION_BASE,
                "carsAvailable": _COUNT,
                "spacesAvailable": _COUNT,
                "isFloatingCar": _BOOL,
                "fuelType": {"enum": ["gasoline", "electric", "unknown"]},
            },
            {"address": _STR},
        ),
        "VehicleRentalStation": _object(
            {
                **_STATION_BASE,
                "vehiclesAvailable": _COUNT,
                "spacesAvailable": _COUNT,
                "isFloatingVehicle": _BOOL,
            }
        ),
        "BikeRentalStationList": _station_list(ref("BikeRentalStation")),
        "CarRentalStationList": _station_list(ref("CarRentalStation")),
        "VehicleRentalStationList": _station_list(ref("VehicleRentalStation")),
        "ParkAndRide": _object({"name": _STR, "x": _NUM, "y": _NUM}),
        "TncEtaEstimates": _object(
            {},
            {
                "estimates": {
                    "type": "array",
                    "items": _object(
                        {
                            "company": _STR,
                            "productId": _STR,
                            "displayName": _STR,
                            "estimatedSeconds": _INT,
                            "wheelchairAccessible": _BOOL,
                        }
                    ),
                },
                "error": {"type": "string", "description": "why there is no estimate (HTTP 200)"},
            },
        ),
        "TncRideEstimate": _object(
            {},
            {
                "rideEstimate": _object(
                    {
                        "company": _STR,
                        "currency": _STR,
                        "duration": _INT,
                        "maxCost": _NUM,
                        "minCost": _NUM,
                        "rideType": _STR,
                        "wheelchairAccessible": _BOOL,
                    }
                ),
                "error": {"type": "string", "description": "why there is no estimate (HTTP 200)"},
            },
        ),
    }
)
