"""What a ticket looks like on paper and in a message (#41): its QR code as a PNG (the image the
tickets message shows inline, the one ``GET events/v1/tickets/<code>/qr`` answers) and a one-page
PDF per ticket made with reportlab (event, date and time, venue, attendee, the ticket code in
large type and its QR code). Made by the worker that composes the tickets message
(``ticket_mail.compose``), never in a request."""
import io
import threading
from pathlib import Path

import segno

# The PDF core fonts (Helvetica) draw a box for anything beyond Latin-1: DejaVu Sans is used
# instead when the machine has it (Debian's fonts-dejavu-core, the folders below).
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"),
             Path("/usr/local/share/fonts/dejavu"))
_fonts = []
_fonts_lock = threading.Lock()


def fonts():
    """(regular, bold) font names: DejaVu Sans, registered once, or Helvetica."""
    with _fonts_lock:
        if not _fonts:
            chosen = ("Helvetica", "Helvetica-Bold")
            for folder in FONT_DIRS:
                regular, bold = folder / "DejaVuSans.ttf", folder / "DejaVuSans-Bold.ttf"
                if regular.is_file() and bold.is_file():
                    try:
                        from reportlab.pdfbase import pdfmetrics
                        from reportlab.pdfbase.ttfonts import TTFont

                        pdfmetrics.registerFont(TTFont("EvtTicketSans", str(regular)))
                        pdfmetrics.registerFont(TTFont("EvtTicketSans-Bold", str(bold)))
                        chosen = ("EvtTicketSans", "EvtTicketSans-Bold")
                    except Exception:  # noqa: BLE001 (a font reportlab cannot read: the core fonts)
                        continue
                    break
            _fonts.append(chosen)
        return _fonts[0]


def qr_png(ticket_code):
    """The QR code of ``ticket_code``, as a PNG (error correction M, 6 pixels a module)."""
    buffer = io.BytesIO()
    segno.make(ticket_code, error="m", micro=False).save(buffer, kind="png", scale=6, border=4)
    return buffer.getvalue()


def _draw_qr(canvas, ticket_code, x, y, size):
    """The QR code of ``ticket_code`` drawn as squares (vector: sharp at any print size), its
    lower left corner at (x, y), ``size`` points wide with the quiet zone of 4 modules."""
    matrix = segno.make(ticket_code, error="m", micro=False).matrix
    modules = len(matrix) + 8
    module = size / modules
    canvas.setFillColorRGB(0, 0, 0)
    for row_number, row in enumerate(matrix):
        top = y + size - (row_number + 4 + 1) * module
        column = 0
        while column < len(row):
            if not row[column]:
                column += 1
                continue
            start = column
            while column < len(row) and row[column]:
                column += 1
            canvas.rect(x + (start + 4) * module, top, (column - start) * module, module, stroke=0, fill=1)


def _lines(canvas, lines, x, y, font, size, leading):
    canvas.setFont(font, size)
    for line in lines:
        canvas.drawString(x, y, line)
        y -= leading
    return y


def _wrapped(text, font, size, width):
    """``text`` cut into lines of at most ``width`` points (at word boundaries)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines = []
    for paragraph in (text or "").splitlines() or [""]:
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}".strip()
            if line and stringWidth(candidate, font, size) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return [line for line in lines if line] or [""]


def ticket_pdf(ticket, store_name=""):
    """One A4 page for one ticket: ``ticket`` a mapping with ``event``, ``when``, ``venue``,
    ``venue_address``, ``name`` (the attendee's) and ``code``. Returns the PDF's bytes."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    sans, bold = fonts()
    buffer = io.BytesIO()
    width, height = A4
    margin = 56
    text_width = width - 2 * margin
    canvas = Canvas(buffer, pagesize=A4, pageCompression=1, invariant=1)
    canvas.setTitle(f"Ticket {ticket['code']}: {ticket['event']}")
    canvas.setAuthor(store_name or "")
    y = height - margin - 12
    if store_name:
        y = _lines(canvas, [store_name], margin, y, sans, 11, 22)
    y = _lines(canvas, _wrapped(ticket["event"], bold, 24, text_width)[:4], margin, y - 12,
               bold, 24, 30)
    y = _lines(canvas, [ticket["when"]], margin, y - 6, sans, 14, 20)
    place = [ticket["venue"]] if ticket.get("venue") else []
    place += _wrapped(ticket.get("venue_address") or "", sans, 12, text_width)[:3] if ticket.get(
        "venue_address") else []
    if place:
        y = _lines(canvas, place[:1], margin, y - 6, bold, 13, 18)
        y = _lines(canvas, place[1:], margin, y, sans, 12, 16)
    y = _lines(canvas, ["Attendee"], margin, y - 18, sans, 10, 14)
    y = _lines(canvas, _wrapped(ticket["name"] or "-", bold, 16, text_width)[:2], margin, y,
               bold, 16, 20)
    y = _lines(canvas, ["Ticket code"], margin, y - 18, sans, 10, 14)
    code_size = 30
    y = _lines(canvas, [ticket["code"]], margin, y - 22, "Courier-Bold", code_size, code_size + 6)
    qr_size = min(260, y - margin - 10)
    if qr_size > 80:
        _draw_qr(canvas, ticket["code"], (width - qr_size) / 2, y - qr_size, qr_size)
    canvas.setFont(sans, 9)
    canvas.drawString(margin, margin - 20, "Show this page or the QR code at the entrance. One entry per ticket.")
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()
