"""One shape of an order and a document (docs/invoicing.md): every path that renders gives the
renderer the ORM ``Order`` with its line items and the ORM ``Document``, and the regenerate
path's load reads them in one statement."""
from decimal import Decimal

from sqlalchemy import select

from storeplatform.api import Order, OrderItem
from storeplatform.testing import count_queries
from storeplatform_invoicing import documents
from storeplatform_invoicing.jobs import create_job
from storeplatform_invoicing.models import Document
from storeplatform_invoicing.order_load import _LOAD_ORDER, load_document, load_order


def test_every_render_receives_the_orm_order_and_document(shop, monkeypatch):
    received = []
    render_pdf = documents.render_pdf

    def recording(session, order, document, generated_at):
        line_ids = [line.id for line in order.line_items]
        received.append((type(order), type(document), document.order_id == order.id, line_ids))
        return render_pdf(session, order, document, generated_at)

    monkeypatch.setattr(documents, "render_pdf", recording)
    products = shop.products()
    lines = [(products[i % 3], i + 1) for i in range(5)]
    by_rest, by_status, by_job = (shop.order("pending", lines=lines) for _ in range(3))
    shop.regen(by_rest["id"], {"force_type": "packing-slip"})
    shop.regen(by_rest["id"])
    shop.set_status(by_status["id"], "completed")  # memory:// queue: the render task runs after commit
    with shop.session() as s:
        job_id = create_job(s, [by_job["id"]])
    shop.run_task("invoicing.regenerate_order", job_id, by_job["id"])

    with shop.session() as s:
        line_ids = {oid: s.execute(select(OrderItem.id).where(OrderItem.order_id == oid).order_by(OrderItem.id))
                    .scalars().all() for oid in (by_rest["id"], by_status["id"], by_job["id"])}
    expected = [line_ids[by_rest["id"]]] * 2 + [line_ids[by_status["id"]], line_ids[by_job["id"]]]
    assert received == [(Order, Document, True, ids) for ids in expected]


def test_regenerate_answers_the_orm_objects_it_rendered(shop):
    order = shop.order("completed")
    with shop.session() as s:
        regenerated_order, document = documents.regenerate(s, order["id"], "receipt")
        assert isinstance(regenerated_order, Order) and isinstance(document, Document)
        assert document in s and document.pdf.startswith(b"%PDF") and document.file_size == len(document.pdf)
    assert shop.meta(order["id"]).json["document_type"] == "receipt"


def test_load_order_reads_every_line_and_document_in_one_statement(shop):
    products = shop.products()
    order = shop.order("pending", lines=[(products[i % 3], i + 1) for i in range(12)])
    for document_type in ("packing-slip", "receipt", "credit-note"):
        shop.regen(order["id"], {"force_type": document_type})
    with shop.session() as s:
        with count_queries(shop.engine) as n:
            loaded, by_type = load_order(s, order["id"])
            line_ids = [line.id for line in loaded.line_items]
        assert n() == 1
        assert [line.quantity for line in loaded.line_items] == list(range(1, 13))
        assert line_ids == sorted(line_ids)
        assert sorted(by_type) == ["credit-note", "packing-slip", "receipt"]
        assert all(document.order_id == loaded.id for document in by_type.values())
        # The documents ride on the first line's row: 12 + 3 - 1 rows, not 12 x 3.
        assert len(s.connection().execute(_LOAD_ORDER, {"order_id": order["id"]}).all()) == 14
        with count_queries(shop.engine) as n:
            document_order, document = load_document(s, by_type["receipt"].id)
        assert n() == 1 and (document_order, document) == (loaded, by_type["receipt"])


def test_load_order_of_an_order_without_lines_still_finds_its_documents(shop):
    with shop.session() as s:
        order = Order(status="completed", order_key="order_without_lines", currency="EUR", billing={},
                      total=Decimal("0"))
        s.add(order)
        s.flush()
        order_id = order.id
    shop.regen(order_id, {"force_type": "packing-slip"})
    shop.regen(order_id)
    with shop.session() as s:
        loaded, by_type = load_order(s, order_id)
        assert loaded.line_items == [] and sorted(by_type) == ["invoice", "packing-slip"]


def test_loads_of_ids_that_name_nothing(shop):
    with shop.session() as s:
        assert load_order(s, 999) == (None, {})
        assert load_order(s, 2**40) == (None, {})
        assert load_document(s, 999) == (None, None)
        assert load_document(s, 2**40) == (None, None)
