"""Ids of the entities an added route creates (feed-scoped, unique in the network)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from otpa.analysis.scenario._draft import Draft

if TYPE_CHECKING:
    from otpa.analysis.scenario.modifications import AddRoute

__all__ = ["AddedIds", "added_route_ids"]


@dataclass(frozen=True)
class AddedIds:
    """Where an added route belongs and what its new entities are called."""

    agency: int  # row of the agencies table
    feed: int  # row of the feeds table
    feed_id: str
    route_id: str
    route_raw: str
    new_stop_ids: tuple[str, ...]  # one per NewStop, in order


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return slug or "route"


def _scoped(feed_id: str, entity_id: str) -> str:
    return entity_id if ":" in entity_id else f"{feed_id}:{entity_id}"


def added_route_ids(draft: Draft, mod: AddRoute) -> AddedIds:
    """The agency, feed and ids an :class:`AddRoute` gets in ``draft``.

    The default route id is ``"<feed>:scenario-<name>"`` (``-2``, ``-3``...
    appended until unused); new stops default to ``"<route>-<k>"`` with
    ``k`` the stop's position in the route, from 1.
    """
    agencies = draft.base.transit.agencies
    feeds = draft.base.transit.feeds
    agency = 0
    if mod.agency_id is not None:
        matches = agencies.index[agencies["agency_id"].astype(str) == mod.agency_id]
        agency = int(matches[0]) if len(matches) else 0
    feed = int(agencies["feed"].iloc[agency]) if "feed" in agencies.columns and len(agencies) else 0
    feed_id = str(feeds["feed_id"].iloc[feed]) if len(feeds) else "scenario"
    if mod.route_id is not None:
        route_id = _scoped(feed_id, mod.route_id)
    else:
        base = f"{feed_id}:scenario-{_slug(mod.name)}"
        route_id, k = base, 1
        while draft.has_id("routes", route_id):
            k += 1
            route_id = f"{base}-{k}"
    route_raw = route_id.split(":", 1)[1]
    new_stop_ids = tuple(
        _scoped(feed_id, stop.stop_id) if stop.stop_id else f"{route_id}-{k + 1}"
        for k, stop in enumerate(mod.stops)
        if not isinstance(stop, str)
    )
    return AddedIds(agency, feed, feed_id, route_id, route_raw, new_stop_ids)
