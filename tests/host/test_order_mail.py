"""The order messages (#41): an order paid ("order received") or completed ("order completed")
through REST on a site with an SMTP server: the worker composes the message from the order as
committed and sends it to the billing address, parsed back here from a real SMTP server on
127.0.0.1 (headers, the text and HTML parts: the order's number, lines and totals as the store
formats money, the billing and store addresses). Nothing without a billing address, for a change
rolled back, or with the message's option off."""
from decimal import Decimal

import pytest
from sqlalchemy import select

from storeplatform.api import Order, Product
from storeplatform.api.advanced import set_order_status
from storeplatform.components.mail.models import MailMessage

from .mail_servers import SmtpServer

BILLING = {"first_name": "Ann", "last_name": "Buyer", "address_1": "12 Rue des Lilas", "postcode": "75011",
           "city": "Paris", "country": "FR", "email": "ann@example.com", "phone": "+33 1 23 45 67 89"}


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


class Store:
    def __init__(self, site, smtp):
        self.site, self.smtp, self.app = site, smtp, site.app
        site.set_option("store.name", "Lilas & Co")
        site.set_option("store.address", "3 Quai Voltaire\n75007 Paris")
        with site.session() as s:
            items = [Product(name="Linen towel", regular_price=Decimal("1234.50"), meta={}),
                     Product(name="Soap <lavender>", regular_price=Decimal("4.25"), meta={})]
            s.add_all(items)
            s.flush()
            self.products = [p.id for p in items]

    def order(self, status="processing", billing=BILLING, status_code=201):
        return self.app.post_json(self.site.url("/store/v1/orders"), {
            "line_items": [{"product_id": self.products[0], "quantity": 2},
                           {"product_id": self.products[1], "quantity": 3}],
            "billing": billing, "status": status,
        }, headers=self.site.headers_for("administrator"), status=status_code).json

    def set_status(self, order_id, status):
        return self.app.put_json(self.site.url(f"/store/v1/orders/{order_id}"), {"status": status},
                                 headers=self.site.headers_for("administrator")).json

    def rows(self):
        with self.site.session() as s:
            return [tuple(r) for r in s.execute(select(MailMessage.kind, MailMessage.status, MailMessage.context)
                                                 .order_by(MailMessage.id))]


def make_store(make_site, tmp_path, smtp, **settings):
    site = make_site(**{"mail.url": smtp.url(), "mail.directory": str(tmp_path / "mail"), "mail.timeout": "2",
                        "mail.retry_delays": "none", **settings})
    return Store(site, smtp)


def parts(message):
    return message.get_body(("plain",)).get_content(), message.get_body(("html",)).get_content()


def test_a_paid_order_sends_order_received_to_the_billing_address(make_site, tmp_path, smtp):
    store = make_store(make_site, tmp_path, smtp)
    store.site.set_option("site.timezone", "Europe/Paris")
    order = store.order()
    [message] = store.smtp.keeper.messages()
    [envelope] = store.smtp.keeper.received
    assert envelope.rcpt_tos == ["ann@example.com"]
    assert message["To"] == "Ann Buyer <ann@example.com>"
    assert message["Subject"] == f"Your Lilas & Co order #{order['id']} has been received"
    text, html = parts(message)
    for part in (text, html):
        assert f"#{order['id']}" in part
        assert "$2,469.00" in part and "$12.75" in part and "$2,481.75" in part  # lines and total
        assert "12 Rue des Lilas" in part and "75011 Paris" in part and "3 Quai Voltaire" in part
        assert "Europe/Paris" not in part and ("CET" in part or "CEST" in part)  # the site's time zone
    assert "Linen towel x 2: $2,469.00" in text and "Soap <lavender> x 3: $12.75" in text
    assert "Soap &lt;lavender&gt;" in html and "<lavender>" not in html  # the HTML is escaped
    assert "Lilas &amp; Co" in html
    assert list(message.iter_attachments()) == []  # no invoicing plugin: nothing attached
    assert store.rows() == [("store.order_received", "sent", {"order_id": order["id"]})]

    store.set_status(order["id"], "completed")
    first, second = store.smtp.keeper.messages()
    assert second["Subject"] == f"Your Lilas & Co order #{order['id']} is now complete"
    assert second["To"] == "Ann Buyer <ann@example.com>"
    assert all("$2,481.75" in part and f"#{order['id']}" in part for part in parts(second))
    assert [r[0] for r in store.rows()] == ["store.order_received", "store.order_completed"]


def test_money_is_as_the_store_formats_it(make_site, tmp_path, smtp):
    store = make_store(make_site, tmp_path, smtp)
    for key, value in (("store.decimal_separator", ","), ("store.thousand_separator", "."),
                       ("store.currency", "EUR"), ("store.currency_position", "right_space")):
        store.site.set_option(key, value)
    store.order(status="completed")
    [message] = store.smtp.keeper.messages()
    assert "is now complete" in message["Subject"]
    for part in parts(message):
        assert "2.469,00 €" in part and "12,75 €" in part and "2.481,75 €" in part


def test_no_message_without_a_billing_address_for_a_rollback_or_switched_off(make_site, tmp_path, smtp):
    store = make_store(make_site, tmp_path, smtp)
    store.order(billing={**BILLING, "email": ""})
    store.order(status="pending")  # not paid: nothing yet
    store.order(status="on-hold")
    assert store.rows() == [] and store.smtp.keeper.received == []

    # The status change rolled back: its message with it.
    order = store.order(status="pending")
    with pytest.raises(RuntimeError):
        with store.site.session() as s:
            set_order_status(s, s.get(Order, order["id"]), "processing")
            raise RuntimeError("the payment is refused after all")
    assert store.rows() == [] and store.smtp.keeper.received == []

    store.site.set_option("mail.order_received", False)
    store.set_status(order["id"], "processing")
    assert store.rows() == []
    store.site.set_option("mail.order_completed", False)
    store.set_status(order["id"], "completed")
    assert store.rows() == [] and store.smtp.keeper.received == []

    store.site.set_option("mail.order_completed", True)
    other = store.order(status="completed")
    assert store.rows() == [("store.order_completed", "sent", {"order_id": other["id"]})]


def test_an_order_deleted_before_the_worker_composes_sends_nothing(make_site, tmp_path, smtp):
    from storeplatform.testing import queue_url

    store = make_store(make_site, tmp_path, smtp, **{"huey.url": queue_url(tmp_path)})
    order = store.order()
    assert [r[1] for r in store.rows()] == ["composing"]  # the queue holds it: no worker yet
    store.app.delete(store.site.url(f"/store/v1/orders/{order['id']}"),
                     headers=store.site.headers_for("administrator"))
    with store.site.worker(workers=1):
        from storeplatform.testing import wait_for

        wait_for(lambda: store.rows() == [], timeout=20)
    assert store.smtp.keeper.received == []


def test_the_demo_orders_get_no_order_messages(tmp_path):
    from storeplatform.testing import run_cli

    ini = tmp_path / "demo.ini"
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = sqlite:///{tmp_path}/demo.sqlite
huey.url = memory://
storeplatform.plugins = invoicing
mail.directory = {tmp_path}/mail
""")
    for args in (["migrate"], ["demo"]):
        result = run_cli("-c", str(ini), *args)
        assert result.returncode == 0, result.stderr
    # Paid and completed orders were made (the invoicing demo's), and no message recorded or written.
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{tmp_path}/demo.sqlite")
    with engine.connect() as conn:
        statuses = set(conn.execute(text("SELECT status FROM orders")).scalars())
        assert {"processing", "completed"} <= statuses
        assert conn.execute(text("SELECT count(*) FROM mail_outbox")).scalar() == 0
    engine.dispose()
    assert not any((tmp_path / "mail").glob("*.eml"))
