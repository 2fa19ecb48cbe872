"""The current rental state of each network, swapped atomically by the rental updaters."""

from __future__ import annotations

import threading
import weakref

from otpa.mobility.model import RentalSnapshot, RentalState
from otpa.mobility.osm_features import osm_rental_snapshot
from otpa.network import TransportNetwork

__all__ = ["MobilityStore", "current_rental", "live_station_count", "mobility_store_for"]


class MobilityStore:
    """Holds a network's :class:`RentalState`; each source (updater) owns one snapshot.

    :meth:`publish` replaces one source's snapshot and swaps in a new state (one
    reference assignment), so readers that took :attr:`state` keep a consistent view.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: dict[str, RentalSnapshot] = {}
        self._errors: dict[str, tuple[str, str]] = {}
        self._state = RentalState({}, version=0)

    @property
    def state(self) -> RentalState:
        """The current state (an atomic reference read)."""
        return self._state

    def _swap(self) -> RentalState:
        snaps: dict[str, RentalSnapshot] = {}
        for source in sorted(self._parts):
            snap = self._parts[source]
            name = snap.network
            if name in snaps:  # two updaters naming the same network: keep both
                name = f"{name}#{source}"
            snaps[name] = snap
        state = RentalState(snaps, version=self._state.version + 1)
        self._state = state
        return state

    def publish(self, source: str, snapshot: RentalSnapshot) -> RentalState:
        """Replace one source's snapshot and publish the new state.

        Parameters
        ----------
        source
            The source's key (e.g. ``"updater-2"``).
        snapshot
            What its feed holds now.

        Returns
        -------
        RentalState
            The new state.
        """
        with self._lock:
            self._parts[source] = snapshot
            return self._swap()

    def remove(self, source: str) -> RentalState:
        """Drop one source's snapshot (an updater that was removed)."""
        with self._lock:
            self._parts.pop(source, None)
            self._errors.pop(source, None)
            return self._swap()

    def set_error(self, source: str, network: str, message: str | None) -> None:
        """Record (or, with None, clear) why a source's last poll failed."""
        with self._lock:
            if message is None:
                self._errors.pop(source, None)
            else:
                self._errors[source] = (network, message)

    def errors(self) -> dict[str, list[str]]:
        """The last poll error of each failing source, by network name."""
        with self._lock:
            out: dict[str, list[str]] = {}
            for network, message in self._errors.values():
                out.setdefault(network, []).append(message)
            return out


_STORES: weakref.WeakKeyDictionary[TransportNetwork, MobilityStore] = weakref.WeakKeyDictionary()
_STORES_LOCK = threading.Lock()


def mobility_store_for(network: TransportNetwork) -> MobilityStore:
    """The rental store of a network (created empty on first use)."""
    with _STORES_LOCK:
        store = _STORES.get(network)
        if store is None:
            store = _STORES[network] = MobilityStore()
        return store


def current_rental(network: TransportNetwork, *, include_osm: bool = True) -> RentalState:
    """The network's rental state now: take it once per plan and keep it.

    Parameters
    ----------
    network
        The router's network.
    include_osm
        Add the OSM ``amenity=bicycle_rental`` stations of the build (network ``osm`` unless
        the node names one, counts unknown so treated as available, ``real_time`` False) as
        a snapshot of kind ``osm`` -- only while no ``bike-rental`` feed is live, so a GBFS
        feed for the same stations replaces them.

    Returns
    -------
    RentalState
        Version 0 and no snapshots when there is neither feed nor OSM station.
    """
    try:
        store = _STORES.get(network)
    except TypeError:  # not weakly referenceable (a stand-in network): no feed
        store = None
    state = store.state if store is not None else RentalState({}, version=0)
    if not include_osm or any(s.kind == "bike-rental" for s in state.snapshots.values()):
        return state
    osm = osm_rental_snapshot(network)
    if osm is None:
        return state
    snaps = dict(state.snapshots)
    snaps.setdefault(osm.network, osm)
    return RentalState(snaps, version=state.version)


def live_station_count(network: object, kind: str = "bike-rental") -> int:
    """Docking stations the live feeds of one kind hold now (0 without a feed).

    ``network`` may be any object (0 for one that has no rental store).
    """
    try:
        store = _STORES.get(network)  # type: ignore[call-overload]
    except TypeError:  # not weakly referenceable: never had a store
        return 0
    if store is None:
        return 0
    return sum(len(s.stations) for s in store.state.snapshots.values() if s.kind == kind)
