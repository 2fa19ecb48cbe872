"""The GTFS feed a real-time source refers to, and the error of a feed that cannot be used."""

from __future__ import annotations

from otpa.errors import OtpaError
from otpa.transit.model import TransitModel

__all__ = ["FeedError", "feed_index"]


class FeedError(ValueError, OtpaError):
    """A feed that cannot be used at all (not a GTFS-RT message, unknown feed id)."""


def feed_index(model: TransitModel, feed_id: str | None) -> int:
    """The index of the feed ``feed_id`` (None: the network's only feed); FeedError if none."""
    ids = [str(x) for x in model.feeds["feed_id"]]
    if feed_id is None:
        if len(ids) == 1:
            return 0
        msg = f"feedId is required: the network has feeds {', '.join(ids)}"
        raise FeedError(msg)
    if feed_id not in ids:
        msg = f"feedId {feed_id!r} matches no feed of the network ({', '.join(ids)})"
        raise FeedError(msg)
    return ids.index(feed_id)
