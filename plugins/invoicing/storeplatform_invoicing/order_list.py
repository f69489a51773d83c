"""The orders of the admin's invoices page with their documents, without HTTP: one page of
orders (newest first, optionally of one status) and every document of each, in two queries.
The PDF bytes are never loaded here (``Document.pdf`` is deferred)."""
from collections import defaultdict

from sqlalchemy import func, select
from sqlalchemy.orm import lazyload

from storeplatform.api import Order, id_in_range

from .models import Document

PER_PAGE = 25


def orders_page(session, status=None, page=1, per_page=PER_PAGE):
    """(total orders, [(order, [document, ...]), ...]) of one page; documents by type order."""
    where = [] if status is None else [Order.status == status]
    total = session.execute(select(func.count()).select_from(Order).where(*where)).scalar_one()
    orders = session.execute(select(Order).options(lazyload(Order.line_items)).where(*where)
                             .order_by(Order.id.desc()).offset((page - 1) * per_page).limit(per_page)
                             ).scalars().all()
    documents = defaultdict(list)
    if orders:
        for doc in session.execute(select(Document).where(Document.order_id.in_([o.id for o in orders]))
                                   .order_by(Document.order_id, Document.document_type)).scalars():
            documents[doc.order_id].append(doc)
    return total, [(order, documents[order.id]) for order in orders]


def generated_document(session, document_id):
    """A document with its PDF, or None when there is no such document or it has no PDF yet."""
    from sqlalchemy.orm import undefer

    if not id_in_range(document_id):
        return None
    return session.execute(select(Document).options(undefer(Document.pdf))
                           .where(Document.id == document_id, Document.generated_at.is_not(None))
                           ).scalar_one_or_none()
