"""Board pictures as PNG (service/pictures/png.py): for each game a mid-game position renders to
a PNG of the asked width that shows a picture, its text really drawn (resvg silently leaves out
text whose font it lacks), and a missing font or a broken SVG is refused by name."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import resvg_py
from PIL import Image, ImageChops, ImageStat

from engine.registry import get_game
from service.pictures import board_svg
from service.pictures.png import (
    CONDENSED_FAMILIES,
    DEFAULT_FAMILY,
    DEJAVU_DIR,
    MAIL_PALETTE,
    MAX_WIDTH,
    REQUIRED_FONTS,
    PictureFontsMissing,
    PictureRenderError,
    quantized,
    svg_to_png,
)
from tests.engine_helpers import play_randomly

SVG_NS = "http://www.w3.org/2000/svg"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: game type -> (players, random legal moves): well into the game, with pieces on the board.
MID_GAME = {"attila": (4, 120), "attika": (3, 150), "attila-wargame": (2, 300)}


@pytest.fixture(scope="module", params=sorted(MID_GAME))
def picture(request: pytest.FixtureRequest) -> str:
    """The SVG picture of a mid-game position, as the service draws it (spectator view)."""
    game_type = request.param
    game = get_game(game_type)
    players, moves = MID_GAME[game_type]
    state = play_randomly(game, game.new_state(players, "png"), moves, "png")
    return board_svg(game_type, game.view(state, None), f"{game_type} in mid-game")


def _image(png: bytes) -> Image.Image:
    assert png.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def _svg_size(svg: str) -> tuple[float, float]:
    root = ET.fromstring(svg)
    return float(root.get("width", "0")), float(root.get("height", "0"))


def _without_text(svg: str) -> str:
    """The same picture with every <text> element removed."""
    ET.register_namespace("", SVG_NS)
    root = ET.fromstring(svg)
    for parent in list(root.iter()):
        for child in list(parent):
            if child.tag == f"{{{SVG_NS}}}text":
                parent.remove(child)
    return ET.tostring(root, encoding="unicode")


def _pixels_differing(a: Image.Image, b: Image.Image) -> int:
    assert a.size == b.size
    changed = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v else 0)
    return changed.histogram()[255]


def _ink(image: Image.Image) -> int:
    """Pixels that are not the picture's most common colour (its background)."""
    counts = image.getcolors(maxcolors=image.width * image.height)
    assert counts is not None
    return image.width * image.height - max(counts)[0]


@pytest.mark.parametrize("width", [600, 390])
def test_png_has_the_width_asked_for_the_aspect_ratio_and_a_picture(
    picture: str, width: int
) -> None:
    image = _image(svg_to_png(picture, width))
    svg_width, svg_height = _svg_size(picture)
    assert image.width == width
    assert abs(image.height - width * svg_height / svg_width) <= 1
    assert _ink(image) > 0.2 * image.width * image.height, "the picture is (nearly) blank"
    assert len(image.getcolors(maxcolors=1 << 20) or []) > 50, "not a drawn board"


def test_png_at_its_own_size_without_a_width(picture: str) -> None:
    image = _image(svg_to_png(picture))
    assert image.size == tuple(round(v) for v in _svg_size(picture))


def test_the_text_of_the_picture_is_drawn(picture: str) -> None:
    """The same picture without its <text> elements differs in many pixels: the labels are
    there. Without the fonts resvg draws no text and the two would be equal (next test)."""
    with_text = _image(svg_to_png(picture, 600))
    without = _image(svg_to_png(_without_text(picture), 600))
    assert _pixels_differing(with_text, without) > 0.01 * with_text.width * with_text.height


def test_without_fonts_resvg_leaves_text_out_silently(picture: str, tmp_path: Path) -> None:
    """Why the renderer refuses to run without its fonts, and why the test above can tell:
    given no font, resvg renders the picture as if it had no text at all, and no error."""

    def fontless(svg: str) -> Image.Image:
        return _image(
            resvg_py.svg_to_bytes(
                svg_string=svg, width=600, skip_system_fonts=True, font_dirs=[str(tmp_path)]
            )
        )

    assert _pixels_differing(fontless(picture), fontless(_without_text(picture))) == 0


def _word(family: str, weight: str) -> str:
    return (
        f'<svg xmlns="{SVG_NS}" width="300" height="60">'
        '<rect width="300" height="60" fill="#fff"/>'
        f'<text x="10" y="42" font-size="32" font-family="{family}" '
        f'font-weight="{weight}">Kurier Attila</text></svg>'
    )


def _word_box(family: str, weight: str) -> tuple[int, int]:
    """(width of the inked box, inked pixels) of one line of text in that face."""
    image = _image(svg_to_png(_word(family, weight)))
    inked = ImageChops.invert(image).convert("L").point(lambda v: 255 if v > 64 else 0)
    box = inked.getbbox()
    assert box is not None, f"{family} {weight}: no text drawn"
    return box[2] - box[0], inked.histogram()[255]


@pytest.mark.parametrize("condensed_family", CONDENSED_FAMILIES)
def test_each_face_the_pictures_name_is_the_one_drawn(condensed_family: str) -> None:
    """Condensed is narrower than regular and bold darker: a face not found falls back to
    DejaVu Sans (or to nothing) and would not measure so."""
    sans, sans_ink = _word_box(DEFAULT_FAMILY, "normal")
    bold, bold_ink = _word_box(DEFAULT_FAMILY, "bold")
    condensed, condensed_ink = _word_box(condensed_family, "normal")
    condensed_bold, condensed_bold_ink = _word_box(condensed_family, "bold")
    assert condensed < 0.95 * sans and condensed_bold < 0.95 * bold
    assert bold_ink > 1.2 * sans_ink and condensed_bold_ink > 1.2 * condensed_ink


def test_every_font_family_of_the_pictures_is_one_the_renderer_finds(picture: str) -> None:
    """resvg finds "DejaVu Sans" by name, the condensed faces only through the renderer's
    style sheet, which matches whole font-family values (CONDENSED_FAMILIES)."""
    families = {e.get("font-family") for e in ET.fromstring(picture).iter()} - {None}
    assert families
    for family in families:
        first = family.split(",")[0].strip().strip("'\"")
        assert first == DEFAULT_FAMILY or family in CONDENSED_FAMILIES, family


def test_a_font_dir_without_the_pictures_fonts_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PictureFontsMissing, match=r"DejaVuSans\.ttf"):
        svg_to_png(_word("DejaVu Sans", "normal"), font_dir=tmp_path)
    (tmp_path / "DejaVuSans.ttf").symlink_to(DEJAVU_DIR / "DejaVuSans.ttf")
    with pytest.raises(PictureFontsMissing) as refused:
        svg_to_png(_word("DejaVu Sans", "normal"), font_dir=tmp_path)
    assert "DejaVuSans.ttf," not in str(refused.value)
    assert all(name in str(refused.value) for name in REQUIRED_FONTS[1:])


@pytest.mark.parametrize("svg", ["", "<svg", "not svg", f'<svg xmlns="{SVG_NS}" width="0"/>'])
def test_a_broken_svg_is_refused_by_name(svg: str) -> None:
    with pytest.raises(PictureRenderError, match="could not be rendered"):
        svg_to_png(svg)


@pytest.mark.parametrize("width", [0, -5, MAX_WIDTH + 1])
def test_a_width_out_of_range_is_refused(width: int) -> None:
    with pytest.raises(PictureRenderError, match="width must be"):
        svg_to_png(_word("DejaVu Sans", "normal"), width)


def test_a_mail_picture_in_a_palette_is_smaller_and_close_to_the_original(picture: str) -> None:
    """``palette`` (the mails): at most 256 colours, a third to a half of the bytes, and the
    pixels within a few levels of the full-colour picture on average."""
    full = svg_to_png(picture, 600)
    paletted = svg_to_png(picture, 600, palette=MAIL_PALETTE)
    image = Image.open(io.BytesIO(paletted))
    assert image.mode == "P" and len(image.getcolors(1 << 16) or []) <= MAIL_PALETTE
    assert len(paletted) < 0.6 * len(full), (len(paletted), len(full))
    # Compared on white, as a mail shows it (Attila's corners are transparent).
    original = Image.open(io.BytesIO(full)).convert("RGBA")
    original = Image.alpha_composite(Image.new("RGBA", original.size, "#fff"), original)
    difference = ImageChops.difference(original.convert("RGB"), image.convert("RGB"))
    mean = sum(ImageStat.Stat(difference).mean) / 3
    assert mean < 2.0, mean
    assert quantized(full) == paletted  # one way to the mails' palette
