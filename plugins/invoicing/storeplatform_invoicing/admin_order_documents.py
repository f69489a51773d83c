"""The invoicing plugin's part of an order's admin page (the host's hook
``storeplatform_admin_order_sections``): the order's documents, each linked to its PDF on the
Invoices pages, and those still waiting to be rendered."""
from sqlalchemy import select

from storeplatform.api import admin_url, site_timezone, user_can

from .models import Document
from .numbering import DOCUMENT_LABELS


def order_sections(request, order):
    if not user_can(request, "manage_shop"):
        return []
    rows = request.db.execute(
        select(Document.id, Document.document_type, Document.display_number, Document.generated_at)
        .where(Document.order_id == order.id).order_by(Document.id)).all()
    tz = site_timezone(request.db)
    links = [{"label": f"{DOCUMENT_LABELS.get(row.document_type, row.document_type)} {row.display_number} (PDF, "
                       f"{row.generated_at.astimezone(tz).strftime('%Y-%m-%d %H:%M')})",
              "url": admin_url(request, f"/invoices/documents/{row.id}/pdf")}
             for row in rows if row.generated_at is not None]
    waiting = sum(1 for row in rows if row.generated_at is None)
    if not rows:
        text = "No document yet: one is made when the order is paid."
    elif waiting:
        text = f"{waiting} document{'s' * (waiting != 1)} waiting to be rendered."
    else:
        text = ""
    return [{"title": "Documents", "text": text, "links": links}]
