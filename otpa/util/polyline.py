"""Google encoded polylines (precision 5), as OTP's ``EncodedPolylineBean`` uses."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["decode_polyline", "encode_polyline"]


def _encode_value(value: int, out: list[str]) -> None:
    value = ~(value << 1) if value < 0 else value << 1
    while value >= 0x20:
        out.append(chr((0x20 | (value & 0x1F)) + 63))
        value >>= 5
    out.append(chr(value + 63))


def encode_polyline(lat: npt.ArrayLike, lon: npt.ArrayLike) -> str:
    """Encode coordinates (degrees) as a Google polyline string.

    Examples
    --------
    >>> encode_polyline([38.5, 40.7, 43.252], [-120.2, -120.95, -126.453])
    '_p~iF~ps|U_ulLnnqC_mqNvxq`@'
    """
    la = np.round(np.asarray(lat, dtype=np.float64) * 1e5).astype(np.int64)
    lo = np.round(np.asarray(lon, dtype=np.float64) * 1e5).astype(np.int64)
    out: list[str] = []
    plat = plon = 0
    for a, o in zip(la.tolist(), lo.tolist(), strict=True):
        _encode_value(a - plat, out)
        _encode_value(o - plon, out)
        plat, plon = a, o
    return "".join(out)


def decode_polyline(points: str) -> tuple[list[float], list[float]]:
    """Decode a Google polyline string into ``(lats, lons)`` in degrees.

    Examples
    --------
    >>> decode_polyline('_p~iF~ps|U_ulLnnqC_mqNvxq`@')
    ([38.5, 40.7, 43.252], [-120.2, -120.95, -126.453])
    """
    lats: list[float] = []
    lons: list[float] = []
    index = lat = lon = 0
    n = len(points)
    while index < n:
        deltas = []
        for _ in range(2):
            shift = result = 0
            while True:
                b = ord(points[index]) - 63
                index += 1
                result |= (b & 0x1F) << shift
                shift += 5
                if b < 0x20:
                    break
            deltas.append(~(result >> 1) if result & 1 else result >> 1)
        lat += deltas[0]
        lon += deltas[1]
        lats.append(lat / 1e5)
        lons.append(lon / 1e5)
    return lats, lons
