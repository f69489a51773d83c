"""Demo data: a few orders with rendered documents, loaded once however often it runs."""
from sqlalchemy import func, select

from storeplatform.api import PAID_STATUSES, Order, call_action

from .conftest import pdf_text


def test_demo_data_has_documents_and_is_idempotent(shop):
    from storeplatform_invoicing.models import Document

    for _ in range(2):
        with shop.session() as s:
            call_action(shop.hooks.storeplatform_demo_data, session=s)
    with shop.session() as s:
        rows = s.execute(select(Document.document_type, Document.display_number, Document.pdf)
                         .order_by(Document.id)).all()
    types = [r.document_type for r in rows]
    with shop.session() as s:
        paid = s.execute(select(func.count()).select_from(Order).where(Order.status.in_(PAID_STATUSES))).scalar()
    # Every paid order of the host's demo history and ours (completed; processing, with a packing
    # slip too) has its invoice, our refunded one its credit note.
    assert paid > 20
    assert sorted(types) == sorted(["invoice"] * paid + ["credit-note", "packing-slip"])
    assert all(r.pdf for r in rows)
    texts = "\n".join(pdf_text(r.pdf) for r in rows)
    for name in ("Ωμέγα Παπαδοπούλου", "Дмитрий Соколов", "Zoë Łukasz"):
        assert name in texts
