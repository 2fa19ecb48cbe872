"""The GTFS feed a real-time source refers to, and the error of a feed that cannot be used."""

from __future__ import annotations

from dataclasses import dataclass, field

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


#: Messages kept per feed outcome (the counts go on).
MAX_MESSAGES = 20


@dataclass
class FeedOutcome:
    """What one poll of a feed did to its entities: counts and the first messages."""

    applied: int = 0
    unmatched: int = 0
    invalid: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)

    def count(self, key: str) -> None:
        """Add one to a named count."""
        self.counts[key] = self.counts.get(key, 0) + 1

    def problem(self, kind: str, entity: str, text: str) -> None:
        """Record an unmatched or invalid entity."""
        if kind == "unmatched":
            self.unmatched += 1
        else:
            self.invalid += 1
        self.count(text.split(":")[0])
        if len(self.messages) < MAX_MESSAGES:
            self.messages.append(f"{entity}: {text}")
