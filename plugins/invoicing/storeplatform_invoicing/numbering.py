"""Document numbers: a counter row per (document type, year), incremented with one atomic
UPDATE ... RETURNING in the transaction that inserts the document. Concurrent transactions
queue on the counter row, so numbers have no duplicates; a rollback gives the number back,
so they have no gaps."""
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from storeplatform.api import add_order_note, site_options, site_timezone, utcnow

from .models import Counter, Document, upsert_insert
from .options import PREFIX_OPTIONS

# How the order's history names each type of document.
DOCUMENT_LABELS = {"invoice": "Invoice", "receipt": "Receipt", "credit-note": "Credit note",
                   "packing-slip": "Packing slip"}


def display_number(options, document_type, year, number):
    prefix = options[PREFIX_OPTIONS[document_type]].strip()
    sequence = str(number).zfill(options["invoicing.number_padding"])
    return "-".join(part for part in (prefix, str(year), sequence) if part)


def _insert_counter(session, document_type, year):
    insert = upsert_insert(session)
    session.execute(insert(Counter).values(document_type=document_type, year=year, last_number=0)
                    .on_conflict_do_nothing(index_elements=["document_type", "year"]))


def next_number(session, document_type, year):
    _insert_counter(session, document_type, year)
    return session.execute(
        update(Counter).where(Counter.document_type == document_type, Counter.year == year)
        .values(last_number=Counter.last_number + 1).returning(Counter.last_number)
        .execution_options(synchronize_session=False)
    ).scalar_one()


def find_document(session, order_id, document_type):
    return session.execute(
        select(Document).where(Document.order_id == order_id, Document.document_type == document_type)
    ).scalar_one_or_none()


# ``found`` of ensure_document when the caller has not looked for the document.
NOT_LOOKED = object()


def ensure_document(session, order, document_type, found=NOT_LOOKED):
    """The order's document of that type, numbered on first use. A second trigger (another
    process completing the same order at once) gets the existing document, not a new number.
    ``found``: the document the caller's own load found (None: none), instead of a SELECT."""
    existing = find_document(session, order.id, document_type) if found is NOT_LOOKED else found
    if existing is not None:
        return existing
    now = utcnow()
    year = now.astimezone(site_timezone(session)).year
    options = site_options(session)
    savepoint = session.begin_nested()
    try:
        number = next_number(session, document_type, year)
        document = Document(order_id=order.id, document_type=document_type, year=year, invoice_number=number,
                            display_number=display_number(options, document_type, year, number), created_at=now)
        session.add(document)
        session.flush()
    except IntegrityError:
        # Another transaction inserted it first; rolling back the savepoint gives our
        # number back.
        savepoint.rollback()
        existing = find_document(session, order.id, document_type)
        if existing is None:
            raise
        return existing
    savepoint.commit()
    document_note(session, order, document, "created")
    return document


def document_note(session, order, document, what):
    """The order's history's line of a document ("Invoice INV-2026-00012 created."), by whoever
    the request acts for ("system" in a task)."""
    add_order_note(session, order, f"{DOCUMENT_LABELS[document.document_type]} {document.display_number} {what}.")
