"""Board pictures as PNG: the SVG pictures rasterised by resvg (``resvg-py``, a Rust renderer in
a wheel, no system libraries), for mail (inline ``cid:`` images) and any client without SVG.

Fonts: resvg draws text only with fonts it has loaded and silently leaves out text whose family
it cannot find. So the renderer loads the DejaVu files from one directory and nothing else from
the system (the same faces wherever it runs, and no scan of every installed font), names DejaVu
Sans as the default and sans-serif family, and refuses to render when a face the pictures name
is missing rather than mail a picture without its labels. No PyPI package ships DejaVu Sans
Condensed, so the files come from Debian's fonts-dejavu-core and fonts-dejavu-extra (the
Dockerfile installs both; docs/operations.md, "Pictures").

Mail pictures are made smaller with an adaptive palette (``palette``: Pillow's fast octree, no
dithering): the pictures are flat fills, lines and antialiased text, a few thousand colours of
which 256 well chosen ones differ from the originals by 0.5-1.3 levels of 255 on average, and
the PNG shrinks to 25-40 % (docs/performance.md, "Mail size"). PNG stays the format: every
mail program shows an inline PNG, not every one WebP.
"""

from __future__ import annotations

import io
from pathlib import Path

import resvg_py
from PIL import Image

#: Where Debian (the container image's base and the test machines) puts the DejaVu files.
DEJAVU_DIR = Path("/usr/share/fonts/truetype/dejavu")

#: The faces the pictures use: DejaVu Sans and DejaVu Sans Condensed, regular and bold. The
#: condensed ones are in fonts-dejavu-extra, the others in fonts-dejavu-core.
REQUIRED_FONTS = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed.ttf",
    "DejaVuSansCondensed-Bold.ttf",
)

DEFAULT_FAMILY = "DejaVu Sans"

#: The font-family values the pictures give condensed text. resvg's font database knows the
#: condensed faces only as family "DejaVu Sans" with a condensed stretch (the files' typographic
#: family name), not as "DejaVu Sans Condensed" as fontconfig and browsers do: such text would
#: fall back to the regular width, or vanish without a generic fallback. A user style sheet
#: (it overrides presentation attributes) asks for that face the way resvg finds it. Its
#: selectors match whole values only (resvg's CSS has no prefix match); a test checks every
#: font-family the pictures use is either the default family or one of these.
CONDENSED_FAMILIES = (
    "DejaVu Sans Condensed",
    "DejaVu Sans Condensed, Arial Narrow, sans-serif",
)
_STYLE_SHEET = "\n".join(
    f'[font-family="{family}"] {{ font-family: "{DEFAULT_FAMILY}"; font-stretch: condensed }}'
    for family in CONDENSED_FAMILIES
)

#: The colours of a mail picture's palette (PNG's largest, 8 bits a pixel).
MAIL_PALETTE = 256

#: Wider than any use (mail is 600 px, the full pictures about 1,000-1,600 px); a larger width
#: is a mistake that would cost seconds and tens of megabytes.
MAX_WIDTH = 4000


class PictureRenderError(Exception):
    """The PNG could not be made: the SVG is not well formed, or the width is out of range."""


class PictureFontsMissing(PictureRenderError):
    """A font the pictures name is not installed: the text would silently be left out."""


def missing_fonts(font_dir: Path = DEJAVU_DIR) -> list[str]:
    """The required font files not found in ``font_dir`` (empty when all are there)."""
    return [name for name in REQUIRED_FONTS if not (font_dir / name).is_file()]


def svg_to_png(
    svg: str,
    width: int | None = None,
    *,
    font_dir: Path = DEJAVU_DIR,
    palette: int | None = None,
) -> bytes:
    """The PNG of ``svg``, ``width`` pixels wide with its aspect ratio kept (its own size if
    None); with ``palette``, in at most that many colours (``quantized``). Raises
    PictureFontsMissing or PictureRenderError; never returns a blank guess."""
    if width is not None and not 1 <= width <= MAX_WIDTH:
        raise PictureRenderError(f"width must be between 1 and {MAX_WIDTH} pixels, not {width}")
    missing = missing_fonts(font_dir)
    if missing:
        raise PictureFontsMissing(
            f"fonts missing in {font_dir}: {', '.join(missing)} "
            "(install Debian's fonts-dejavu-core and fonts-dejavu-extra)"
        )
    try:
        png = resvg_py.svg_to_bytes(
            svg_string=svg,
            width=width,
            skip_system_fonts=True,
            font_dirs=[str(font_dir)],
            font_family=DEFAULT_FAMILY,
            sans_serif_family=DEFAULT_FAMILY,
            style_sheet=_STYLE_SHEET,
        )
    except ValueError as error:  # resvg's parse and render errors
        raise PictureRenderError(f"the SVG could not be rendered: {error}") from error
    return png if palette is None else quantized(png, palette)


def quantized(png: bytes, colours: int = MAIL_PALETTE) -> bytes:
    """``png`` with an adaptive palette of at most ``colours`` colours: Pillow's fast octree
    (libimagequant is not built in), a quarter of the CPU of its median cut and smaller files
    for the wargame, its colours as indistinguishable from the original; without dithering,
    which would speckle the flat fills and cost bytes; zlib at its default level (level 9
    doubles the CPU for 3-6 % fewer bytes). Transparent pixels (Attila's rounded corners) are
    laid on white, the mail's background."""
    image = Image.open(io.BytesIO(png)).convert("RGBA")
    image = Image.alpha_composite(Image.new("RGBA", image.size, "#ffffff"), image).convert("RGB")
    paletted = image.quantize(colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    paletted.save(out, "PNG")
    return out.getvalue()
