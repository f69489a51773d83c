"""The QR code of a ticket, as a PNG image.

Public on purpose: the ticket code is the bearer secret printed on the ticket, and the image
only encodes that code, so whoever can ask for it already holds what it shows. Requiring a
login would keep the QR out of the attendee's own e-mail and ticket page. Unknown codes are
404 (this is not a QR service for any text), and the image is never cached by shared caches.
"""
import io

import segno
from pyramid.response import Response
from sqlalchemy import select

from storeplatform.rest import RestError

from ..models import Attendee


def qr_png(ticket_code):
    buffer = io.BytesIO()
    segno.make(ticket_code, error="m", micro=False).save(buffer, kind="png", scale=6, border=4)
    return buffer.getvalue()


def add_routes(config, ns):
    qr = ns.service(config, "ticket-qr", "/tickets/{ticket_code}/qr", "QR code (PNG) of a ticket code; public.")

    @qr.get(response="image/png")
    def get_qr(request):
        code = request.matchdict["ticket_code"]
        found = request.db.execute(select(Attendee.id).where(Attendee.ticket_code == code)).first()
        if found is None:
            raise RestError(404, "evt_rest_attendee_invalid_code", "Invalid ticket code.")
        response = Response(body=qr_png(code), content_type="image/png")
        response.headers["Cache-Control"] = "private, no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response
