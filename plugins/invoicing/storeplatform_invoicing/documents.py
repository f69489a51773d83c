"""Documents of orders: which type an order gets, creating, rendering and regenerating them,
and the metadata the REST routes answer with."""
from sqlalchemy import select

from storeplatform.db import get_by_id, id_in_range
from storeplatform.db.types import utcnow
from storeplatform.queue import enqueue_after_commit
from storeplatform.store.models import Order
from storeplatform.store.options import load_options, site_timezone

from .models import Document
from .numbering import ensure_document
from .options import auto_statuses
from .pdf import render_pdf

UNBILLABLE_STATUSES = ("cancelled", "failed")
# Order ids are 32-bit integer columns: a larger id names no order (and PostgreSQL would
# refuse to compare it).
RENDER_TASK = "invoicing.render_document"


class UnbillableOrder(Exception):
    """The order is cancelled or failed and no type was forced."""


def resolve_type(session, order, force_type=None):
    """The document type of an order: ``force_type`` when given; a refunded order gets a
    credit note; cancelled and failed orders get none; any other the default type option."""
    if force_type:
        return force_type
    if order.status in UNBILLABLE_STATUSES:
        raise UnbillableOrder(order.status)
    if order.status == "refunded":
        return "credit-note"
    return load_options(session)["invoicing.default_type"]


def render_into(session, order, document):
    now = utcnow()
    data = render_pdf(session, order, document, now)
    document.pdf = data
    document.file_size = len(data)
    document.generated_at = now
    session.flush()
    return document


def regenerate(session, order, force_type=None):
    """Number (if new) and render the order's document now; the number of an existing
    document of that type is kept."""
    document = ensure_document(session, order, resolve_type(session, order, force_type))
    return render_into(session, order, document)


def on_status_changed(order, new_status):
    """Number the document in the transaction of the status change (no gaps), and render
    the PDF in a worker once that transaction has committed (off the request path)."""
    from sqlalchemy.orm import object_session

    session = object_session(order)
    if new_status not in auto_statuses(session) or new_status in UNBILLABLE_STATUSES:
        return
    document = ensure_document(session, order, resolve_type(session, order))
    if document.generated_at is None:
        enqueue_after_commit(session, RENDER_TASK, document.id)


def render_document_task(ctx, document_id):
    """Render a document whose PDF is missing (a second delivery of the task does nothing)."""
    session = ctx.session
    document = session.get(Document, document_id)
    if document is None or document.generated_at is not None:
        return
    order = session.get(Order, document.order_id)
    render_into(session, order, document)


def sweep_pending_task(ctx):
    """Render documents whose hand-off to the queue was lost (a process died after commit)."""
    from datetime import timedelta

    cutoff = utcnow() - timedelta(minutes=5)
    ids = ctx.session.execute(select(Document.id).where(Document.generated_at.is_(None),
                                                        Document.created_at < cutoff).limit(500)).scalars().all()
    for document_id in ids:
        enqueue_after_commit(ctx.session, RENDER_TASK, document_id)


def current_document(session, order_id, with_pdf=False):
    """(order, document) in one query: the order's most recently generated document, or
    None when it has no PDF yet; order None when it does not exist."""
    from sqlalchemy.orm import lazyload, undefer

    if not id_in_range(order_id):
        return None, None
    loads = [lazyload(Order.line_items)] + ([undefer(Document.pdf)] if with_pdf else [])
    row = session.execute(
        select(Order, Document).options(*loads).outerjoin(
            Document, (Document.order_id == Order.id) & Document.generated_at.is_not(None))
        .where(Order.id == order_id)
        .order_by(Document.generated_at.desc(), Document.id.desc()).limit(1)
    ).first()
    if row is None:
        return None, None
    return row[0], row[1]


def load_order(session, order_id):
    return get_by_id(session, Order, order_id)


def metadata(request, order, document):
    prefix = request.registry.settings["storeplatform.rest_prefix"]
    base = request.application_url
    tz = site_timezone(request.db)
    return {
        "order_id": order.id,
        "document_type": document.document_type,
        "invoice_number": document.invoice_number,
        "display_number": document.display_number,
        "generated_date": document.generated_at.astimezone(tz).isoformat(timespec="seconds"),
        "file_size": document.file_size,
        "pdf_url": download_url(base, order),
        "regenerate_url": f"{base}{prefix}/invoicing/v1/documents/{order.id}/regenerate",
    }


def download_url(base_url, order):
    from urllib.parse import urlencode

    return f"{base_url}/?" + urlencode({"invoicing_download": order.id, "key": order.order_key})
