"""Walking-transfer times of a request: distance at walk speed, or transfers.txt's minimum.

A transfers.txt row of type 2 between two stops fixes the time of that
transfer (OTP 1.x timed its transfer edge by ``min_transfer_time``); other
transfers take their walking distance at the request's walk speed.
"""

from __future__ import annotations

import numpy as np

from otpa.network import TransportNetwork
from otpa.types import FloatArray, Int32Array
from otpa.util.cache import OwnerCache

__all__ = ["transfer_costs", "transfer_times", "transfers_from", "transfers_to"]

#: Entries kept per network and cache (least recently used dropped): one per walk speed
#: (and reluctance) in use, so a stream of distinct ``walkSpeed`` values cannot grow them.
CACHE_SIZE = 16
#: Longest transfer, seconds (the transit search's bound on a leg).
MAX_TRANSFER_S = 7 * 24 * 3600
_TIMES: OwnerCache[float, Int32Array] = OwnerCache(max_entries=CACHE_SIZE)
_COSTS: OwnerCache[tuple[float, float], FloatArray] = OwnerCache(max_entries=CACHE_SIZE)


def _rule_times(network: TransportNetwork) -> tuple[np.ndarray, np.ndarray]:
    """Sorted ``from * n + to`` keys of stop-to-stop type-2 rules and their times."""
    rules = network.transit.transfer_rules
    n = network.transit.n_stops
    if not len(rules):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    a = rules["from_stop"].to_numpy(np.int64)
    b = rules["to_stop"].to_numpy(np.int64)
    ok = (a >= 0) & (b >= 0) & (rules["transfer_type"].to_numpy(np.int64) == 2)
    for col in ("from_route", "to_route", "from_trip", "to_trip"):
        if col in rules.columns:
            ok &= rules[col].to_numpy(np.int64) < 0
    t = rules["min_transfer_time"].fillna(0).to_numpy(np.int64)
    key = a[ok] * n + b[ok]
    order = np.argsort(key, kind="stable")
    return key[order], np.maximum(t[ok][order], 0)


def transfer_times(network: TransportNetwork, walk_speed_mps: float) -> Int32Array:
    """Seconds of every transfer of ``network`` (aligned with ``transfer_to``; read-only)."""
    return _TIMES.get_or_build(
        network, walk_speed_mps, lambda: _transfer_times(network, walk_speed_mps)
    )


def _transfer_times(network: TransportNetwork, walk_speed_mps: float) -> Int32Array:
    dist = np.asarray(network.transfer_distance_m, dtype=float)
    times = np.minimum(np.ceil(dist / walk_speed_mps), MAX_TRANSFER_S).astype(np.int32)
    keys, rule_t = _rule_times(network)
    if keys.size and times.size:
        n = network.transit.n_stops
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(network.transfer_offsets))
        key = src * n + np.asarray(network.transfer_to, dtype=np.int64)
        pos = np.clip(np.searchsorted(keys, key), 0, keys.size - 1)
        hit = keys[pos] == key
        times[hit] = rule_t[pos[hit]].astype(np.int32)
    times.setflags(write=False)
    return times


def transfer_costs(
    network: TransportNetwork, walk_speed_mps: float, reluctance: float
) -> FloatArray:
    """Generalized cost of every transfer: its time at ``walk_speed_mps`` x ``reluctance``.

    Cached (read-only), so repeated searches pass the same array.
    """

    def build() -> FloatArray:
        costs = transfer_times(network, walk_speed_mps).astype(np.float64) * reluctance
        costs.setflags(write=False)
        return costs

    return _COSTS.get_or_build(network, (walk_speed_mps, reluctance), build)


def transfers_from(network: TransportNetwork, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """``(transfer indices, destination stops)`` of transfers leaving ``stop``."""
    a, b = int(network.transfer_offsets[stop]), int(network.transfer_offsets[stop + 1])
    idx = np.arange(a, b)
    return idx, np.asarray(network.transfer_to[a:b], dtype=np.int64)


def transfers_to(network: TransportNetwork, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """``(transfer indices, origin stops)`` of transfers arriving at ``stop``."""
    idx = np.flatnonzero(np.asarray(network.transfer_to) == stop)
    src = np.searchsorted(np.asarray(network.transfer_offsets), idx, side="right") - 1
    return idx, src.astype(np.int64)
