"""Travel-time images: OTP's analyst pixel encoding, colour styles, tiles and legends.

Pixels follow OTP 1.x's analyst tiles: a pixel holds whole **minutes** as a signed byte,
``trunc(seconds / 60)`` clamped to ``[-120, 120]``, and ``-128`` means unreachable. A style
is a 256-entry RGBA table indexed by that byte (``minutes & 0xFF``), built like OTP's
``Tile.interpolatedColorMap``: linear ramps between ``(minutes, r, g, b, a)`` breaks.

Styles (OTP's names; ``GREY`` is accepted for ``GRAY``):

=============  =======================================================================
``COLOR30``    15-minute colour bands (grey, green, blue, yellow, red, purple) up to 90
               minutes, grey beyond; OTP's table except that the first band starts at
               alpha 10 instead of fully transparent and unreachable pixels are
               transparent (OTP painted them grey)
``GRAY``       a grey ramp, white at 0 minutes, darker by 2 levels a minute; OTP wrote the
               raw byte as an unstyled grey image
``MASK``       black, opaque at 0 minutes, transparent from 60 minutes on
``TRANSPARENT``black, transparent from 60 minutes on, opaque over unreachable places (a
               fog hiding what cannot be reached)
``DIFFERENCE`` for differences: red where the first surface is slower (negative), blue
               to green where it is faster, transparent where equal or unreachable
``BOARDINGS``  OTP's boardings palette; legends only (surfaces hold no boarding counts)
=============  =======================================================================

Images are encoded with Pillow: PNG (RGBA), GIF (palette, fully transparent pixels
transparent), JPEG (over white) and TIFF.
"""

from __future__ import annotations

import io
import itertools
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from otpa.errors import InvalidArgumentError
from otpa.types import UInt8Array

__all__ = [
    "IMAGE_FORMATS",
    "LEGEND_BANDS",
    "STYLES",
    "UNREACHABLE",
    "ImageFormat",
    "Style",
    "color_table",
    "colorize",
    "difference_pixels",
    "encode_image",
    "hagerstrand_pixels",
    "legend_image",
    "legend_pixels",
    "parse_image_format",
    "parse_style",
    "pixel_minutes",
    "render_legend",
    "render_tile",
    "time_pixels",
]

Style: TypeAlias = Literal["COLOR30", "GRAY", "MASK", "TRANSPARENT", "DIFFERENCE", "BOARDINGS"]
ImageFormat: TypeAlias = Literal["png", "gif", "jpeg", "tiff"]

#: Every style, in OTP's order.
STYLES: tuple[Style, ...] = ("GRAY", "COLOR30", "DIFFERENCE", "TRANSPARENT", "MASK", "BOARDINGS")
#: Image formats, by the names clients use (MIME types or extensions).
IMAGE_FORMATS: dict[str, ImageFormat] = {
    "png": "png",
    "image/png": "png",
    "gif": "gif",
    "image/gif": "gif",
    "jpeg": "jpeg",
    "jpg": "jpeg",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "tiff": "tiff",
    "tif": "tiff",
    "image/tiff": "tiff",
    "geotiff": "tiff",
    "image/geotiff": "tiff",
}
#: The unreachable pixel: -128 as a signed byte.
UNREACHABLE = 128
#: Largest magnitude of a pixel's minutes (OTP's clamp).
_CLAMP_MIN = 120
#: A legend spans this many minutes (OTP's ``NBANDS``), labelled every 30.
LEGEND_BANDS = 150
_LABEL_SPACING = 30

_Breaks: TypeAlias = tuple[tuple[int, int, int, int, int], ...]

# (minutes, r, g, b, a) breaks, after OTP 1.x's ``Tile`` colour maps
_COLOR30: _Breaks = (
    (-128, 100, 100, 100, 200),
    (0, 100, 100, 100, 10),
    (15, 100, 100, 100, 90),
    (15, 0, 140, 0, 10),
    (30, 0, 140, 0, 90),
    (30, 0, 0, 140, 10),
    (45, 0, 0, 140, 90),
    (45, 140, 140, 0, 10),
    (60, 140, 140, 0, 90),
    (60, 140, 0, 0, 10),
    (75, 140, 0, 0, 90),
    (75, 140, 0, 140, 10),
    (90, 140, 0, 140, 90),
    (90, 100, 100, 100, 50),
    (121, 100, 100, 100, 200),
)
_DIFFERENCE: _Breaks = (
    (-128, 0, 0, 0, 0),
    (-127, 150, 0, 0, 80),
    (-60, 150, 0, 0, 80),
    (-15, 150, 150, 0, 80),
    (0, 150, 150, 0, 0),
    (0, 0, 0, 0, 0),
    (15, 0, 0, 150, 80),
    (45, 0, 150, 0, 90),
    (60, 100, 150, 100, 99),
    (127, 50, 150, 50, 99),
)
_TRANSPARENT: _Breaks = (
    (-128, 0, 0, 0, 255),
    (0, 0, 0, 0, 255),
    (60, 0, 0, 0, 0),
    (120, 0, 0, 0, 0),
)
_MASK: _Breaks = ((0, 0, 0, 0, 255), (60, 0, 0, 0, 0))


def _interpolated(breaks: _Breaks) -> UInt8Array:
    """OTP's ``interpolatedColorMap``: ramps from each break up to (not including) the next."""
    table = np.zeros((256, 4), dtype=np.int64)
    for (i0, *v0), (i1, *v1) in itertools.pairwise(breaks):
        steps = i1 - i0
        if steps <= 0:
            continue
        i = np.arange(steps)
        for channel in range(4):
            delta = (v1[channel] - v0[channel]) / steps
            # Java's (int) cast truncates toward zero
            table[(i0 + i) & 0xFF, channel] = v0[channel] + np.trunc(delta * i).astype(np.int64)
    return (table & 0xFF).astype(np.uint8)


def _gray() -> UInt8Array:
    minutes = np.arange(256).astype(np.uint8).view(np.int8).astype(np.int64)
    level = np.clip(255 - 2 * np.abs(minutes), 0, 255)
    table = np.stack([level, level, level, np.full(256, 255)], axis=1).astype(np.uint8)
    table[UNREACHABLE] = 0
    return table


def _boardings() -> UInt8Array:
    table = np.zeros((256, 4), dtype=np.uint8)
    table[:, 3] = 80
    table[0, 1] = 255
    table[1, 2] = 255
    table[2, 0] = table[2, 1] = 255
    table[3, 0] = 255
    table[255, 3] = 0
    return table


def _build_tables() -> dict[Style, UInt8Array]:
    color30 = _interpolated(_COLOR30)
    color30[UNREACHABLE] = 0
    tables: dict[Style, UInt8Array] = {
        "COLOR30": color30,
        "GRAY": _gray(),
        "MASK": _interpolated(_MASK),
        "TRANSPARENT": _interpolated(_TRANSPARENT),
        "DIFFERENCE": _interpolated(_DIFFERENCE),
        "BOARDINGS": _boardings(),
    }
    for table in tables.values():
        table.flags.writeable = False
    return tables


_TABLES = _build_tables()


def parse_style(name: str) -> Style:
    """The style named ``name`` (any case; ``GREY`` means ``GRAY``).

    Raises
    ------
    ValueError
        ``unknown layer style`` (OTP's message) for any other name.

    Examples
    --------
    >>> parse_style("color30"), parse_style("Grey")
    ('COLOR30', 'GRAY')
    """
    key = name.strip().upper()
    key = "GRAY" if key == "GREY" else key
    for style in STYLES:
        if style == key:
            return style
    msg = f"unknown layer style {name!r}; styles are {', '.join(STYLES)}"
    raise InvalidArgumentError(msg)


def parse_image_format(name: str) -> ImageFormat:
    """The image format named ``name`` (``png``, ``image/png``, ``jpg``, ``geotiff``...).

    Raises
    ------
    ValueError
        ``unsupported image format`` (OTP's message) for any other name.
    """
    fmt = IMAGE_FORMATS.get(name.strip().lower())
    if fmt is None:
        msg = f"unsupported image format {name!r}; formats are png, gif, jpeg, geotiff"
        raise InvalidArgumentError(msg)
    return fmt


def color_table(style: Style) -> UInt8Array:
    """The ``(256, 4)`` RGBA table of a style, indexed by pixel byte (read-only)."""
    return _TABLES[style]


def _clamped_bytes(minutes: npt.NDArray[np.float64]) -> UInt8Array:
    """Float minutes -> OTP's signed-byte pixels (truncated, clamped); NaN -> unreachable."""
    finite = np.isfinite(minutes)
    clipped = np.clip(np.trunc(np.where(finite, minutes, 0.0)), -_CLAMP_MIN, _CLAMP_MIN)
    pixels = clipped.astype(np.int64) & 0xFF
    return np.where(finite, pixels, UNREACHABLE).astype(np.uint8)


def time_pixels(seconds: npt.ArrayLike) -> UInt8Array:
    """Travel times (seconds, NaN unreachable) as pixels: whole minutes, ``-128`` unreachable.

    Examples
    --------
    >>> time_pixels([0.0, 59.0, 61.0, 9000.0, float("nan")]).tolist()
    [0, 0, 1, 120, 128]
    """
    return _clamped_bytes(np.asarray(seconds, dtype=np.float64) / 60.0)


def difference_pixels(first_s: npt.ArrayLike, second_s: npt.ArrayLike) -> UInt8Array:
    """``first - second`` in minutes as pixels; unreachable where either is unreachable.

    OTP's DIFFERENCE layer: ``linearCombination(1, a, -1, b)``.
    """
    a = np.asarray(first_s, dtype=np.float64)
    b = np.asarray(second_s, dtype=np.float64)
    return _clamped_bytes((a - b) / 60.0)


def hagerstrand_pixels(
    first_s: npt.ArrayLike, second_s: npt.ArrayLike, budget_s: float
) -> UInt8Array:
    """Slack minutes ``(budget - first - second) / 60`` as pixels (time geography's prism).

    A place with non-negative slack can be visited between leaving the first origin and
    reaching the second place within ``budget_s``. OTP's HAGERSTRAND layer:
    ``linearCombination(-1, a, -1, b, elapsed / 60)``.
    """
    a = np.asarray(first_s, dtype=np.float64)
    b = np.asarray(second_s, dtype=np.float64)
    return _clamped_bytes((float(budget_s) - a - b) / 60.0)


def pixel_minutes(pixels: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Decode pixels back to minutes (float; NaN for unreachable).

    Examples
    --------
    >>> pixel_minutes(time_pixels([120.0, float("nan")])).tolist()
    [2.0, nan]
    """
    raw = np.asarray(pixels, dtype=np.uint8)
    minutes = raw.view(np.int8).astype(np.float64)
    return np.where(raw == UNREACHABLE, np.nan, minutes)


def colorize(pixels: npt.ArrayLike, style: Style) -> UInt8Array:
    """RGBA image (``(..., 4)`` uint8) of pixels through a style's colour table."""
    return color_table(style)[np.asarray(pixels, dtype=np.uint8)]


def encode_image(rgba: UInt8Array, fmt: ImageFormat) -> bytes:
    """Encode an ``(h, w, 4)`` RGBA array.

    Parameters
    ----------
    rgba
        The image, row 0 at the top.
    fmt
        ``png`` and ``tiff`` keep the alpha channel; ``gif`` makes fully transparent pixels
        transparent (others opaque); ``jpeg`` is composed over white.

    Returns
    -------
    bytes
        The encoded image.
    """
    image = Image.fromarray(np.ascontiguousarray(rgba, dtype=np.uint8), mode="RGBA")
    buffer = io.BytesIO()
    if fmt == "png":
        image.save(buffer, format="PNG", optimize=False)
    elif fmt == "tiff":
        image.save(buffer, format="TIFF", compression="tiff_deflate")
    else:
        background = Image.new("RGBA", image.size, (255, 255, 255, 255))
        flat = Image.alpha_composite(background, image).convert("RGB")
        if fmt == "jpeg":
            flat.save(buffer, format="JPEG", quality=90)
        else:
            palette = flat.quantize(colors=255)
            indices = np.asarray(palette, dtype=np.uint8).copy()
            indices[np.asarray(rgba)[..., 3] == 0] = 255
            colours = [*(palette.getpalette() or []), *([255] * 768)][:768]
            out = Image.fromarray(indices, mode="P")
            out.putpalette(colours)
            out.save(buffer, format="GIF", transparency=255)
    return buffer.getvalue()


def render_tile(pixels: npt.ArrayLike, style: Style, fmt: ImageFormat = "png") -> bytes:
    """Encode a tile of pixels (see :func:`time_pixels`) in a style.

    Parameters
    ----------
    pixels
        ``(h, w)`` uint8 pixels, row 0 at the top.
    style
        Any style but ``BOARDINGS``.
    fmt
        Image format.

    Returns
    -------
    bytes
        The encoded image.
    """
    if style == "BOARDINGS":
        msg = "the BOARDINGS style needs boarding counts; surfaces hold travel times only"
        raise InvalidArgumentError(msg)
    return encode_image(colorize(pixels, style), fmt)


def legend_pixels(width: int, height: int) -> UInt8Array:
    """A legend's pixels: column ``c`` shows ``c * 150 // width`` minutes (OTP's legend)."""
    columns = (np.arange(width) * LEGEND_BANDS // width).astype(np.uint8)
    return np.broadcast_to(columns[None, :], (height, width)).copy()


def legend_image(style: Style, width: int = 300, height: int = 150) -> UInt8Array:
    """An RGBA legend: the style's colours over 0..150 minutes, labelled every 30 minutes.

    Parameters
    ----------
    style
        The style.
    width, height
        Size in pixels.

    Returns
    -------
    numpy.ndarray
        ``(height, width, 4)`` uint8.
    """
    if width < 1 or height < 1:
        msg = f"legend size must be positive, got {width} x {height}"
        raise InvalidArgumentError(msg)
    image = Image.fromarray(colorize(legend_pixels(width, height), style), mode="RGBA")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    black = (0, 0, 0, 255)
    draw.text((0, 0), "travel time (minutes)", fill=black, font=font)
    scale = width / LEGEND_BANDS
    for minutes in range(0, LEGEND_BANDS, _LABEL_SPACING):
        draw.text((minutes * scale, height - 1), str(minutes), fill=black, font=font, anchor="ls")
    return np.asarray(image, dtype=np.uint8)


def render_legend(
    style: Style, width: int = 300, height: int = 150, fmt: ImageFormat = "png"
) -> bytes:
    """A legend image (see :func:`legend_image`), encoded.

    Examples
    --------
    >>> render_legend("COLOR30", 300, 150)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    return encode_image(legend_image(style, width, height), fmt)
