"""Alert patches: alerts posted by an operator (OTP 1.x ``AlertPatch``), kept in a file per router.

A patch is an :class:`~otpa.realtime.alerts.Alert` with an id, texts and time
periods about an agency, route, trip or stop (feed-scoped ids ``feed:id``).
:func:`patch_from_json` reads OTP 1.x's input shape (``id``, ``alert``,
``timePeriods``, ``agencyId``, ``route``, ``trip``, ``stop``, ``feedId``,
``directionId``, ``routeType``) and :func:`patch_to_json` writes its output shape.
:class:`AlertPatchFile` keeps a router's patches on disk (replaced atomically), so
that they survive restarts; a patch with the id of an existing one replaces it.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from otpa.errors import OtpaError
from otpa.realtime.alerts import Alert, InformedEntity, TranslatedText, entity_known
from otpa.transit.model import TransitModel
from otpa.util.files import write_text_atomic

__all__ = [
    "MAX_PATCHES",
    "PATCH_SOURCE",
    "AlertPatchError",
    "AlertPatchFile",
    "patch_from_json",
    "patch_to_json",
    "patches_from_json",
]

#: The source name of patches (on :attr:`Alert.source`).
PATCH_SOURCE = "patch"
#: Most patches a router keeps.
MAX_PATCHES = 10_000


class AlertPatchError(ValueError, OtpaError):
    """A patch that cannot be used; the message is OTP 1.x's status text where it had one."""


def _text(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, Mapping):  # an I18NString written as {"translations": {...}}
        return None
    if not isinstance(value, str):
        msg = f"{where} must be a string"
        raise AlertPatchError(msg)
    return value


def _translated(value: Any, where: str) -> TranslatedText:
    """A text, or ``{"lang": "text", ...}`` (a translation per language; ``""``: none)."""
    if isinstance(value, Mapping):
        pairs: list[tuple[str | None, str]] = []
        for lang, text in value.items():
            if not isinstance(text, str):
                msg = f"{where} translations must be strings"
                raise AlertPatchError(msg)
            if text:
                pairs.append((str(lang) or None, text))
        return TranslatedText(tuple(pairs))
    return TranslatedText.of(_text(value, where))


def _epoch(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        msg = f"{where} must be epoch seconds"
        raise AlertPatchError(msg)
    if not 0 <= value <= 253402300799:
        msg = f"{where} is out of range"
        raise AlertPatchError(msg)
    return int(value)


def _scoped(value: Any, feed_id: str | None, where: str) -> str | None:
    """``feed:id`` from ``"feed:id"``, ``{"feedId": f, "id": i}`` or an id with feedId."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        feed = value.get("feedId", value.get("agencyId", feed_id))
        ident = value.get("id")
        if not isinstance(ident, str) or not isinstance(feed, str):
            msg = f"{where} needs a feed and an id"
            raise AlertPatchError(msg)
        return f"{feed}:{ident}"
    if not isinstance(value, str):
        msg = f"{where} must be a feed-scoped id string"
        raise AlertPatchError(msg)
    if ":" not in value and feed_id is not None:
        return f"{feed_id}:{value}"
    return value


def _int_or_none(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        msg = f"{where} must be an integer"
        raise AlertPatchError(msg)
    return None if value < 0 else int(value)


def _periods(raw_periods: Any, alert: Mapping[str, Any]) -> list[tuple[int | None, int | None]]:
    """``timePeriods`` (epoch s), else the alert's effective dates (ms)."""
    periods: list[tuple[int | None, int | None]] = []
    raw_periods = raw_periods or []
    if not isinstance(raw_periods, list):
        msg = "timePeriods must be a list"
        raise AlertPatchError(msg)
    for i, p in enumerate(raw_periods):
        if not isinstance(p, Mapping):
            msg = f"timePeriods[{i}] must be an object"
            raise AlertPatchError(msg)
        a = _epoch(p.get("startTime"), f"timePeriods[{i}].startTime")
        b = _epoch(p.get("endTime"), f"timePeriods[{i}].endTime")
        if a is not None and b is not None and b < a:
            msg = f"timePeriods[{i}] ends before it starts"
            raise AlertPatchError(msg)
        periods.append((a, b if b else None))
    if not periods:  # the alert's own effective dates (ms), as OTP's output shape
        start = _epoch_ms(alert.get("effectiveStartDate"), "alert.effectiveStartDate")
        end = _epoch_ms(alert.get("effectiveEndDate"), "alert.effectiveEndDate")
        if start is not None or end is not None:
            periods.append((start, end))
    return periods


def patch_from_json(obj: Any, model: TransitModel | None = None) -> Alert:
    """One patch of OTP 1.x's input shape as an :class:`Alert`.

    Parameters
    ----------
    obj
        The patch's JSON object.
    model
        When given, the entity ids are checked against the network.

    Raises
    ------
    AlertPatchError
        ``Every patch must have an id``, ``Every route patch must have a route id``,
        or what else is wrong (a message naming the field).
    """
    if not isinstance(obj, Mapping):
        msg = "a patch is a JSON object"
        raise AlertPatchError(msg)
    ident = obj.get("id")
    if not isinstance(ident, str) or not ident.strip():
        msg = "Every patch must have an id"
        raise AlertPatchError(msg)
    feed_id = obj.get("feedId")
    if feed_id is not None and not isinstance(feed_id, str):
        msg = "feedId must be a string"
        raise AlertPatchError(msg)
    route = obj.get("route")
    if route is not None and (
        route == ""
        or (isinstance(route, str) and route.endswith(":"))
        or (isinstance(route, Mapping) and not route.get("id"))
    ):
        msg = "Every route patch must have a route id"
        raise AlertPatchError(msg)
    alert = obj.get("alert") or {}
    if not isinstance(alert, Mapping):
        msg = "alert must be a JSON object"
        raise AlertPatchError(msg)
    periods = _periods(obj.get("timePeriods"), alert)
    agency_raw = obj.get("agencyId", obj.get("agency"))
    entity = InformedEntity(
        agency=_scoped(agency_raw, feed_id, "agencyId"),
        route=_scoped(route, feed_id, "route"),
        trip=_scoped(obj.get("trip"), feed_id, "trip"),
        stop=_scoped(obj.get("stop"), feed_id, "stop"),
        route_type=_int_or_none(obj.get("routeType"), "routeType"),
        direction_id=_int_or_none(obj.get("directionId"), "directionId"),
    )
    if entity.trip is not None:  # a trip patch is about the trip (at a stop), not its route
        entity = InformedEntity(trip=entity.trip, stop=entity.stop, agency=entity.agency)
    if (
        entity.agency is None
        and entity.route is None
        and entity.trip is None
        and entity.stop is None
        and entity.route_type is None
    ):
        msg = "a patch must name an agency, route, trip, stop or route type"
        raise AlertPatchError(msg)
    if model is not None:
        why = entity_known(model, entity)
        if why is not None:
            raise AlertPatchError(why)
    header = _translated(alert.get("alertHeaderText"), "alert.alertHeaderText")
    if not header and not alert.get("alertDescriptionText"):
        msg = "alert needs an alertHeaderText or an alertDescriptionText"
        raise AlertPatchError(msg)
    return Alert(
        id=ident.strip(),
        header=header,
        description=_translated(alert.get("alertDescriptionText"), "alert.alertDescriptionText"),
        url=_translated(alert.get("alertUrl"), "alert.alertUrl"),
        periods=tuple(periods),
        entities=(entity,),
        source=PATCH_SOURCE,
        feed_id=feed_id,
    )


def _epoch_ms(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"{where} must be epoch milliseconds"
        raise AlertPatchError(msg)
    return _epoch(value / 1000.0, where)


def patches_from_json(body: Any, model: TransitModel | None = None) -> list[Alert]:
    """The patches of an ``AlertPatchSet`` (``{"alertPatches": [...]}``), all or none.

    Raises
    ------
    AlertPatchError
        The body is not such an object, or a patch is refused (the first refusal).
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("alertPatches"), list):
        msg = 'the body is an AlertPatchSet: {"alertPatches": [...]}'
        raise AlertPatchError(msg)
    return [patch_from_json(p, model) for p in body["alertPatches"]]


def _ms(t: dt.datetime | None) -> int | None:
    return None if t is None else round(t.timestamp() * 1000)


def _texts(text: TranslatedText) -> str | dict[str, str] | None:
    if not text:
        return None
    if len(text.translations) == 1 and text.translations[0][0] is None:
        return text.translations[0][1]
    return {lang or "": value for lang, value in text.translations}


def patch_to_json(alert: Alert, locale: str | None = None) -> dict[str, Any]:
    """A patch in OTP 1.x's output shape (``agency``/``route``/``trip``/``stop`` as ``feed:id``).

    With ``locale`` the texts are that language's; without, every translation is kept
    (``{"lang": "text"}``, or the plain text) so that the JSON reads back as the patch.
    """
    (entity,) = alert.entities[:1] or (InformedEntity(),)

    def text(t: TranslatedText) -> Any:
        return t.text(locale) if locale is not None else _texts(t)

    return {
        "id": alert.id,
        "alert": {
            "alertHeaderText": text(alert.header),
            "alertDescriptionText": text(alert.description),
            "alertUrl": text(alert.url),
            "effectiveStartDate": _ms(alert.effective_start),
            "effectiveEndDate": _ms(alert.effective_end),
        },
        "agency": entity.agency,
        "route": entity.route,
        "trip": entity.trip,
        "stop": entity.stop,
        "feedId": alert.feed_id,
        "directionId": -1 if entity.direction_id is None else entity.direction_id,
        "routeType": -1 if entity.route_type is None else entity.route_type,
        "timePeriods": [{"startTime": a, "endTime": b} for a, b in alert.periods],
    }


class AlertPatchFile:
    """A router's alert patches, kept in a JSON file replaced atomically on every change.

    Parameters
    ----------
    path
        The file (``alert-patches.json`` in the router folder); absent: no patches.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def load(self) -> list[Alert]:
        """The stored patches (none when the file does not exist).

        Raises
        ------
        AlertPatchError
            The file exists but is not a valid patch set.
        """
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            msg = f"{self.path.name}: {exc}"
            raise AlertPatchError(msg) from exc
        try:
            return patches_from_json(json.loads(text))
        except ValueError as exc:
            msg = f"{self.path.name}: {exc}"
            raise AlertPatchError(msg) from exc

    def add(self, patches: Sequence[Alert]) -> list[Alert]:
        """Store patches (a patch replaces the stored one of the same id); returns them all."""
        with self._lock:
            by_id = {p.id: p for p in self.load()}
            for p in patches:
                by_id[p.id] = p
            if len(by_id) > MAX_PATCHES:
                msg = f"at most {MAX_PATCHES} patches per router"
                raise AlertPatchError(msg)
            out = list(by_id.values())
            self._write(out)
            return out

    def remove(self, patch_id: str) -> bool:
        """Delete one patch; False when there is none of that id."""
        with self._lock:
            kept = [p for p in self.load() if p.id != patch_id]
            stored = self.load()
            if len(kept) == len(stored):
                return False
            self._write(kept)
            return True

    def _write(self, patches: Sequence[Alert]) -> None:
        body = {"alertPatches": [patch_to_json(p) for p in patches]}
        write_text_atomic(self.path, json.dumps(body, indent=1), prefix=".alert-patches-")
