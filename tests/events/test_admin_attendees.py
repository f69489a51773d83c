"""The admin's Attendees pages (WebTest): an event's attendees and every attendee, with search
(name, e-mail, ticket code), status filter and paging at a constant number of statements per
page; check-in and check-out by hand through the REST functions (the same actions and webhook
deliveries), refusals shown on the list with nothing written; the CSV export, exact for a small
set and in constant memory for 200,000 attendees; bad input as clean 400/404 pages."""
import gc
import re

import pytest
from sqlalchemy import select, text
from webob import Request
from zope.sqlalchemy import mark_changed

from admin.helpers import assert_page, login, token
from storeplatform.testing import reset_peak_memory, resident_memory
from storeplatform_events.webhooks.models import WebhookDelivery

from .conftest import Evt
from .webhook_fixtures import Hooks, hooks_site


class Office:
    """A site with two events, tickets sold, and a shop manager logged in to the admin."""

    def __init__(self, evt):
        self.evt = evt
        self.app = evt.app
        self.gala = evt.event("Gala", start_date="2031-05-01", end_date="2031-05-01")
        self.talk = evt.event("Talk", start_date="2031-06-01", end_date="2031-06-01")
        self.anna = evt.tickets(self.gala["id"], 2, billing={"first_name": "Anna", "last_name": "Nowak",
                                                             "email": "anna@example.com"})
        self.ben = evt.tickets(self.gala["id"], 1, billing={"first_name": "Ben", "last_name": "Ortiz",
                                                            "email": "ben@mail.example"})
        self.cleo = evt.tickets(self.talk["id"], 1, billing={"first_name": "Cleo", "last_name": "Park",
                                                             "email": "cleo@example.com"})
        login(evt.site, "boss", "shop_manager")

    def url(self, event=None):
        return "/admin/attendees" if event is None else f"/admin/events/{event['id']}/attendees"

    def page(self, event=None, expect=200, **params):
        return assert_page(self.app.get(self.url(event), params, status=expect), expect)

    def status(self, ticket):
        return self.evt.get(f"/attendees/{ticket['id']}", headers=self.evt.admin).json["status"]

    def move(self, ticket, verb, page=None, status=303, **fields):
        """POST the row's form by hand (a stale page's button), with the page's token."""
        page = page or self.page(self.gala)
        return self.app.post(f"/admin/attendees/{ticket['id']}/{verb}",
                             {"csrf_token": token(page), "scope": str(self.gala["id"]), **fields}, status=status)


def codes(page):
    return [td.text for td in page.html.select("#attendees tbody td[data-label=Ticket]")]


def row(page, ticket):
    return page.html.select_one(f"#attendees tbody tr[data-id='{ticket['id']}']")


@pytest.fixture
def office(make_site):
    return Office(Evt(make_site(**{"storeplatform.plugins": "events"})))


def test_an_events_attendees_newest_first_searched_and_filtered(office):
    gala = office.page(office.gala)
    assert "Attendees of Gala" in gala.text
    assert codes(gala) == [t["ticket_code"] for t in reversed(office.anna + office.ben)]
    assert gala.html.select_one(".list-total").text.strip() == "1–3 of 3 attendees."
    assert codes(office.page(office.gala, search="ORTIZ")) == [office.ben[0]["ticket_code"]]
    assert codes(office.page(office.gala, search="anna@EXAMPLE")) == [t["ticket_code"] for t in reversed(office.anna)]
    code = office.anna[0]["ticket_code"]
    assert codes(office.page(office.gala, search=code[3:9].lower())) == [code]
    assert codes(office.page(office.gala, search="cleo")) == []  # another event's
    office.evt.post("/checkin", {"ticket_code": code}, status=200)
    checked = office.page(office.gala, status="checked_in")
    assert codes(checked) == [code]
    assert row(checked, office.anna[0]).select_one(".badge").text == "Checked in"
    assert codes(office.page(office.gala, status="active")) == [office.ben[0]["ticket_code"],
                                                                       office.anna[1]["ticket_code"]]
    assert codes(office.page(office.gala, status="cancelled")) == []


def test_every_attendee_with_their_event(office):
    page = office.page()
    assert len(codes(page)) == 4
    assert row(page, office.cleo[0]).select_one("td[data-label=Event]").text == "Talk"
    assert codes(office.page(search="park")) == [office.cleo[0]["ticket_code"]]


def test_paging_of_an_events_attendees(office):
    more = office.evt.tickets(office.gala["id"], 52)
    first = office.page(office.gala)
    assert len(codes(first)) == 50 and "Page 1 of 2" in first.text
    second = assert_page(first.click("Next"), 200)
    assert set(codes(first)) | set(codes(second)) == {t["ticket_code"] for t in office.anna + office.ben + more}
    assert codes(office.page(office.gala, page="7")) == codes(second)


@pytest.mark.parametrize("params, message", [
    ({"page": "-1"}, "page must be a whole number"),
    ({"page": "1e3"}, "page must be a whole number"),
    ({"status": "gone"}, "status must be one of"),
])
def test_bad_query_values_are_a_400_page(office, params, message):
    assert_page(office.app.get(office.url(office.gala), params, status=400), 400, message)
    assert_page(office.app.get(office.url(), params, status=400), 400, message)
    assert_page(office.app.get(office.url(office.gala) + "/export.csv", params, status=400), 400, message)


@pytest.mark.parametrize("path", ["/admin/events/999999/attendees", "/admin/events/" + "9" * 40 + "/attendees",
                                  "/admin/events/999999/attendees/export.csv", "/admin/attendees/abc"])
def test_unknown_events_are_404_pages(office, path):
    assert_page(office.app.get(path, status=404), 404)


def test_a_check_in_by_hand_moves_the_ticket_and_keeps_the_lists_filters(office):
    page = office.page(office.gala, search="anna")
    form = row(page, office.anna[0]).select_one("form")
    assert form["action"] == f"http://localhost/admin/attendees/{office.anna[0]['id']}/checkin?search=anna"
    res = page.forms[f"checkin-{office.anna[0]['id']}"].submit(status=303)
    assert res.location == f"http://localhost/admin/events/{office.gala['id']}/attendees?search=anna"
    shown = assert_page(res.follow(), 200, f"Ticket {office.anna[0]['ticket_code']} checked in.")
    assert office.status(office.anna[0]) == "checked_in"
    assert row(shown, office.anna[0]).select_one("button").text == "Check out"
    out = shown.forms[f"checkout-{office.anna[0]['id']}"].submit(status=303).follow()
    assert f"Ticket {office.anna[0]['ticket_code']} checked out." in out.text
    assert office.status(office.anna[0]) == "checked_out"
    # A checked-out ticket may come back in (a pass-out), as at the door.
    assert row(out, office.anna[0]).select_one("button").text == "Check in"
    office.move(office.anna[0], "checkin", page=out)
    assert office.status(office.anna[0]) == "checked_in"


def test_from_the_list_of_every_attendee_it_comes_back_there(office):
    page = office.page(page="1")
    res = page.forms[f"checkin-{office.cleo[0]['id']}"].submit(status=303)
    assert res.location == "http://localhost/admin/attendees"
    assert office.status(office.cleo[0]) == "checked_in"


def test_refusals_are_shown_on_the_list_and_nothing_is_written(office):
    page = office.page(office.gala)
    office.evt.post("/checkin", {"ticket_code": office.anna[0]["ticket_code"]}, status=200)
    # The page was loaded before: its button still says "Check in".
    again = assert_page(page.forms[f"checkin-{office.anna[0]['id']}"].submit(status=409), 409,
                        "This attendee is already checked in.")
    assert "lists-refused" in row(again, office.anna[0])["class"]
    assert row(again, office.anna[0]).select_one(".field-error").text.endswith("This attendee is already checked in.")
    assert_page(office.move(office.ben[0], "checkout", status=409), 409, "This attendee is not checked in.")
    office.evt.put(f"/attendees/{office.ben[0]['id']}", {"status": "cancelled"}, status=200)
    refused = assert_page(office.move(office.ben[0], "checkin", status=409), 409, "This ticket has been cancelled.")
    assert row(refused, office.ben[0]).select_one("form") is None  # a cancelled ticket has no button
    assert office.status(office.ben[0]) == "cancelled" and office.status(office.anna[1]) == "active"
    # The pager and the filters of a refused form lead to the list, not to the form's address.
    assert refused.html.select_one("#attendees-filter")["action"].endswith(office.url(office.gala))


def test_bad_ids_tokens_and_forms_change_nothing(office):
    page = office.page(office.gala)
    for path in ("/admin/attendees/999999/checkin", "/admin/attendees/" + "9" * 40 + "/checkout"):
        assert_page(office.app.post(path, {"csrf_token": token(page)}, status=404), 404)
    assert_page(office.move(office.anna[0], "checkin", scope="424242", status=404), 404)
    assert_page(office.app.post(f"/admin/attendees/{office.anna[0]['id']}/checkin", {"csrf_token": "x"}, status=403),
                403)
    assert_page(office.app.get(f"/admin/attendees/{office.anna[0]['id']}/checkin", status=405), 405)
    bad = office.app.post(f"/admin/attendees/{office.anna[0]['id']}/checkin",
                          b"csrf_token=" + token(page).encode() + b"&scope=\xff",
                          content_type="application/x-www-form-urlencoded", status=400)
    assert_page(bad, 400)
    assert_page(office.app.post(f"/admin/attendees/{office.anna[0]['id']}/checkin?page=0",
                                {"csrf_token": token(page)}, status=400), 400)
    assert office.status(office.anna[0]) == "active"


def test_a_check_in_and_out_by_hand_fire_the_same_actions_and_webhooks_as_rest(make_site, evt_log):
    hooks = Hooks(make_site(**{"storeplatform.plugins": "events thirdparty",
                               "events.webhooks.allow_private_targets": "true"}))
    office = Office(hooks)
    hook_in = hooks.webhook("attendee.checked_in", "http://127.0.0.1:9/in")
    hook_out = hooks.webhook("attendee.checked_out", "http://127.0.0.1:9/out")
    ticket = office.anna[0]
    office.move(ticket, "checkin")
    assert evt_log()[-1] == f"evt_attendee_checked_in {ticket['id']} {ticket['ticket_code']}"
    office.move(ticket, "checkout")
    assert evt_log()[-1] == f"evt_attendee_checked_out {ticket['id']} {ticket['ticket_code']}"
    deliveries = [(d["webhook_id"], d["topic"]) for d in hooks.deliveries()]
    assert deliveries == [(hook_in["id"], "attendee.checked_in"), (hook_out["id"], "attendee.checked_out")]


class Veto:
    from storeplatform.api import hookimpl

    @hookimpl
    def evt_attendee_checked_in(self, attendee_id, attendee):
        raise RuntimeError("veto")


def test_a_failing_action_leaves_the_ticket_and_says_so(make_site):
    office = Office(hooks_site(make_site, plugins=[Veto()]))
    office.evt.webhook("attendee.checked_in", "http://127.0.0.1:9/hook")
    assert_page(office.move(office.anna[0], "checkin", status=500), 500, "the ticket is unchanged")
    assert office.status(office.anna[0]) == "active"
    with office.evt.site.session() as s:
        assert s.execute(select(WebhookDelivery)).first() is None


def test_a_page_costs_the_same_statements_with_3_or_30_attendees(make_site):
    evt = Evt(make_site(**{"storeplatform.plugins": "events"}))
    gala = evt.event("Gala", start_date="2031-05-01", end_date="2031-05-01")
    login(evt.site, "boss", "shop_manager")

    def statements():
        seen = {}
        for name, path, params in (("event", f"/admin/events/{gala['id']}/attendees", {}),
                                   ("status", f"/admin/events/{gala['id']}/attendees", {"status": "active"}),
                                   ("search", f"/admin/events/{gala['id']}/attendees", {"search": "nowak"}),
                                   ("all", "/admin/attendees", {})):
            evt.app.get(path, params)
            with count_statements(evt) as n:
                assert_page(evt.app.get(path, params), 200)
            seen[name] = n()
        return seen

    evt.tickets(gala["id"], 3)
    few = statements()
    evt.tickets(gala["id"], 27)
    assert statements() == few
    assert few["event"] <= 6, few


def count_statements(evt):
    from storeplatform.testing import count_queries

    return count_queries(evt.site.engine)


def test_the_csv_export_of_a_small_set_byte_for_byte(office):
    evt = office.evt
    evt.site.set_option("site.timezone", "Europe/Vienna")
    evt.post("/checkin", {"ticket_code": office.anna[0]["ticket_code"]}, status=200)
    with evt.site.session() as s:
        # Fixed times and a name a spreadsheet would run as a formula.
        s.execute(text("UPDATE evt_attendees SET created_at = '2031-01-02 03:04:05.000000'"))
        s.execute(text("UPDATE evt_attendees SET checked_in_at = '2031-05-01 17:30:00.000000', "
                       "first_name = '=SUM(A1)' WHERE id = :id"), {"id": office.anna[0]["id"]})
        mark_changed(s)
    res = office.app.get(office.url(office.gala) + "/export.csv")
    assert res.content_type == "text/csv" and res.charset == "utf-8"
    assert re.fullmatch(r'attachment; filename="attendees-event-\d+-\d{4}-\d\d-\d\d\.csv"',
                        res.headers["Content-Disposition"])
    a, a2, b = office.anna[0], office.anna[1], office.ben[0]
    gala = office.gala["id"]
    assert res.body.decode() == "\ufeff" + (
        "id,ticket_code,first_name,last_name,email,phone,status,event_id,event,order_id,checked_in_at,"
        "checked_out_at,created_at\r\n"
        f"{b['id']},{b['ticket_code']},Ben,Ortiz,ben@mail.example,,active,{gala},Gala,{b['order_id']},,,"
        "2031-01-02 04:04:05\r\n"
        f"{a2['id']},{a2['ticket_code']},Anna,Nowak,anna@example.com,,active,{gala},Gala,{a2['order_id']},,,"
        "2031-01-02 04:04:05\r\n"
        f"{a['id']},{a['ticket_code']},'=SUM(A1),Nowak,anna@example.com,,checked_in,{gala},Gala,"
        f"{a['order_id']},2031-05-01 19:30:00,,2031-01-02 04:04:05\r\n")
    # Filtered as the list is: the search and status of the page's export link.
    page = office.page(office.gala, search="ortiz")
    export = office.app.get(page.html.select_one("a[download]")["href"]).text.splitlines()
    assert [line.split(",")[0] for line in export[1:]] == [str(b["id"])]
    assert len(office.app.get("/admin/attendees/export.csv").text.splitlines()) == 5


MANY = 60_000  # a stream stays a few MB; held whole these rows are ~80 MB (the scale bench streams 1,000,000)


def test_the_export_of_60000_attendees_streams_in_constant_memory(make_site):
    """60,000 attendees inserted in SQL (some 5 MB of CSV, ~80 MB as Python rows),
    exported through the app and thrown away as read: the process's peak resident memory grows
    by a few MB at most (the peak is reset through /proc/self/clear_refs)."""
    evt = Evt(make_site(**{"storeplatform.plugins": "events"}))
    gala = evt.event("Gala", start_date="2031-05-01", end_date="2031-05-01")
    postgresql = evt.site.engine.dialect.name == "postgresql"
    numbers = ("SELECT g AS i FROM generate_series(1, :many) g" if postgresql else
               "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :many) SELECT i FROM n")
    with evt.site.session() as s:
        s.execute(text(
            "INSERT INTO evt_attendees (event_id, ticket_index, first_name, last_name, email, phone, ticket_code, "
            "status, cancelled_by_order, custom_fields, created_at, modified_at) "
            "SELECT :event, 0, 'Guest', 'Number ' || i, 'guest' || i || '@example.com', '', 'T' || i, 'active', "
            f":no, '{{}}', :at, :at FROM ({numbers}) AS numbers"),
            {"many": MANY, "event": gala["id"], "no": False, "at": "2031-01-01 00:00:00.000000"})
        mark_changed(s)
    login(evt.site, "boss", "shop_manager")
    cookie = "; ".join(f"{name}={value}" for name, value in evt.app.cookies.items())
    request = Request.blank(f"/admin/events/{gala['id']}/attendees/export.csv",
                            headers={"Cookie": cookie}, environ={"REMOTE_ADDR": "127.0.0.1"})
    response = request.get_response(evt.site.wsgi)
    assert response.status_int == 200, response.text[:300]
    gc.collect()
    reset_peak_memory()
    before, _ = resident_memory()
    size = lines = 0
    for chunk in response.app_iter:
        size += len(chunk)
        lines += chunk.count(b"\r\n")
    _, peak = resident_memory()
    getattr(response.app_iter, "close", lambda: None)()
    assert lines == MANY + 1 and size > 4_500_000
    assert peak - before < 20_000_000, f"the export grew the process by {peak - before} bytes for {size} of CSV"


def test_the_alternate_variant_site_has_the_same_pages(make_site):
    office = Office(Evt(make_site(**{"storeplatform.plugins": "events", "events.api_variant": "alternate"})))
    events = assert_page(office.app.get("/admin/events"), 200)
    assert [a.text for a in events.html.select("#events tbody td[data-label=Event] > a")] == ["Talk", "Gala"]
    assert codes(office.page(office.gala, search="ortiz")) == [office.ben[0]["ticket_code"]]
    office.move(office.ben[0], "checkin")
    assert office.status(office.ben[0]) == "checked_in"
