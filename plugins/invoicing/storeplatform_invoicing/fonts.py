"""Fonts for the PDFs: DejaVu Sans ships in the package (the PDF core fonts draw boxes for
anything beyond Latin-1); a site font (option invoicing.font, font_files.py) covers what DejaVu lacks,
such as CJK. Text is split into runs, each set in the first font that has its glyphs."""
import hashlib
import logging
import threading
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

log = logging.getLogger(__name__)

FONT_DIR = Path(__file__).resolve().parent / "fonts"
REGULAR = "InvoicingSans"
BOLD = "InvoicingSans-Bold"

_lock = threading.Lock()
_coverage = {}  # font name -> set of code points it has
_site_fonts = {}  # path -> font name, or None when the file could not be loaded


def _register(name, path, **kwargs):
    font = TTFont(name, str(path), **kwargs)
    pdfmetrics.registerFont(font)
    _coverage[name] = frozenset(font.face.charToGlyph)
    return name


def bundled_fonts():
    with _lock:
        if REGULAR not in _coverage:
            _register(REGULAR, FONT_DIR / "DejaVuSans.ttf")
            _register(BOLD, FONT_DIR / "DejaVuSans-Bold.ttf")
    return REGULAR, BOLD


def site_font(path):
    """The registered name of the site's extra font, or None (no path, or a file reportlab
    cannot read: the document is still made, with the bundled font, and the log says why)."""
    path = (path or "").strip()
    if not path:
        return None
    with _lock:
        if path not in _site_fonts:
            name = "InvoicingSite-" + hashlib.sha1(path.encode()).hexdigest()[:10]
            try:
                _site_fonts[path] = _register(name, path, subfontIndex=0)
            except Exception as exc:  # reportlab raises several types for unreadable fonts
                log.error("invoicing.font %s cannot be used: %s", path, exc)
                _site_fonts[path] = None
        return _site_fonts[path]


def markup(text, font, fallbacks=()):
    """Paragraph markup of ``text`` (escaped) with runs of characters missing from ``font``
    set in the first fallback font that has them."""
    text = str(text)
    if not fallbacks:
        return escape(text)
    primary = _coverage[font]
    runs = []
    for char in text:
        name = font
        if ord(char) not in primary and not char.isspace():
            name = next((f for f in fallbacks if ord(char) in _coverage[f]), font)
        if runs and runs[-1][0] == name:
            runs[-1][1].append(char)
        else:
            runs.append((name, [char]))
    return "".join(escape("".join(chars)) if name == font else f'<font name="{name}">{escape("".join(chars))}</font>'
                   for name, chars in runs)
