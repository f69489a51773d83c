"""The invoicing plugin's face for other plugins (``storeplatform_invoicing.api``, #45): its shape
pinned (a refactor that would change what another plugin reads fails here first), its records
the ones REST's metadata is built from, its reads kept like REST's document answers."""
import inspect
import re
from pathlib import Path

from storeplatform.testing import count_queries
from storeplatform_invoicing import api as invoicing

from .conftest import API

DOC = Path(__file__).resolve().parents[2] / "docs" / "invoicing.md"
NAMES = ["DocumentRecord", "DOCUMENT_TYPES", "document", "documents", "document_pdf"]
FIELDS = ("id", "order_id", "document_type", "year", "invoice_number", "display_number", "created_at",
          "generated_at", "file_size")
SIGNATURES = {"document": "(session, order_id)", "documents": "(session, order_id)",
              "document_pdf": "(session, order_id)"}


def test_the_face_has_the_shape_third_parties_build_on():
    assert invoicing.__all__ == NAMES
    assert invoicing.DocumentRecord._fields == FIELDS
    assert {name: str(inspect.signature(getattr(invoicing, name))) for name in SIGNATURES} == SIGNATURES
    assert invoicing.DOCUMENT_TYPES == ("invoice", "receipt", "credit-note", "packing-slip")
    part = DOC.read_text().split("## For other plugins", 1)[1].split("\n## ", 1)[0]
    assert [name for name in NAMES + list(FIELDS) if not re.search(rf"`{re.escape(name)}\b", part)] == []


def test_records_are_what_rest_answers_from_and_are_kept(shop):
    order = shop.order("completed")
    meta = shop.meta(order["id"]).json
    pdf = shop.app.get(f"{API}/documents/{order['id']}/pdf", headers=shop.headers_for("shop_manager")).body

    def read(call):
        with shop.site.session() as s, count_queries(shop.site.engine) as n:
            return call(s), n()

    record, fresh = read(lambda s: invoicing.document(s, order["id"]))
    again, kept = read(lambda s: invoicing.document(s, order["id"]))
    assert record == again and kept < fresh
    assert (record.order_id, record.document_type, record.invoice_number, record.display_number, record.file_size) == (
        meta["order_id"], meta["document_type"], meta["invoice_number"], meta["display_number"], meta["file_size"])
    every, _ = read(lambda s: invoicing.documents(s, order["id"]))
    assert every == (record,)
    assert read(lambda s: invoicing.document_pdf(s, order["id"]))[0] == pdf
    for unknown in (999999, 10**12, "1"):
        assert read(lambda s: (invoicing.document(s, unknown), invoicing.documents(s, unknown),
                               invoicing.document_pdf(s, unknown)))[0] == (None, (), None)
    # A regeneration under another type is a new document: the kept value follows it.
    shop.regen(order["id"], {"force_type": "receipt"})
    latest, _ = read(lambda s: invoicing.document(s, order["id"]))
    assert latest.document_type == "receipt" and latest.generated_at >= record.generated_at
    assert [d.document_type for d in read(lambda s: invoicing.documents(s, order["id"]))[0]] == ["invoice", "receipt"]
