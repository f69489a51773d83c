"""What rendering reads, as the ORM objects every other part of the plugin uses: an ``Order``
with its line items and its ``Document`` rows, each load one statement (the REST route's
query count holds whatever the number of lines and documents)."""
from sqlalchemy import bindparam, func, or_, select
from sqlalchemy.orm import contains_eager, joinedload

from storeplatform.api import Order, OrderItem, id_in_range

from .models import Document

_ORDER_ID = bindparam("order_id")
# Never correlated: it reads the order's lines itself, not the joined line of the outer row.
_first_line = (select(func.min(OrderItem.id)).where(OrderItem.order_id == _ORDER_ID)
               .correlate(None).scalar_subquery())

# The order joined to its line items, and its documents joined to the first line's row only
# (or to the order's row when it has no lines): 1 row per line plus 1 per further document, where
# joining both to the order would give lines x documents rows to read. The line items come from
# the rows (contains_eager) in id order, as the relationship orders them.
_LOAD_ORDER = (
    select(Order, Document)
    .outerjoin(OrderItem, OrderItem.order_id == Order.id)
    .outerjoin(Document, (Document.order_id == Order.id) & or_(OrderItem.id.is_(None), OrderItem.id == _first_line))
    .options(contains_eager(Order.line_items))
    .where(Order.id == _ORDER_ID)
    .order_by(OrderItem.id, Document.id))

# The render task knows the document: one document, so its order's lines join without repeats.
_LOAD_DOCUMENT = (select(Document, Order).join(Order, Order.id == Document.order_id)
                  .options(joinedload(Order.line_items)).where(Document.id == bindparam("document_id")))


def load_order(session, order_id):
    """(``Order`` with its line items, {document type: ``Document``}), or (None, {}) when there is
    no such order (an id beyond the 32-bit id columns names none, and costs no statement)."""
    if not id_in_range(order_id):
        return None, {}
    rows = session.execute(_LOAD_ORDER, {"order_id": order_id}).unique().all()
    if not rows:
        return None, {}
    return rows[0][0], {document.document_type: document for _, document in rows if document is not None}


def load_document(session, document_id):
    """(``Order`` with its line items, ``Document``) of a document id, or (None, None)."""
    if not id_in_range(document_id):
        return None, None
    row = session.execute(_LOAD_DOCUMENT, {"document_id": document_id}).unique().first()
    return (None, None) if row is None else (row[1], row[0])
