"""QR codes for joining a table: SVG for pages, block characters for the terminal."""

from __future__ import annotations

import functools
import io

import qrcode
import qrcode.image.svg
from markupsafe import Markup, escape


@functools.lru_cache(maxsize=64)  # the hall draws its join code every render (20-30 ms each)
def qr_svg(data: str) -> Markup:
    """An inline SVG (no image library, no external file) that scales to its box."""
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=4,
                         image_factory=qrcode.image.svg.SvgPathFillImage)
    code.add_data(data)
    code.make(fit=True)
    svg = code.make_image().to_string(encoding="unicode")
    svg = svg.split("?>", 1)[-1].strip()  # drop the XML declaration for inline use
    # Fixed width/height attributes would defeat the CSS sizing; the viewBox keeps proportions.
    head, rest = svg.split(">", 1)
    head = " ".join(p for p in head.split(" ") if not p.startswith(("width=", "height=")))
    # Its text alternative is what it encodes (readable the same in English and Japanese).
    label = escape(f"QR: {data}")
    return Markup(head.replace("<svg", f'<svg role="img" aria-label="{label}" class="qr"', 1) + ">" + rest)


def qr_terminal(data: str) -> str:
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_L, border=2)
    code.add_data(data)
    code.make(fit=True)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()
