"""The tickets message (#41): when an order's tickets are issued, one message goes to its billing
address with every ticket (event, local date and time, venue, attendee, code, an inline QR code
and a one-page PDF each), composed by the worker and sent to a real SMTP server on 127.0.0.1;
read back here as a mail client would (headers, both parts, the PDFs opened with pypdf, each QR
image and each PDF's QR code decoded back to its ticket code). "Resend tickets" through REST and
the admin records it again; bad ids answer the error shape."""
import io

import PIL.Image
import pypdf
import pypdfium2
import pytest
import zxingcpp
from host.mail_servers import SmtpServer
from sqlalchemy import select

from storeplatform.api import create_order
from storeplatform.components.mail.models import MailMessage
from storeplatform.testing import admin_login, admin_token, assert_error

from .conftest import Evt

BILLING = {"first_name": "Anna", "last_name": "Nowak", "email": "anna@example.com", "phone": "+43 1 234"}


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


@pytest.fixture
def evt(make_site, tmp_path, smtp):
    site = make_site(**{"storeplatform.plugins": "events", "mail.url": smtp.url(),
                        "mail.directory": str(tmp_path / "mail"), "mail.timeout": "5", "mail.retry_delays": "none"})
    site.set_option("site.timezone", "Europe/Vienna")
    site.set_option("store.name", "Donau Tickets")
    site.set_option("store.address", "Ring 1\n1010 Wien")
    return Evt(site)


def concert(evt, title="Spring Concert"):
    venue = evt.venue("Konzerthaus", address="Lothringerstrasse 20", postal="1030", city="Wien", country="AT")
    # 18:30 in UTC is 19:30 in Vienna (CET in March): the message shows the site's time.
    return evt.event(title, start_date="2027-03-05", start_time="18:30", end_date="2027-03-05", end_time="21:00",
                     timezone="UTC", venue_id=venue["id"])


def sent(smtp):
    """The tickets messages the server received (not the users' welcome messages)."""
    return [m for m in smtp.keeper.messages() if m["Subject"].startswith("Your tickets")]


def mail_rows(evt):
    with evt.site.session() as s:
        return s.execute(select(MailMessage.id, MailMessage.kind, MailMessage.status, MailMessage.context)
                         .where(MailMessage.kind == "events.tickets").order_by(MailMessage.id)).all()


def parts(message):
    text = message.get_body(("plain",)).get_content()
    html_part = message.get_body(("html",))
    html = html_part.get_content()
    images = {part["Content-ID"].strip("<>"): part.get_content() for part in html_part.iter_parts()
              if part.get_content_maintype() == "image"} if html_part.is_multipart() else {}
    if not images:  # multipart/related: the HTML is its first part, the images follow
        related = next(p for p in message.walk() if p.get_content_type() == "multipart/related")
        images = {p["Content-ID"].strip("<>"): p.get_content() for p in related.iter_parts()
                  if p.get_content_maintype() == "image"}
    pdfs = {a.get_filename(): a.get_content() for a in message.iter_attachments()
            if a.get_content_type() == "application/pdf"}
    return text, html, images, pdfs


def decoded(png):
    return [code.text for code in zxingcpp.read_barcodes(PIL.Image.open(io.BytesIO(png)))]


def pdf_codes(data):
    """The QR codes on the PDF's first page, rendered at 144 dpi and decoded."""
    return [code.text for code in zxingcpp.read_barcodes(pypdfium2.PdfDocument(data)[0].render(scale=2).to_pil())]


def pdf_text(data):
    reader = pypdf.PdfReader(io.BytesIO(data))
    return len(reader.pages), "\n".join(page.extract_text() for page in reader.pages)


def test_a_paid_order_gets_one_message_with_every_ticket(evt, smtp):
    event = concert(evt)
    tickets = evt.tickets(event["id"], quantity=2, billing=BILLING)
    codes = [t["ticket_code"] for t in tickets]
    assert len(codes) == 2
    [message] = sent(smtp)
    assert message["Subject"] == "Your tickets for Spring Concert"
    assert message["To"] == "Anna Nowak <anna@example.com>"
    text, html, images, pdfs = parts(message)
    for body in (text, html):
        assert "Spring Concert" in body and "Konzerthaus" in body and "Lothringerstrasse 20, 1030 Wien, AT" in body
        assert "Friday 5 March 2027, 19:30 (Europe/Vienna)" in body and "Donau Tickets" in body
        assert all(code in body for code in codes)
    # Each QR code is an inline image the HTML shows, and decodes back to its ticket's code.
    assert set(images) == {f"qr-{code}" for code in codes}
    for code in codes:
        assert f'src="cid:qr-{code}"' in html
        assert decoded(images[f"qr-{code}"]) == [code]
    # One one-page PDF per ticket, holding its code, the attendee and the event.
    assert set(pdfs) == {f"ticket-{code}.pdf" for code in codes}
    for code in codes:
        pages, words = pdf_text(pdfs[f"ticket-{code}.pdf"])
        assert pages == 1
        assert code in words and "Anna Nowak" in words and "Spring Concert" in words
        assert "19:30" in words and "Konzerthaus" in words
        assert pdf_codes(pdfs[f"ticket-{code}.pdf"]) == [code]
    [(_, kind, status, context)] = mail_rows(evt)
    assert (kind, status, context) == ("events.tickets", "sent", {"order_id": tickets[0]["order_id"]})


def test_two_events_in_one_order_name_the_order(evt, smtp):
    first, second = concert(evt), evt.event("Jazz Night", start_date="2027-04-01", start_time="20:00",
                                            end_date="2027-04-01", end_time="23:00")
    order_id = evt.order([(evt.product(first["id"]), 1), (evt.product(second["id"]), 1)], billing=BILLING)
    [message] = sent(smtp)
    with evt.site.session() as s:
        from storeplatform.api import Order
        number = s.get(Order, order_id).number
    assert message["Subject"] == f"Your tickets (order #{number})"
    text, html, images, pdfs = parts(message)
    assert "Spring Concert" in text and "Jazz Night" in text and len(images) == len(pdfs) == 2


def test_no_message_without_tickets_an_address_a_commit_or_the_option(evt, smtp):
    event = concert(evt)
    # An order with no ticket in it.
    plain = evt.app.post_json("/api/store/v1/products", {"name": "Mug", "regular_price": "5.00"},
                              headers=evt.admin, status=201).json["id"]
    evt.order([(plain, 1)], billing=BILLING)
    # An order not paid (no tickets yet).
    evt.order([(evt.product(event["id"]), 1)], status="pending", billing=BILLING)
    # A paid order with no billing e-mail.
    evt.order([(evt.product(event["id"]), 1)], billing={"first_name": "No", "last_name": "Mail"})
    # A paid order rolled back: nothing recorded, nothing sent.
    product = evt.product(event["id"])
    with pytest.raises(RuntimeError):
        with evt.site.session() as s:
            create_order(s, line_items=[{"product_id": product, "quantity": 1}], billing=BILLING,
                         status="processing")
            raise RuntimeError("the payment fails after all")
    # The option off.
    evt.site.set_option("events.ticket_mail_enabled", False)
    evt.tickets(event["id"], quantity=1, billing=BILLING)
    assert sent(smtp) == [] and mail_rows(evt) == []


def test_resend_through_rest_and_the_admin_leaves_out_cancelled_tickets(evt, smtp):
    event = concert(evt)
    tickets = evt.tickets(event["id"], quantity=2, billing=BILLING)
    order_id = tickets[0]["order_id"]
    assert len(sent(smtp)) == 1
    # The second ticket is cancelled: the messages sent again carry the first one only.
    evt.put(f"/attendees/{tickets[1]['id']}", {"status": "cancelled"}, status=200)
    res = evt.post(f"/orders/{order_id}/tickets/resend", status=202)
    assert set(res.json) == {"queued", "mail_id"}
    second = sent(smtp)[1]
    text, html, images, pdfs = parts(second)
    kept, gone = tickets[0]["ticket_code"], tickets[1]["ticket_code"]
    assert kept in text and gone not in text and gone not in html
    assert list(images) == [f"qr-{kept}"] and list(pdfs) == [f"ticket-{kept}.pdf"]
    assert decoded(images[f"qr-{kept}"]) == [kept]
    rows = mail_rows(evt)
    assert rows[-1].id == res.json["mail_id"] and rows[-1].context == {"order_id": order_id, "resent": True}

    # The admin: the order's page links to its tickets, whose page has the button.
    admin_login(evt.site, "boss", "administrator")
    order_page = evt.app.get(f"/admin/orders/{order_id}")
    assert "Tickets" in order_page.text and f"/admin/attendees/orders/{order_id}" in order_page.text
    page = evt.app.get(f"/admin/attendees/orders/{order_id}")
    assert kept in page.text and "Resend tickets" in page.text
    evt.app.post(f"/admin/attendees/orders/{order_id}/resend", {"csrf_token": admin_token(page)}, status=303)
    assert len(sent(smtp)) == 3 and kept in parts(sent(smtp)[2])[0]

    # Every ticket cancelled: nothing to send again (409 in REST, shown on the admin's page).
    evt.put(f"/attendees/{tickets[0]['id']}", {"status": "cancelled"}, status=200)
    assert_error(evt.post(f"/orders/{order_id}/tickets/resend", status=409), 409, "evt_rest_no_active_tickets")
    refused = evt.app.post(f"/admin/attendees/orders/{order_id}/resend", {"csrf_token": admin_token(page)},
                           status=409)
    assert "no ticket that is not cancelled" in refused.text
    assert len(sent(smtp)) == 3


def test_resend_of_bad_ids_answers_the_error_shape(evt, smtp):
    for bad in ("999999", "99999999999999999999", "abc", "1e3", "-1", "%20"):
        assert_error(evt.post(f"/orders/{bad}/tickets/resend", status=404), 404, "evt_rest_order_invalid_id")
    plain = evt.app.post_json("/api/store/v1/products", {"name": "Mug", "regular_price": "5.00"},
                              headers=evt.admin, status=201).json["id"]
    order_id = evt.order([(plain, 1)], billing=BILLING)
    assert_error(evt.post(f"/orders/{order_id}/tickets/resend", status=409), 409, "evt_rest_no_active_tickets")
    # Not without the attendee list's capability.
    assert_error(evt.app.post_json(evt.url(f"/orders/{order_id}/tickets/resend"), {}, status=401), 401,
                 "evt_rest_forbidden")
    admin_login(evt.site, "boss", "administrator")
    for bad in ("99999999999999999999", "abc", "999999"):
        evt.app.get(f"/admin/attendees/orders/{bad}", status=404)
    assert sent(smtp) == []


def test_an_order_deleted_before_the_worker_composes_sends_nothing(evt, smtp):
    from storeplatform.api import queue_mail
    with evt.site.session() as s:
        queue_mail(s, "events.tickets", {"order_id": 424242})
    assert sent(smtp) == [] and mail_rows(evt) == []


def test_the_demo_orders_get_no_message(evt, smtp):
    from storeplatform_events.demo import load_demo

    with evt.site.session() as s:
        load_demo(s)
    assert evt.attendees()  # tickets were issued
    assert sent(smtp) == [] and mail_rows(evt) == []
    # An order paid outside the demo data is sent.
    evt.tickets(concert(evt)["id"], quantity=1, billing=BILLING)
    assert len(sent(smtp)) == 1


def test_the_alternate_variant_resends_with_its_generic_codes(make_site, tmp_path, smtp):
    from .conftest import ALTERNATE

    alt = Evt(make_site(**ALTERNATE, **{"mail.url": smtp.url(), "mail.directory": str(tmp_path / "mail"),
                                        "mail.retry_delays": "none"}))
    event = alt.event("Jazz Night", start_date="2027-04-01", start_time="20:00", end_date="2027-04-01",
                      end_time="23:00")
    order_id = alt.order([(alt.product(event["id"]), 1)], billing=BILLING)
    assert len(sent(smtp)) == 1
    alt.post(f"/orders/{order_id}/tickets/resend", status=202)
    assert len(sent(smtp)) == 2
    assert_error(alt.post("/orders/abc/tickets/resend", status=404), 404, "rest_not_found")
