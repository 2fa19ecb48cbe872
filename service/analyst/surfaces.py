"""The in-memory time-surface store of ``/otp/surfaces``: ids, LRU eviction.

Surfaces are xarray Datasets (:func:`otpa.analysis.compute_time_surface`) plus what
OTP's ``TimeSurfaceShort`` reports: the query parameters that made them. Ids are positive
integers, never reused while the server runs. The store holds at most ``max_size``
surfaces; adding one more drops the least recently used. A surface remembers the router it
was computed on, but nothing ties it to that router afterwards: surfaces of two routers
can be compared (difference tiles), and a surface outlives a reload of its router.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import xarray as xr

from otpa.errors import InvalidArgumentError

__all__ = ["StoredSurface", "SurfaceStore"]


@dataclass(frozen=True, eq=False)
class StoredSurface:
    """One stored time surface.

    Attributes
    ----------
    id
        The surface id.
    router_id
        The router it was computed on.
    params
        The first value of each query parameter of the request that made it.
    cutoff_minutes
        Its travel-time limit.
    dataset
        The time surface (a grid surface).
    """

    id: int
    router_id: str
    params: Mapping[str, str]
    cutoff_minutes: int
    dataset: xr.Dataset = field(repr=False)


class SurfaceStore:
    """Time surfaces by id, the ``max_size`` most recently used (thread-safe).

    Examples
    --------
    >>> store = SurfaceStore(max_size=1)
    >>> a = store.add("r", {}, 90, xr.Dataset())
    >>> b = store.add("r", {}, 90, xr.Dataset())
    >>> store.get(a.id) is None, store.get(b.id) is b
    (True, True)
    """

    def __init__(self, max_size: int) -> None:
        if max_size < 1:
            msg = f"max_size must be positive, got {max_size}"
            raise InvalidArgumentError(msg)
        self.max_size = max_size
        self._surfaces: OrderedDict[int, StoredSurface] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def add(
        self, router_id: str, params: Mapping[str, str], cutoff_minutes: int, dataset: xr.Dataset
    ) -> StoredSurface:
        """Store a surface under a new id (dropping the least recently used beyond the size)."""
        with self._lock:
            surface = StoredSurface(
                next(self._ids), router_id, MappingProxyType(dict(params)), cutoff_minutes, dataset
            )
            self._surfaces[surface.id] = surface
            while len(self._surfaces) > self.max_size:
                self._surfaces.popitem(last=False)
            return surface

    def get(self, surface_id: int) -> StoredSurface | None:
        """The surface with this id (marked as recently used), or None."""
        with self._lock:
            surface = self._surfaces.get(surface_id)
            if surface is not None:
                self._surfaces.move_to_end(surface_id)
            return surface

    def surfaces(self) -> list[StoredSurface]:
        """Every stored surface, by id."""
        with self._lock:
            return sorted(self._surfaces.values(), key=lambda s: s.id)

    def __len__(self) -> int:
        with self._lock:
            return len(self._surfaces)
