"""A constant number of SQL queries per request, whatever the amount of data (no N+1)."""
from storeplatform.testing import count_queries


def grow(evt, n, month="2031-03"):
    """``n`` more published events, each with its own venue, organizer and category, and tickets."""
    made = []
    for i in range(n):
        venue = evt.venue(f"V{i}")
        organizer = evt.organizer(f"O{i}")
        category = evt.category(f"C{len(made)}-{venue['id']}")
        made.append(evt.event(f"E{i}", start_date=f"{month}-{i % 28 + 1:02d}", venue_id=venue["id"],
                              organizer_id=organizer["id"], categories=[category]))
    return made


def queries_of(evt, call):
    with count_queries(evt.site.engine) as n:
        call()
    return n()


def test_event_list_with_embed_is_constant(evt):
    evt.site.headers_for("administrator")
    grow(evt, 2)
    small = queries_of(evt, lambda: evt.get("/events?per_page=100&_embed=1", headers=evt.admin))
    grow(evt, 12)
    big = queries_of(evt, lambda: evt.get("/events?per_page=100&_embed=1", headers=evt.admin))
    assert len(evt.get("/events?per_page=100&_embed=1").json) == 14
    assert small == big <= 10


def test_calendar_month_is_constant(evt):
    grow(evt, 2)
    small = queries_of(evt, lambda: evt.get("/calendar/month?year=2031&month=3"))
    grow(evt, 12)
    big = queries_of(evt, lambda: evt.get("/calendar/month?year=2031&month=3"))
    assert evt.get("/calendar/month?year=2031&month=3").json["total_events"] == 14
    assert small == big <= 5


def test_attendee_list_and_checkin_are_constant(evt):
    event = evt.event("Big")
    evt.tickets(event["id"], 2)
    small = queries_of(evt, lambda: evt.get(f"/attendees?event={event['id']}&per_page=100", headers=evt.admin))
    codes = [a["ticket_code"] for a in evt.tickets(event["id"], 40)]
    for n in range(3):
        evt.tickets(event["id"], 1, billing={"first_name": f"B{n}", "email": f"b{n}@example.com"})
    big = queries_of(evt, lambda: evt.get(f"/attendees?event={event['id']}&per_page=100", headers=evt.admin))
    assert small == big <= 8
    # The active webhooks are kept by generation: the process's first check-in looks them up.
    evt.post("/checkin", {"ticket_code": codes[2]}, status=200)
    first = queries_of(evt, lambda: evt.post("/checkin", {"ticket_code": codes[0]}, status=200))
    second = queries_of(evt, lambda: evt.post("/checkin", {"ticket_code": codes[1], "event_id": event["id"]},
                                              status=200))
    assert first == second <= 10
