"""Building blocks of the index GraphQL schema: context, scalars, enums, Relay helpers."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLError,
    GraphQLField,
    GraphQLID,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLResolveInfo,
    GraphQLScalarType,
    IntValueNode,
    StringValueNode,
    ValueNode,
)

from otpa.errors import InvalidArgumentError, UnknownIdError
from otpa.index import Agency, Pattern, Route, Stop, StopAtDistance, StopCluster, TransitIndex, Trip
from otpa.network import TransportNetwork
from otpa.realtime import TimetableSnapshot

__all__ = [
    "BikesAllowed",
    "Connection",
    "IndexContext",
    "Info",
    "LocationType",
    "Long",
    "Mode",
    "Node",
    "RealtimeState",
    "Resolver",
    "WheelchairBoarding",
    "attr",
    "connection",
    "cursor",
    "date_arg",
    "field",
    "from_global_id",
    "global_id_field",
    "index_of",
    "list_of",
    "or_none",
    "to_global_id",
]


@dataclass(frozen=True)
class IndexContext:
    """What resolvers work with: the router's index, the request's "now" (epoch s), and the
    network with the real-time snapshot current when the request started (stop times)."""

    index: TransitIndex
    now_s: int
    network: TransportNetwork | None = None
    realtime: TimetableSnapshot | None = None


def to_global_id(type_name: str, entity_id: str) -> str:
    """Relay global id: ``base64("Type:id")``."""
    return base64.b64encode(f"{type_name}:{entity_id}".encode()).decode("ascii")


def from_global_id(global_id: str) -> tuple[str, str]:
    """``(type, id)`` of a Relay global id (``("", "")`` if it is not one)."""
    try:
        text = base64.b64decode(global_id.encode("ascii"), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        return "", ""
    type_name, _, entity_id = text.partition(":")
    return type_name, entity_id


# -- helpers ------------------------------------------------------------------------------------

Resolver = Callable[..., Any]
Info = GraphQLResolveInfo[Any]


def index_of(info: Info) -> TransitIndex:
    """The index of the request being executed."""
    return info.context.index  # type: ignore[no-any-return]


def attr(name: str) -> Resolver:
    """A resolver reading attribute ``name`` of the parent object."""
    return lambda obj, _info, **_: getattr(obj, name)


def field(
    type_: Any, resolve: Resolver | None = None, args: dict[str, Any] | None = None
) -> GraphQLField:
    """A field definition."""
    return GraphQLField(type_, args=args or None, resolve=resolve)


def list_of(type_: Any) -> GraphQLList[Any]:
    """A list type."""
    return GraphQLList(type_)


def or_none(fn: Callable[[], Any]) -> Any:
    """``fn()``, or None when it raises UnknownIdError (lookups of unknown ids are null)."""
    try:
        return fn()
    except UnknownIdError:
        return None


def date_arg(value: str | None, name: str) -> dt.date:
    """A ``YYYYMMDD`` argument as a date (a field error otherwise)."""
    text = value or ""
    try:
        if len(text) != 8 or not text.isdigit():
            raise InvalidArgumentError(text)
        return dt.date(int(text[:4]), int(text[4:6]), int(text[6:]))
    except ValueError:
        msg = f"Argument {name} must be a date as YYYYMMDD, not {text[:20]!r}."
        raise GraphQLError(msg) from None


def _parse_long(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        msg = f"Long cannot represent {value!r}."
        raise GraphQLError(msg)
    try:
        return int(value)
    except ValueError:
        msg = f"Long cannot represent {value!r}."
        raise GraphQLError(msg) from None


def _parse_long_literal(node: ValueNode, _variables: Any = None) -> int:
    if isinstance(node, IntValueNode | StringValueNode):
        return _parse_long(node.value)
    msg = "Long must be an integer or a string of digits."
    raise GraphQLError(msg, node)


Long = GraphQLScalarType(
    "Long",
    description="A 64-bit integer (epoch seconds...).",
    serialize=int,
    parse_value=_parse_long,
    parse_literal=_parse_long_literal,
)

LocationType = GraphQLEnumType(
    "LocationType",
    {"STOP": 0, "STATION": 1, "ENTRANCE": 2, "GENERIC_NODE": 3, "BOARDING_AREA": 4},
)
WheelchairBoarding = GraphQLEnumType(
    "WheelchairBoarding", {"NO_INFORMATION": 0, "POSSIBLE": 1, "NOT_POSSIBLE": 2}
)
BikesAllowed = GraphQLEnumType(
    "BikesAllowed", {"NO_INFORMATION": 0, "ALLOWED": 1, "NOT_ALLOWED": 2}
)
Mode = GraphQLEnumType(
    "Mode",
    {
        m: m
        for m in (
            *("AIRPLANE", "BICYCLE", "BUS", "CABLE_CAR", "CAR", "FERRY", "FUNICULAR"),
            *("GONDOLA", "LEG_SWITCH", "RAIL", "SUBWAY", "TRAM", "TRANSIT", "WALK"),
        )
    },
)
#: OTP 2's ``PickupDropoffType`` (GTFS ``pickup_type`` / ``drop_off_type`` 0..3)
PickupDropoffType = GraphQLEnumType(
    "PickupDropoffType",
    {"SCHEDULED": 0, "NONE": 1, "CALL_AGENCY": 2, "COORDINATE_WITH_DRIVER": 3},
)
RealtimeState = GraphQLEnumType(
    "RealtimeState", {s: s for s in ("SCHEDULED", "UPDATED", "CANCELED", "ADDED", "MODIFIED")}
)

_TYPE_NAMES: dict[type, str] = {
    Agency: "Agency",
    Route: "Route",
    Stop: "Stop",
    Trip: "Trip",
    Pattern: "Pattern",
    StopCluster: "Cluster",
}


def _resolve_node_type(obj: Any, *_: Any) -> str | None:
    return _TYPE_NAMES.get(type(obj))


Node = GraphQLInterfaceType(
    "Node",
    {"id": GraphQLField(GraphQLNonNull(GraphQLID))},
    resolve_type=_resolve_node_type,
    description="An object with a Relay global id.",
)


def global_id_field(type_name: str) -> GraphQLField:
    """The Relay ``id`` field of a type."""
    return field(GraphQLNonNull(GraphQLID), lambda obj, _i: to_global_id(type_name, obj.id))


@dataclass(frozen=True)
class _PageInfo:
    """Relay's PageInfo."""

    has_next: bool
    has_previous: bool
    start_cursor: str | None
    end_cursor: str | None


@dataclass(frozen=True)
class Connection:
    """A page of a Relay connection: ``(offset, item)`` edges and the page info."""

    edges: list[tuple[int, StopAtDistance]]
    page_info: _PageInfo


def cursor(offset: int) -> str:
    """The cursor of an offset (graphql-relay's ``arrayconnection:N`` in base64)."""
    return base64.b64encode(f"arrayconnection:{offset}".encode()).decode("ascii")


def _offset(cursor: str | None, default: int) -> int:
    if cursor is None:
        return default
    type_name, value = from_global_id(cursor)
    if type_name != "arrayconnection" or not value.isdigit():
        msg = f"Invalid cursor {cursor[:40]!r}."
        raise GraphQLError(msg)
    return int(value)


def connection(items: Sequence[StopAtDistance], **kw: Any) -> Connection:
    """Relay slice of a list (``first``/``after``/``last``/``before``)."""
    start = _offset(kw.get("after"), -1) + 1
    end = min(_offset(kw.get("before"), len(items)), len(items))
    first, last = kw.get("first"), kw.get("last")
    if (first is not None and first < 0) or (last is not None and last < 0):
        msg = "first and last must not be negative."
        raise GraphQLError(msg)
    if first is not None:
        end = min(end, start + first)
    if last is not None:
        start = max(start, end - last)
    edges = [(i, items[i]) for i in range(start, max(start, end))]
    info = _PageInfo(
        has_next=end < len(items),
        has_previous=start > 0,
        start_cursor=cursor(edges[0][0]) if edges else None,
        end_cursor=cursor(edges[-1][0]) if edges else None,
    )
    return Connection(edges, info)
