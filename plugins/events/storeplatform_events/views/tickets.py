"""The QR code of a ticket, as a PNG image.

Public on purpose: the ticket code is the bearer secret printed on the ticket, and the image
only encodes that code, so whoever can ask for it already holds what it shows. Requiring a
login would keep the QR out of the attendee's own e-mail and ticket page. Unknown codes are
404 (this is not a QR service for any text), and the image is never cached by shared caches.
"""
from pyramid.response import Response
from sqlalchemy import select

from storeplatform.api import Service

from .. import queries
from ..errors import ATTENDEE_INVALID_CODE
from ..models import Attendee
from ..ticket_pdf import qr_png
from ..tickets import typed_code

qr = Service("events/v1", "/tickets/{ticket_code}/qr", name="ticket-qr",
             description="QR code (PNG) of a ticket code; public.")


@qr.get(response="image/png")
def get_qr(request):
    code = typed_code(request.matchdict["ticket_code"])
    queries.first_or_404(request.db, select(Attendee.id).where(Attendee.ticket_code == code), ATTENDEE_INVALID_CODE)
    response = Response(body=qr_png(code), content_type="image/png")
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
