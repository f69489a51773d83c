"""Documents of orders: which type an order gets, creating, rendering and regenerating them,
and the tasks that render them off the request path. Nothing here knows about HTTP."""
from sqlalchemy import select

from storeplatform.api import Order, enqueue_after_commit, id_in_range, site_options, utcnow

from .models import Document
from .numbering import document_note, ensure_document
from .options import auto_statuses
from .order_load import load_document, load_order
from .pdf import render_pdf

UNBILLABLE_STATUSES = ("cancelled", "failed")
RENDER_TASK = "invoicing.render_document"


class UnbillableOrder(Exception):
    """The order is cancelled or failed and no type was forced (a domain error: the REST
    routes answer it through errors.order_not_billable, the bulk job records it)."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


def resolve_type(session, order, force_type=None):
    """The document type of an order: ``force_type`` when given; a refunded order gets a
    credit note; cancelled and failed orders get none; any other the default type option."""
    if force_type:
        return force_type
    if order.status in UNBILLABLE_STATUSES:
        raise UnbillableOrder(order.status)
    if order.status == "refunded":
        return "credit-note"
    return site_options(session)["invoicing.default_type"]


def render_into(session, order, document):
    """Render ``document`` of ``order`` now; the session's flush writes the PDF and what
    describes it with one UPDATE (the deferred ``pdf`` column is set, never loaded)."""
    now = utcnow()
    data = render_pdf(session, order, document, now)
    document.pdf, document.file_size, document.generated_at = data, len(data), now
    return document


def regenerate(session, order, force_type=None):
    """(``Order``, ``Document``) of ``order`` (an ``Order`` or an order id) after numbering (if
    new) and rendering its document now; None when there is no such order. The number of an
    existing document of that type is kept."""
    order, documents = load_order(session, order if isinstance(order, int) else order.id)
    if order is None:
        return None
    document_type = resolve_type(session, order, force_type)
    found = documents.get(document_type)
    document = ensure_document(session, order, document_type, found=found)
    if found is not None and found.generated_at is not None:
        document_note(session, order, document, "regenerated")  # a new one has its "created"
    return order, render_into(session, order, document)


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
    order, document = load_document(ctx.session, document_id)
    if document is None or document.generated_at is not None:
        return
    render_into(ctx.session, order, document)


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

    # Order ids are 32-bit integer columns: a larger id names no order (and PostgreSQL would
    # refuse to compare it).
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
