"""Semantic hashes of patterns and trips, modelled on OTP 1.x's ``semanticHashString``.

OTP hashed, with Guava's ``murmur3_32``, the stop pattern (number of stops,
each stop's GTFS id, then the pick-up and drop-off type of each stop) and, for a
trip, its scheduled times (number of stops, then arrival and departure at each
stop); each hash is written in URL-safe base64 without padding, and a trip's
hash is ``"<pattern hash>:<times hash>"``.  Two builds of the same data give the
same hashes, whatever the internal numbering.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterable, Sequence

__all__ = ["murmur3_32", "pattern_hash", "trip_hash"]

_C1 = 0xCC9E2D51
_C2 = 0x1B873593
_MASK = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _MASK


def _fmix(h: int) -> int:
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    h ^= h >> 16
    return h


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 (x86, 32 bit) of ``data``.

    Examples
    --------
    >>> hex(murmur3_32(b"hello"))
    '0x248bfa47'
    """
    h = seed & _MASK
    n_blocks = len(data) // 4
    for (k,) in struct.iter_unpack("<I", data[: n_blocks * 4]):
        k = (k * _C1) & _MASK
        k = _rotl(k, 15)
        k = (k * _C2) & _MASK
        h ^= k
        h = _rotl(h, 13)
        h = (h * 5 + 0xE6546B64) & _MASK
    tail = data[n_blocks * 4 :]
    if tail:
        k = int.from_bytes(tail, "little")
        k = (k * _C1) & _MASK
        k = _rotl(k, 15)
        k = (k * _C2) & _MASK
        h ^= k
    return _fmix(h ^ len(data))


def _encode(value: int) -> str:
    return base64.urlsafe_b64encode(value.to_bytes(4, "little")).decode("ascii").rstrip("=")


def _ints(values: Iterable[int]) -> bytes:
    return b"".join(struct.pack("<i", int(v)) for v in values)


def pattern_hash(
    stop_ids: Sequence[str], pickup_types: Sequence[int], drop_off_types: Sequence[int]
) -> str:
    """Hash of a stop pattern: GTFS stop ids (without feed) and pick-up/drop-off rules.

    Examples
    --------
    >>> pattern_hash(["A", "B"], [0, 0], [0, 0]) == pattern_hash(["A", "B"], [0, 0], [0, 0])
    True
    """
    parts = [_ints([len(stop_ids)])]
    parts.extend(s.encode("utf-8") for s in stop_ids)
    parts.extend(_ints([p, d]) for p, d in zip(pickup_types, drop_off_types, strict=True))
    return _encode(murmur3_32(b"".join(parts)))


def trip_hash(pattern: str, arrivals: Sequence[int], departures: Sequence[int]) -> str:
    """Hash of a trip: its pattern's hash, ``":"``, the hash of its scheduled times."""
    parts = [_ints([len(arrivals)])]
    parts.extend(_ints([a, d]) for a, d in zip(arrivals, departures, strict=True))
    return f"{pattern}:{_encode(murmur3_32(b''.join(parts)))}"
