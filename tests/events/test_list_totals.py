"""List totals kept per process by content generation: never older than the last committed
write, whichever process made it."""
from sqlalchemy import text
from zope.sqlalchemy import mark_changed

from storeplatform.testing import count_queries

from .conftest import Evt


def total(evt, path, **params):
    return int(evt.get(path, params=params).headers["X-Total"])


def test_a_total_follows_every_committed_write_of_any_process(evt, make_site):
    other = Evt.__new__(Evt)  # another process of the site: its own cache
    other.site = make_site(**{"storeplatform.plugins": "events"})
    other.app, other.admin = other.site.app, evt.admin
    venue = evt.venue("Hall")["id"]
    for n in range(3):
        evt.event(f"E{n}", venue_id=venue)
    assert total(evt, "/events") == 3 and total(evt, "/events", venue=venue) == 3
    assert evt.get("/venues").json[0]["event_count"] == 3
    created = other.event("From elsewhere", venue_id=venue)
    assert total(evt, "/events") == 4 and total(evt, "/events", venue=venue) == 4
    assert evt.get("/venues").json[0]["event_count"] == 4
    other.delete(f"/events/{created['id']}", status=200)  # trash: no longer published
    assert total(evt, "/events") == 3 and evt.get("/venues").json[0]["event_count"] == 3
    other.put(f"/events/{created['id']}", {"status": "publish"}, status=200)
    assert total(evt, "/events") == 4
    other.put(f"/events/{created['id']}", {"venue_id": 0}, status=200)
    assert total(evt, "/events", venue=venue) == 3 and evt.get("/venues").json[0]["event_count"] == 3


def test_a_change_of_categories_alone_moves_the_totals(evt):
    music = evt.category("Music")
    event = evt.event("Gig")
    assert total(evt, "/events", category=music) == 0
    evt.put(f"/events/{event['id']}", {"categories": [music]}, status=200)
    assert total(evt, "/events", category=music) == 1
    with evt.site.session() as s:  # a write outside REST (a plugin, an import): the database bumps
        s.execute(text("DELETE FROM post_terms"))
        mark_changed(s)
    assert total(evt, "/events", category=music) == 0


def test_a_failed_write_does_not_move_the_generation(evt):
    evt.event("One")
    with evt.site.session() as s:
        before = s.execute(text("SELECT value FROM generations WHERE name = 'content'")).scalar()
    evt.post("/events", {"title": "Bad", "venue_id": 999999}, status=400)
    with evt.site.session() as s:
        assert s.execute(text("SELECT value FROM generations WHERE name = 'content'")).scalar() == before


def test_a_repeated_public_list_is_answered_from_the_page_kept_for_its_generation(evt):
    for n in range(3):
        evt.event(f"E{n}")
    params = {"per_page": 2, "_embed": 1}
    first = evt.get("/events", params=params)
    with count_queries(evt.site.engine) as queries:
        again = evt.get("/events", params=params)
    assert again.body == first.body and again.headers["X-Total"] == "3"
    kept = queries()
    evt.put(f"/events/{first.json[0]['id']}", {"title": "Renamed"}, status=200)
    with count_queries(evt.site.engine) as queries:
        changed = evt.get("/events", params=params)
    assert changed.json[0]["title"] == "Renamed" and changed.headers["X-Total"] == "3"
    assert queries() > kept  # the count and the page, once, after the write
    # Another caller's view: a logged-in editor's list is built for them, not taken from the kept page.
    assert evt.get("/events", params=params, headers=evt.admin).json == changed.json


def test_a_filter_sees_every_object_of_every_list(evt3):
    evt = evt3
    venue = evt.venue("Hall")["id"]
    ids = [evt.event(f"E{n}", venue_id=venue)["id"] for n in range(3)]
    for _ in range(2):
        listed = evt.get("/events", params={"_embed": 1}).json
        assert sorted(e["thirdparty_badge"] for e in listed) == sorted(f"badge-{i}" for i in ids)
