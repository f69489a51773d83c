"""Documents of orders: which type an order gets, creating, rendering and regenerating them,
and the tasks that render them off the request path. Nothing here knows about HTTP."""
from collections import namedtuple

from sqlalchemy import Integer, bindparam, cast, literal_column, null, select, union_all, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key

from storeplatform.api import Order, OrderItem, enqueue_after_commit, id_in_range, site_options, utcnow

from .models import Document
from .numbering import ensure_document
from .options import auto_statuses
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


# --- an order as values: what regenerating reads, in one statement -------------------------------

class OrderValues:
    """What rendering and the metadata answer read of an order (as an ``Order`` has them), with
    its line items (in id order) and its documents by type: plain values, no ORM object."""

    __slots__ = ("id", "status", "order_key", "currency", "billing", "total", "created_at", "line_items",
                 "documents")
    number = Order.number  # the host's rule for an order's number

    def __init__(self, id, status, order_key, currency, billing, total, created_at):
        self.id, self.status, self.order_key, self.currency = id, status, order_key, currency
        self.billing, self.total, self.created_at = billing, total, created_at
        self.line_items, self.documents = [], {}


LineValues = namedtuple("LineValues", "name quantity unit_price total")


class DocumentValues:
    """A document without its PDF (what rendering and the metadata answer read of one)."""

    __slots__ = ("id", "document_type", "invoice_number", "display_number", "generated_at", "file_size")

    def __init__(self, id, document_type, invoice_number, display_number, generated_at, file_size):
        self.id, self.document_type, self.invoice_number = id, document_type, invoice_number
        self.display_number, self.generated_at, self.file_size = display_number, generated_at, file_size

    @classmethod
    def of(cls, document):
        return cls(document.id, document.document_type, document.invoice_number, document.display_number,
                   document.generated_at, document.file_size)


# The columns of the load (see _load_statement): each kind of row fills its own, the others are NULL.
#
#   column      order (kind 0)   line item (1)   document (2)
#   id          id               id              id
#   text        status           name            document_type
#   key         order_key                        display_number
#   number                       quantity        invoice_number
#   at          created_at                       generated_at
#   total       total            total
#   unit_price                   unit_price
#   size                                         file_size
#   currency    currency
#   billing     billing
def _load_statement(order_id):
    """The order, its line items and its documents in one statement, as a UNION ALL of three
    kinds of rows: 1 + lines + documents rows (joins would make lines x documents), the order's
    columns (its billing JSON) read once. The NULLs are typed: PostgreSQL would type a column
    that is NULL in the first two branches as text, and the result takes the first branch's types."""
    orders, items, documents = Order.__table__, OrderItem.__table__, Document.__table__
    types = {"text": items.c.name.type, "key": documents.c.display_number.type, "number": items.c.quantity.type,
             "at": orders.c.created_at.type, "total": orders.c.total.type, "unit_price": items.c.unit_price.type,
             "size": documents.c.file_size.type, "currency": orders.c.currency.type,
             "billing": orders.c.billing.type}

    def branch(kind, table, where, **given):
        return select(literal_column(str(kind), Integer).label("kind"), table.c.id.label("id"), *(
            given[name].label(name) if name in given else cast(null(), type_).label(name)
            for name, type_ in types.items())).where(where)

    o, i, d = orders.c, items.c, documents.c
    loaded = union_all(
        branch(0, orders, o.id == order_id, text=o.status, key=o.order_key, at=o.created_at, total=o.total,
               currency=o.currency, billing=o.billing),
        branch(1, items, i.order_id == order_id, text=i.name, number=i.quantity, total=i.total,
               unit_price=i.unit_price),
        branch(2, documents, d.order_id == order_id, text=d.document_type, key=d.display_number,
               number=d.invoice_number, at=d.generated_at, size=d.file_size))
    return loaded.order_by(loaded.selected_columns.kind, loaded.selected_columns.id)


_LOAD_BY_ORDER = _load_statement(bindparam("order_id", type_=Integer))
# The render task knows the document: its order is found in the same statement.
_LOAD_BY_DOCUMENT = _load_statement(select(Document.__table__.c.order_id)
                                    .where(Document.__table__.c.id == bindparam("document_id", type_=Integer))
                                    .scalar_subquery())


def load_order(session, order_id=None, document_id=None):
    """The ``OrderValues`` of an order (or of a document's order), or None when there is none; one
    statement (an id beyond the 32-bit id columns names none, and costs none)."""
    if document_id is None:
        if not id_in_range(order_id):
            return None
        rows = session.execute(_LOAD_BY_ORDER, {"order_id": order_id}).all()
    else:
        if not id_in_range(document_id):
            return None
        rows = session.execute(_LOAD_BY_DOCUMENT, {"document_id": document_id}).all()
    order = None
    for kind, id_, text, key, number, at, total, unit_price, size, currency, billing in rows:
        if kind == 0:
            order = OrderValues(id_, text, key, currency, billing, total, at)
        elif kind == 1:
            order.line_items.append(LineValues(text, number, unit_price, total))
        else:
            order.documents[text] = DocumentValues(id_, text, number, key, at, size)
    return order


# --- rendering ------------------------------------------------------------------------------------

_documents = Document.__table__
# One UPDATE of the new PDF and what describes it (a Core statement through the session: the
# host's write tracking records the table, and the transaction commits).
_WRITE_PDF = (update(_documents).where(_documents.c.id == bindparam("document_id"))
              .values(pdf=bindparam("pdf"), file_size=bindparam("file_size"),
                      generated_at=bindparam("generated_at")))


def render_into(session, order, document):
    """Render ``document`` of ``order`` (values or ORM objects) and write its PDF with one UPDATE;
    ``document``, and the session's ORM object of it if it has one, get the new values."""
    now = utcnow()
    data = render_pdf(session, order, document, now)
    values = {"pdf": data, "file_size": len(data), "generated_at": now}
    session.execute(_WRITE_PDF, {"document_id": document.id, **values})
    instance = session.identity_map.get(identity_key(Document, document.id))
    for key, value in values.items():
        if instance is not None:
            set_committed_value(instance, key, value)  # as loaded: no second UPDATE at the flush
        if key != "pdf" and instance is not document:
            setattr(document, key, value)
    return document


def regenerate(session, order, force_type=None):
    """(order, document) of ``order`` (an ``Order`` or an order id) after numbering (if new) and
    rendering its document now, as values; None when there is no such order. The number of an
    existing document of that type is kept."""
    order = load_order(session, order if isinstance(order, int) else order.id)
    if order is None:
        return None
    document_type = resolve_type(session, order, force_type)
    document = ensure_document(session, order, document_type, found=order.documents.get(document_type))
    if isinstance(document, Document):
        document = order.documents[document_type] = DocumentValues.of(document)
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
    session = ctx.session
    order = load_order(session, document_id=document_id)
    document = None if order is None else next(
        (document for document in order.documents.values() if document.id == document_id), None)
    if document is None or document.generated_at is not None:
        return
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
