"""The invoice attached to the host's order messages (#41): a buyer's order on a site with an SMTP
server and the invoicing plugin produces, through the worker, "order received" with the invoice
PDF attached (numbered in the order's transaction, rendered by the worker if it is not yet), parsed
back at a real SMTP server on 127.0.0.1 and opened with pypdf; the per-type switches
(``invoicing.attach_<type>``) decide which documents go with which message."""
import pytest
from sqlalchemy import select

from storeplatform.components.mail.models import MailMessage
from storeplatform.testing import queue_url, wait_for

from host.mail_servers import SmtpServer
from .conftest import pdf_text

BILLING = {"first_name": "Ann", "last_name": "Buyer", "address_1": "12 Rue des Lilas", "postcode": "75011",
           "city": "Paris", "country": "FR", "email": "ann@example.com"}


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


def mail_shop(make_shop, tmp_path, smtp, **settings):
    return make_shop(**{"mail.url": smtp.url(), "mail.directory": str(tmp_path / "mail"), "mail.timeout": "2",
                        "mail.retry_delays": "none", **settings})


def rows(shop):
    with shop.session() as s:
        return [tuple(r) for r in s.execute(select(MailMessage.kind, MailMessage.status, MailMessage.response)
                                             .order_by(MailMessage.id))]


def invoice_of(shop, order_id):
    [(display_number, generated_at)] = [(d[3], d[4]) for d in shop.documents() if d[0] == order_id and d[1] == "invoice"]
    return display_number, generated_at


def test_a_paid_order_sends_order_received_with_its_invoice(make_shop, tmp_path, smtp):
    shop = mail_shop(make_shop, tmp_path, smtp)
    order = shop.order(status="processing", billing=BILLING)
    [message] = smtp.keeper.messages()
    assert message["To"] == "Ann Buyer <ann@example.com>"
    assert message["Subject"].endswith(f"order #{order['id']} has been received")
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    assert all(f"#{order['id']}" in part and "$61.65" in part for part in (text, html))  # 39.90 + 3 x 7.25
    display_number, _ = invoice_of(shop, order["id"])
    [attached] = list(message.iter_attachments())
    assert attached.get_content_type() == "application/pdf"
    assert attached.get_filename() == f"invoice-{display_number}.pdf"
    data = attached.get_content()
    assert data.startswith(b"%PDF")
    content = pdf_text(data)
    assert display_number in content and "$61.65" in content and "Кабель USB-C" in content
    # The PDF served by the route is the one sent.
    served = shop.app.get(f"/api/invoicing/v1/documents/{order['id']}/pdf",
                          headers=shop.headers_for("shop_manager")).body
    assert served == data

    shop.set_status(order["id"], "completed")
    first, second = smtp.keeper.messages()
    assert second["Subject"].endswith("is now complete")
    [again] = list(second.iter_attachments())
    assert again.get_filename() == f"invoice-{display_number}.pdf" and again.get_content() == data
    assert [r[:2] for r in rows(shop)] == [("store.order_received", "sent"), ("store.order_completed", "sent")]


def test_the_switch_of_each_type_decides(make_shop, tmp_path, smtp):
    shop = mail_shop(make_shop, tmp_path, smtp)
    shop.set_option("invoicing.attach_invoice", ["completed"])
    order = shop.order(status="processing", billing=BILLING)
    [received] = smtp.keeper.messages()
    assert list(received.iter_attachments()) == []  # the invoice goes with "completed" only now
    shop.set_status(order["id"], "completed")
    _, completed = smtp.keeper.messages()
    [attached] = list(completed.iter_attachments())
    assert attached.get_filename() == f"invoice-{invoice_of(shop, order['id'])[0]}.pdf"

    shop.set_option("invoicing.attach_invoice", [])
    shop.order(status="completed", billing=BILLING)
    assert list(smtp.keeper.messages()[-1].iter_attachments()) == []

    # A receipt site: the receipt goes where its switch says, the invoice's switch has no say.
    shop.set_option("invoicing.default_type", "receipt")
    shop.set_option("invoicing.attach_receipt", ["received"])
    order = shop.order(status="processing", billing=BILLING)
    [attached] = list(smtp.keeper.messages()[-1].iter_attachments())
    [receipt] = [d[3] for d in shop.documents() if d[0] == order["id"]]
    assert receipt.startswith("RCT-") and attached.get_filename() == f"invoice-{receipt}.pdf"
    assert receipt in pdf_text(attached.get_content())


def test_the_worker_renders_an_invoice_not_rendered_yet_and_keeps_it(make_shop, tmp_path, smtp):
    shop = mail_shop(make_shop, tmp_path, smtp, **{"huey.url": queue_url(tmp_path)})
    shop.set_option("store.decimal_separator", ",")
    order = shop.order(status="processing", billing=BILLING)
    display_number, generated_at = invoice_of(shop, order["id"])
    assert generated_at is None and smtp.keeper.received == []  # numbered; nothing rendered or sent yet
    assert [r[1] for r in rows(shop)] == ["composing"]
    # The mail's task alone (the render task is left in the queue): the composer renders the PDF.
    [mail_task] = [t for t in shop.registry["queue.huey"].pending() if t.name.endswith("send_mail")]
    shop.run_task("storeplatform.send_mail", *mail_task.args)
    [message] = smtp.keeper.messages()
    [attached] = list(message.iter_attachments())
    content = pdf_text(attached.get_content())
    assert display_number in content and "$61,65" in content
    assert "$61,65" in message.get_body(("plain",)).get_content()
    _, generated_at = invoice_of(shop, order["id"])
    assert generated_at is not None  # kept: the render task finds it done
    with shop.session() as s:
        from storeplatform_invoicing.models import Document

        assert s.execute(select(Document.pdf).where(Document.order_id == order["id"])).scalar_one() == \
            attached.get_content()
    with shop.worker(workers=1):
        wait_for(lambda: shop.queued() == 0, timeout=20)
    assert len(smtp.keeper.received) == 1


def test_no_invoice_no_attachment_and_other_mail_untouched(make_shop, tmp_path, smtp):
    shop = mail_shop(make_shop, tmp_path, smtp)
    shop.set_option("invoicing.auto_statuses", ["completed"])  # no document when paid
    order = shop.order(status="processing", billing=BILLING)
    assert [d for d in shop.documents() if d[0] == order["id"]] == []
    [message] = smtp.keeper.messages()
    assert list(message.iter_attachments()) == []
    # An order without a billing e-mail address: its invoice is made, no message.
    shop.order(status="processing", billing={**BILLING, "email": ""})
    assert len(smtp.keeper.received) == 1 and len(rows(shop)) == 1
    # The plugin's switches on the settings page, under Invoicing.
    options = shop.app.get("/api/store/v1/settings/invoicing", headers=shop.headers_for("administrator")).json
    found = {o["id"]: o["value"] for o in options if o["id"].startswith("invoicing.attach_")}
    assert found == {"invoicing.attach_invoice": ["received", "completed"], "invoicing.attach_receipt": [],
                     "invoicing.attach_credit_note": [], "invoicing.attach_packing_slip": []}
