"""Colour scales for maps: built-in palettes and classed scales with legend labels.

No plotting library is needed: palettes are a few anchor colours (ColorBrewer and
viridis) interpolated in RGB, so the colours are the same on every machine.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from otpa.errors import InvalidArgumentError

__all__ = ["PALETTES", "ColorScale", "palette", "travel_time_scale"]

#: Anchor colours of the built-in palettes, low to high (ColorBrewer and viridis).
PALETTES: dict[str, tuple[str, ...]] = {
    "viridis": ("#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c",
                "#22a884", "#44bf70", "#7ad151", "#bddf26", "#fde725"),
    "ylgnbu": ("#ffffd9", "#edf8b1", "#c7e9b4", "#7fcdbb", "#41b6c4", "#1d91c0",
               "#225ea8", "#253494", "#081d58"),
    "ylorrd": ("#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a",
               "#e31a1c", "#bd0026", "#800026"),
    "rdbu": ("#67001f", "#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#f7f7f7",
             "#d1e5f0", "#92c5de", "#4393c3", "#2166ac", "#053061"),
}  # fmt: skip


# -- colours ---------------------------------------------------------------------------------------
def _rgb(hex_color: str) -> tuple[int, int, int]:
    h = hex_color.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def palette(name: str, n: int, *, reverse: bool = False) -> tuple[str, ...]:
    """``n`` colours spread evenly over a palette (linear interpolation in RGB).

    Parameters
    ----------
    name
        A key of :data:`PALETTES`.
    n
        Number of colours; the first and the last are the palette's ends (one
        colour: its middle).
    reverse
        High to low instead.

    Returns
    -------
    tuple of str
        ``"#rrggbb"`` colours.

    Examples
    --------
    >>> palette("viridis", 2)
    ('#440154', '#fde725')
    """
    if name not in PALETTES:
        msg = f"unknown palette {name!r}; choose one of {sorted(PALETTES)}"
        raise InvalidArgumentError(msg)
    if n < 1:
        msg = f"a palette needs at least one colour, got n={n}"
        raise InvalidArgumentError(msg)
    anchors = np.array([_rgb(c) for c in PALETTES[name]], dtype=np.float64)
    at = np.linspace(0.0, 1.0, n) if n > 1 else np.array([0.5])
    if reverse:
        at = at[::-1]
    pos = at * (len(anchors) - 1)
    lo = np.minimum(np.floor(pos).astype(np.int64), len(anchors) - 2)
    frac = (pos - lo)[:, None]
    rgb = np.rint(anchors[lo] * (1.0 - frac) + anchors[lo + 1] * frac).astype(np.int64)
    return tuple("#{:02x}{:02x}{:02x}".format(*(int(v) for v in row)) for row in rgb)


def _number(value: float, factor: float) -> str:
    v = value / factor
    text = f"{v:,.0f}" if abs(v - round(v)) < 1e-9 or abs(v) >= 100 else f"{v:,.3g}"
    return text.replace("-", "\u2212")


@dataclass(frozen=True)
class ColorScale:
    """Classes of values and their colours: class ``i`` holds ``bounds[i] < v <= bounds[i+1]``.

    The first class also holds ``bounds[0]`` itself. Values outside the bounds go to the
    end classes when ``clip`` is true and get no colour (are not drawn) otherwise; NaN
    never gets a colour.

    Attributes
    ----------
    bounds
        Increasing class edges, one more than ``colors``.
    colors
        One CSS colour per class.
    labels
        One legend label per class.
    title
        Legend title.
    clip
        Colour out-of-range values with the end classes.
    """

    bounds: tuple[float, ...]
    colors: tuple[str, ...]
    labels: tuple[str, ...]
    title: str = ""
    clip: bool = True

    def __post_init__(self) -> None:
        b = np.asarray(self.bounds, dtype=np.float64)
        if b.ndim != 1 or b.size < 2 or not np.all(np.isfinite(b)) or np.any(np.diff(b) <= 0):
            msg = f"bounds must be at least two increasing finite numbers, got {self.bounds!r}"
            raise InvalidArgumentError(msg)
        if len(self.colors) != b.size - 1 or len(self.labels) != b.size - 1:
            msg = (
                f"{b.size - 1} classes need as many colors and labels, "
                f"got {len(self.colors)} and {len(self.labels)}"
            )
            raise InvalidArgumentError(msg)

    @classmethod
    def from_bounds(
        cls,
        bounds: Sequence[float],
        palette_name: str = "viridis",
        *,
        reverse: bool = False,
        title: str = "",
        unit: str = "",
        factor: float = 1.0,
        clip: bool = True,
    ) -> ColorScale:
        """A scale over given class edges, coloured from a palette.

        Parameters
        ----------
        bounds
            Increasing class edges.
        palette_name
            A key of :data:`PALETTES`.
        reverse
            Run the palette high to low.
        title
            Legend title.
        unit
            Appended to the labels (``" min"``).
        factor
            Labels show ``bound / factor`` (60 for seconds shown as minutes).
        clip
            See :class:`ColorScale`.
        """
        edges = tuple(float(v) for v in bounds)
        labels = []
        for lo, hi in itertools.pairwise(edges):
            sep = " to " if lo < 0 or hi < 0 else "\u2013"
            labels.append(f"{_number(lo, factor)}{sep}{_number(hi, factor)}{unit}")
        colors = palette(palette_name, len(edges) - 1, reverse=reverse)
        return cls(edges, colors, tuple(labels), title=title, clip=clip)

    @classmethod
    def quantiles(
        cls,
        values: npt.ArrayLike,
        n: int = 6,
        palette_name: str = "ylorrd",
        *,
        title: str = "",
        unit: str = "",
    ) -> ColorScale:
        """A scale with about ``n`` classes holding equal shares of the finite values.

        Edges are rounded to two significant digits (repeated edges merged), so the
        legend reads well; the lowest and highest edges are the data's range.
        """
        v = np.asarray(values, dtype=np.float64).ravel()
        v = v[np.isfinite(v)]
        if v.size == 0:
            msg = "no finite values to build a colour scale from"
            raise InvalidArgumentError(msg)
        lo, hi = float(v.min()), float(v.max())
        inner = [_round_sig(q) for q in np.quantile(v, np.linspace(0, 1, n + 1)[1:-1])]
        edges = sorted({lo, hi, *(q for q in inner if lo < q < hi)})
        if len(edges) < 2:
            edges = [lo, lo + 1.0]
        return cls.from_bounds(edges, palette_name, title=title, unit=unit)

    @classmethod
    def diverging(
        cls,
        limit: float,
        n: int = 7,
        palette_name: str = "rdbu",
        *,
        reverse: bool = False,
        title: str = "",
        unit: str = "",
        factor: float = 1.0,
    ) -> ColorScale:
        """``n`` equal classes from ``-limit`` to ``limit`` (odd ``n``: a neutral middle class).

        With ``"rdbu"``, negative values are red and positive ones blue (``reverse``
        swaps them). Values beyond the limit take the end colours.
        """
        if not (math.isfinite(limit) and limit > 0):
            msg = f"limit must be a positive number, got {limit!r}"
            raise InvalidArgumentError(msg)
        edges = np.linspace(-limit, limit, n + 1)
        return cls.from_bounds(
            edges.tolist(), palette_name, reverse=reverse, title=title, unit=unit, factor=factor
        )

    @property
    def legend(self) -> dict[str, str]:
        """``{label: colour}`` in class order, for ``ipyleaflet.LegendControl``."""
        return dict(zip(self.labels, self.colors, strict=True))

    def classes(self, values: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """The class of each value, -1 where it gets no colour."""
        v = np.asarray(values, dtype=np.float64)
        b = np.asarray(self.bounds, dtype=np.float64)
        out = np.searchsorted(b[1:-1], v, side="left").astype(np.int64)
        outside = (v < b[0]) | (v > b[-1])
        out[~np.isfinite(v) | (outside & (not self.clip))] = -1
        return out

    def color(self, value: float) -> str | None:
        """The colour of one value (None: not drawn)."""
        k = int(self.classes(np.array([value]))[0])
        return None if k < 0 else self.colors[k]


def _round_sig(value: float, digits: int = 2) -> float:
    if value == 0 or not math.isfinite(value):
        return float(value)
    return float(round(value, digits - 1 - math.floor(math.log10(abs(value)))))


def travel_time_scale(
    cutoffs_s: Sequence[float] = (900, 1800, 2700, 3600),
    palette_name: str = "viridis",
    *,
    title: str = "travel time",
) -> ColorScale:
    """Classes ``0-15``, ``15-30``... minutes for travel times in seconds (not clipped).

    Examples
    --------
    >>> scale = travel_time_scale((900, 1800))
    >>> scale.labels, scale.color(600), scale.color(4000)
    (('0–15 min', '15–30 min'), '#440154', None)
    """
    bounds = [0.0, *(float(c) for c in cutoffs_s)]
    return ColorScale.from_bounds(
        bounds, palette_name, title=title, unit=" min", factor=60.0, clip=False
    )
