"""Where an event is shown: the platform's own public page, or a headless front end's URL."""
import json
import re


def json_ld(res):
    return json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', res.text, re.S).group(1))


def test_the_permalink_is_a_public_page_of_the_published_event(evt):
    venue = evt.venue("Hall </script>", address="Ring 1", city="Vienna", postal="1010", country="AT")
    event = evt.event("Gala <b>night</b>", venue_id=venue["id"], start_date="2031-05-01", start_time="19:30",
                      end_date="2031-05-01", end_time="23:00", content="<p>Dance &amp; dine</p>",
                      excerpt="A night out")
    assert event["permalink"] == f"http://localhost/events/{event['slug']}/"
    page = evt.app.get(f"/events/{event['slug']}/", status=200)
    assert page.content_type == "text/html"
    assert "<h1>Gala &lt;b&gt;night&lt;/b&gt;</h1>" in page.text and "Dance &amp; dine" in page.text
    assert "2031-05-01 19:30 - 2031-05-01 23:00" in page.text and "Hall &lt;/script&gt;" in page.text
    assert json_ld(page) == {
        "@context": "https://schema.org", "@type": "Event", "name": "Gala <b>night</b>",
        "startDate": "2031-05-01T19:30", "endDate": "2031-05-01T23:00",
        "eventStatus": "https://schema.org/EventScheduled", "description": "A night out",
        "url": f"http://localhost/events/{event['slug']}/",
        "location": {"@type": "Place", "name": "Hall </script>", "address": {
            "@type": "PostalAddress", "streetAddress": "Ring 1", "addressLocality": "Vienna", "postalCode": "1010",
            "addressCountry": "AT"}}}
    assert page.text.count("</script>") == 1  # the venue's name cannot end the JSON-LD element
    evt.put(f"/events/{event['id']}", {"status": "draft"}, status=200)
    evt.app.get(f"/events/{event['slug']}/", status=404)
    evt.app.get("/events/no-such-event/", status=404)


def test_a_headless_site_sets_where_events_are_shown(evt):
    event = evt.event("Gala", start_date="2031-05-01")
    listed = evt.get("/events").json  # kept by the list cache: the option must move it
    assert listed[0]["permalink"] == f"http://localhost/events/{event['slug']}/"
    evt.app.put_json("/api/store/v1/settings/general", {"events.permalink_base": "https://shop.example.com/e/"},
                     headers=evt.admin, status=200)
    want = f"https://shop.example.com/e/{event['slug']}/"
    assert evt.get(f"/events/{event['id']}").json["permalink"] == want
    assert evt.get("/events").json[0]["permalink"] == want
    month = evt.get("/calendar/range", params={"start": "2031-05-01", "end": "2031-05-31"}).json
    assert [e["url"] for e in month] == [want]
