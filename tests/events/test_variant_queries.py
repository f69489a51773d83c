"""The alternate variant's lists answer in a constant number of SQL queries (no N+1)."""
from storeplatform.testing import count_queries


def grow(alt, n):
    """``n`` more published events, each with its own venue, organizer and category, and a ticket."""
    for i in range(n):
        venue = alt.venue(f"V{i}")
        organizer = alt.organizer(f"O{i}")
        category = alt.category(f"C{i}-{venue['id']}")
        event = alt.event(f"E{i}", start_date=f"2031-03-{i % 28 + 1:02d}", venue=venue["id"],
                          organizer=organizer["id"], categories=[category])
        alt.tickets(event["id"], 1)


def queries_of(alt, path, **kw):
    with count_queries(alt.site.engine) as n:
        alt.get(path, **kw)
    return n()


def test_event_list_and_calendar_are_constant(alt):
    alt.site.headers_for("administrator")
    grow(alt, 2)
    small = [queries_of(alt, "/events?per_page=100"), queries_of(alt, "/events?per_page=100", headers=alt.admin),
             queries_of(alt, "/calendar?year=2031&month=3")]
    grow(alt, 10)
    big = [queries_of(alt, "/events?per_page=100"), queries_of(alt, "/events?per_page=100", headers=alt.admin),
           queries_of(alt, "/calendar?year=2031&month=3")]
    events = alt.get("/events?per_page=100").json
    assert len(events) == 12 and all(e["registered"] == 1 and e["venue"] and e["organizer"] for e in events)
    assert small == big and max(big) <= 10


def test_attendee_list_is_constant(alt):
    event = alt.event("Big")
    alt.tickets(event["id"], 2)
    path = f"/attendees?event_id={event['id']}&per_page=100&search=a"
    small = queries_of(alt, path, headers=alt.admin)
    alt.tickets(event["id"], 30)
    assert queries_of(alt, path, headers=alt.admin) == small <= 8
