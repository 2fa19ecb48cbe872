"""Travel-time images: OTP's minute bytes, colour styles, tile and legend encoding."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from otpa.analysis.otp1.render import (
    STYLES,
    UNREACHABLE,
    color_table,
    colorize,
    difference_pixels,
    encode_image,
    hagerstrand_pixels,
    legend_image,
    legend_pixels,
    parse_image_format,
    parse_style,
    pixel_minutes,
    render_legend,
    render_tile,
    time_pixels,
)


def _open(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


# -- pixels ---------------------------------------------------------------------------------


def test_time_pixels_truncate_to_minutes_clamp_and_mark_unreachable() -> None:
    seconds = np.array([0, 59, 60, 119.9, 3599, 7200, 7260, 1e6, np.nan, -30, -7300])
    got = time_pixels(seconds).view(np.int8).tolist()
    # OTP: t /= 60 (integer division of whole seconds), clamp to +-120, -128 unreachable
    assert got == [0, 0, 1, 1, 59, 120, 120, 120, -128, 0, -120]


def test_pixel_minutes_inverts_time_pixels_within_the_clamp() -> None:
    minutes = np.arange(-120, 121)
    pixels = time_pixels(minutes * 60.0 + 30.0 * np.sign(minutes))
    assert np.array_equal(pixel_minutes(pixels), minutes.astype(float))
    assert np.isnan(pixel_minutes(np.array([UNREACHABLE], np.uint8))[0])


def test_difference_and_hagerstrand_pixels() -> None:
    a = np.array([600.0, 1200.0, np.nan, 300.0])
    b = np.array([300.0, 1200.0, 60.0, 900.0])
    assert difference_pixels(a, b).view(np.int8).tolist() == [5, 0, -128, -10]
    # slack of a 30-minute budget: 30 - 10 - 5 = 15; 30 - 20 - 20 = -10; unreachable; 30 - 5 - 15
    assert hagerstrand_pixels(a, b, 1800).view(np.int8).tolist() == [15, -10, -128, 10]


# -- styles ---------------------------------------------------------------------------------


@pytest.mark.parametrize("style", [s for s in STYLES if s not in ("TRANSPARENT", "BOARDINGS")])
def test_unreachable_pixels_are_transparent(style: str) -> None:
    assert color_table(parse_style(style))[UNREACHABLE, 3] == 0


def test_color30_colours_every_reachable_minute_in_15_minute_bands() -> None:
    table = color_table("COLOR30")
    reachable = table[np.arange(0, 121)]
    assert (reachable[:, 3] > 0).all()
    # OTP's bands: grey, green, blue, yellow, red, purple
    expected = {7: (100, 100, 100), 20: (0, 140, 0), 35: (0, 0, 140), 50: (140, 140, 0)}
    expected |= {65: (140, 0, 0), 80: (140, 0, 140)}
    for minute, rgb in expected.items():
        assert tuple(table[minute, :3]) == rgb, minute
    # alpha ramps up within a band and restarts at the next
    assert table[16, 3] < table[29, 3]
    assert table[29, 3] > table[30, 3]


def test_mask_transparent_and_difference_follow_otp() -> None:
    mask = color_table("MASK")
    assert mask[0, 3] == 255
    assert mask[30, 3] == 128
    assert mask[60, 3] == 0
    fog = color_table("TRANSPARENT")
    assert fog[UNREACHABLE, 3] == 255
    assert fog[0, 3] == 255
    assert fog[90, 3] == 0
    diff = color_table("DIFFERENCE")
    assert diff[0, 3] == 0  # no difference: transparent
    assert diff[30, 3] > 0
    assert diff[(-30) & 0xFF, 3] > 0
    assert diff[(-30) & 0xFF, 0] == 150  # slower: red


def test_gray_darkens_with_time() -> None:
    gray = color_table("GRAY")
    assert gray[0, :3].tolist() == [255, 255, 255]
    assert gray[60, 0] == 255 - 120
    assert (gray[:121, 3] == 255).all()


def test_parse_style_and_format() -> None:
    assert parse_style("mask") == "MASK"
    assert parse_style(" grey ") == "GRAY"
    with pytest.raises(ValueError, match="unknown layer style"):
        parse_style("RAINBOW")
    assert parse_image_format("image/png") == "png"
    assert parse_image_format("JPG") == "jpeg"
    assert parse_image_format("geotiff") == "tiff"
    with pytest.raises(ValueError, match="unsupported image format"):
        parse_image_format("bmp")


# -- images ---------------------------------------------------------------------------------


def test_render_tile_png_holds_the_style_colours() -> None:
    rng = np.random.default_rng(3)
    seconds = rng.uniform(0, 8000, (256, 256))
    seconds[:40] = np.nan
    pixels = time_pixels(seconds)
    image = _open(render_tile(pixels, "COLOR30"))
    assert image.format == "PNG"
    assert image.mode == "RGBA"
    assert image.size == (256, 256)
    rgba = np.asarray(image)
    assert np.array_equal(rgba, colorize(pixels, "COLOR30"))
    assert (rgba[:40, :, 3] == 0).all()
    assert (rgba[40:, :, 3] > 0).all()


def test_render_tile_refuses_boardings() -> None:
    with pytest.raises(ValueError, match="BOARDINGS"):
        render_tile(np.zeros((2, 2), np.uint8), "BOARDINGS")


@pytest.mark.parametrize(
    ("fmt", "pil_format"), [("png", "PNG"), ("gif", "GIF"), ("jpeg", "JPEG"), ("tiff", "TIFF")]
)
def test_encode_image_formats(fmt: str, pil_format: str) -> None:
    rgba = colorize(time_pixels(np.linspace(0, 7000, 64 * 32).reshape(32, 64)), "COLOR30")
    rgba[:8] = 0  # fully transparent rows
    image = _open(encode_image(rgba, parse_image_format(fmt)))
    assert image.format == pil_format
    assert image.size == (64, 32)
    if fmt == "gif":
        transparent = image.info["transparency"]
        indices = np.asarray(image)
        assert (indices[:8] == transparent).all()
        assert (indices[8:] != transparent).all()


def test_legend_spans_150_minutes_at_the_requested_size() -> None:
    pixels = legend_pixels(300, 20)
    assert pixels[0, 0] == 0
    assert pixels[0, -1] == 149
    assert pixels[0, 150] == 75
    image = legend_image("COLOR30", 300, 150)
    assert image.shape == (150, 300, 4)
    # a column away from the text keeps the style's colour of its minute
    middle = 75  # row 75 of 150: between the title and the labels
    assert tuple(image[middle, 40]) == tuple(color_table("COLOR30")[40 * 150 // 300])
    # the labels are drawn in black
    assert (image[..., :3].sum(axis=2) == 0).any()
    png = _open(render_legend("DIFFERENCE", 200, 40, "png"))
    assert png.size == (200, 40)
