"""The invoicing plugin's face for other plugins: an order's documents, by documented names
(docs/invoicing.md, "For other plugins"). Another plugin imports this module and nothing else
of ``storeplatform_invoicing`` (tests/host/test_structure.py).

    from storeplatform_invoicing import api as invoicing

Its records are the ones REST's metadata answers are built from (``DocumentRecord``), read by the
same function (``documents.current_document``); their fields and the functions' signatures are
pinned by tests/invoicing/test_face.py. Reads are kept like REST's document answers (``@cached``:
computed again once an order or a document changes)."""
from sqlalchemy import select

from storeplatform.api import cached, id_in_range

from .document_record import DocumentRecord
from .documents import current_document
from .models import DOCUMENT_TYPES, Document

__all__ = ["DocumentRecord", "DOCUMENT_TYPES", "document", "documents", "document_pdf"]


def document(session, order_id):
    """The order's current document (the most recently rendered one, the one ``GET
    invoicing/v1/documents/{order_id}`` describes) as a ``DocumentRecord``, or None (no such
    order, or no PDF yet)."""
    if not isinstance(order_id, int) or not id_in_range(order_id):
        return None
    return _document(session, order_id)


def documents(session, order_id):
    """Every document of the order (one per type; rendered or still waiting for its PDF) as
    ``DocumentRecord``s, in the order they were made: a tuple, empty for an unknown order."""
    if not isinstance(order_id, int) or not id_in_range(order_id):
        return ()
    return _documents(session, order_id)


def document_pdf(session, order_id):
    """The PDF bytes of the order's current document, or None: what ``GET
    invoicing/v1/documents/{order_id}/pdf`` serves. Read when asked, never kept by the face."""
    if not isinstance(order_id, int) or not id_in_range(order_id):
        return None
    _order, found = current_document(session, order_id, with_pdf=True)
    return None if found is None else found.pdf


@cached
def _document(session, order_id):
    _order, found = current_document(session, order_id)
    return None if found is None else DocumentRecord.of(found)


@cached
def _documents(session, order_id):
    # The row's columns, not the entity: the PDF's bytes are never read here.
    columns = [getattr(Document, name) for name in DocumentRecord._fields]
    rows = session.execute(select(*columns).where(Document.order_id == order_id).order_by(Document.id))
    return tuple(DocumentRecord(*row) for row in rows)
