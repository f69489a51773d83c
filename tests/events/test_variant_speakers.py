"""Speakers of the alternate variant: public read of published speakers, writes with the
capabilities of venues and organizers, their actions and filter, the generic error codes."""
import pytest

from storeplatform.api import hookimpl
from storeplatform.testing import assert_error, count_queries

from .conftest import ALTERNATE, Evt

SPEAKER_KEYS = {"id", "name", "slug", "status", "bio", "job_title", "company", "email", "website", "photo",
                "date_created", "date_modified", "_links"}


def test_speaker_crud(alt):
    res = alt.post("/speakers", {"name": "Ada Lovelace", "bio": "<p>Analyst</p>", "job_title": "Analyst",
                                 "company": "Engines Ltd", "email": "ada@example.com",
                                 "website": "https://ada.example", "photo": "https://ada.example/a.png"}, status=201)
    speaker = res.json
    assert res.headers["Location"] == f"http://localhost/api/events/v1/speakers/{speaker['id']}"
    assert set(speaker) == SPEAKER_KEYS
    assert (speaker["name"], speaker["slug"], speaker["status"], speaker["bio"]) == (
        "Ada Lovelace", "ada-lovelace", "publish", "<p>Analyst</p>")
    assert speaker["_links"]["self"] == [{"href": f"http://localhost/api/events/v1/speakers/{speaker['id']}"}]
    assert alt.get(f"/speakers/{speaker['id']}").json == speaker
    updated = alt.put(f"/speakers/{speaker['id']}", {"company": "Babbage & Co", "bio": "New"}, status=200).json
    assert (updated["company"], updated["bio"], updated["job_title"]) == ("Babbage & Co", "New", "Analyst")
    res = alt.delete(f"/speakers/{speaker['id']}", status=200).json
    assert res == {"deleted": True, "previous": updated}
    assert alt.get("/speakers").json == []
    assert alt.get(f"/speakers/{speaker['id']}", headers=alt.admin).json["status"] == "trash"
    assert alt.delete(f"/speakers/{speaker['id']}?force=true", status=200).json["deleted"] is True
    assert_error(alt.get(f"/speakers/{speaker['id']}", headers=alt.admin, status=404), 404, "rest_not_found")


def test_public_read_of_published_speakers_only(alt):
    alt.post("/speakers", {"name": "Grace"}, status=201)
    draft = alt.post("/speakers", {"name": "Hidden", "status": "draft"}, status=201).json
    assert [s["name"] for s in alt.get("/speakers").json] == ["Grace"]
    assert_error(alt.get(f"/speakers/{draft['id']}", status=401), 401, "rest_forbidden")
    assert_error(alt.get(f"/speakers/{draft['id']}", headers=alt.site.headers_for("subscriber"), status=403), 403,
                 "rest_forbidden")
    assert alt.get(f"/speakers/{draft['id']}", headers=alt.admin).json["status"] == "draft"
    published = alt.put(f"/speakers/{draft['id']}", {"status": "publish"}, status=200).json
    assert alt.get(f"/speakers/{published['id']}").json["name"] == "Hidden"


def test_list_search_sort_and_pages(alt):
    for name, company in (("Zoe", "Acme"), ("Ada", "Engines"), ("Max", "Acme Labs")):
        alt.post("/speakers", {"name": name, "company": company, "job_title": "Speaker"}, status=201)
    assert [s["name"] for s in alt.get("/speakers").json] == ["Ada", "Max", "Zoe"]
    assert [s["name"] for s in alt.get("/speakers", params={"search": "acme"}).json] == ["Max", "Zoe"]
    assert [s["name"] for s in alt.get("/speakers", params={"search": "ada"}).json] == ["Ada"]
    res = alt.get("/speakers", params={"per_page": 2, "page": 2})
    assert [s["name"] for s in res.json] == ["Zoe"] and res.headers["X-Total"] == "3"
    assert res.headers["X-TotalPages"] == "2"
    assert_error(alt.get("/speakers", params={"per_page": 0}, status=400), 400, "rest_invalid_param")


def test_writes_need_the_capabilities_of_venues_and_organizers(alt):
    body = {"name": "Ada"}
    assert_error(alt.post("/speakers", body, headers={}, status=401), 401, "rest_cannot_create")
    assert_error(alt.post("/speakers", body, headers=alt.site.headers_for("subscriber"), status=403), 403,
                 "rest_cannot_create")
    # A contributor may submit a speaker for review, not publish one.
    contributor = alt.site.headers_for("contributor")
    assert_error(alt.post("/speakers", body, headers=contributor, status=403), 403, "rest_cannot_create")
    pending = alt.post("/speakers", {**body, "status": "pending"}, headers=contributor, status=201).json
    assert_error(alt.put(f"/speakers/{pending['id']}", {"status": "publish"}, headers=contributor, status=403),
                 403, "rest_forbidden")
    speaker = alt.post("/speakers", body, status=201).json
    author = alt.site.headers_for("author")
    assert_error(alt.put(f"/speakers/{speaker['id']}", body, headers={}, status=401), 401, "rest_forbidden")
    assert_error(alt.put(f"/speakers/{speaker['id']}", body, headers=author, status=403), 403, "rest_forbidden")
    assert_error(alt.delete(f"/speakers/{speaker['id']}", headers=author, status=403), 403, "rest_forbidden")
    assert alt.put(f"/speakers/{speaker['id']}", body, headers=alt.site.headers_for("editor"), status=200)
    own = alt.post("/speakers", body, headers=author, status=201).json
    assert alt.delete(f"/speakers/{own['id']}", headers=author, status=200).json["deleted"] is True


@pytest.mark.parametrize("body,param", [
    ({}, "name"), ({"name": "  "}, "name"), ({"name": 5}, "name"), ({"name": "x", "email": "nope"}, "email"),
    ({"name": "x", "website": "ftp://x"}, "website"), ({"name": "x", "photo": "x"}, "photo"),
    ({"name": "x", "status": "trash"}, "status"), ({"name": "x", "job_title": "j" * 201}, "job_title"),
])
def test_bad_speaker_bodies(alt, body, param):
    res = assert_error(alt.post("/speakers", body, status=400), 400, "rest_invalid_param")
    assert param in res["data"]["params"]
    assert alt.get("/speakers").headers["X-Total"] == "0"


def test_unknown_speakers_are_rest_not_found(alt):
    for method in (alt.get, alt.put, alt.delete):
        assert_error(method("/speakers/999999", status=404), 404, "rest_not_found")
    event = alt.event("Not a speaker")
    assert_error(alt.get(f"/speakers/{event['id']}", status=404), 404, "rest_not_found")
    speaker = alt.post("/speakers", {"name": "Ada"}, status=201).json
    assert_error(alt.get(f"/events/{speaker['id']}", status=404), 404, "rest_not_found")


class SpeakerHooks:
    def __init__(self):
        self.calls = []

    @hookimpl
    def evt_rest_speaker_created(self, post_id, request):
        self.calls.append(("created", post_id, request is not None))

    @hookimpl
    def evt_rest_speaker_updated(self, post_id, request):
        self.calls.append(("updated", post_id, request is not None))

    @hookimpl
    def evt_rest_speaker_deleted(self, post_id, force):
        self.calls.append(("deleted", post_id, force))

    @hookimpl
    def evt_topic_announced(self, topic, object_id):
        self.calls.append((topic, object_id))

    @hookimpl
    def evt_rest_prepare_speaker(self, data, post, request):
        data["badge"] = f"speaker-{post.id}"
        return data


def test_speaker_actions_fire_once_per_change_and_the_filter_runs_everywhere(make_site):
    hooks = SpeakerHooks()
    alt = Evt(make_site(plugins=[hooks], **ALTERNATE))
    speaker = alt.post("/speakers", {"name": "Ada"}, status=201).json
    sid = speaker["id"]
    assert speaker["badge"] == f"speaker-{sid}"
    assert alt.get(f"/speakers/{sid}").json["badge"] == f"speaker-{sid}"
    assert alt.get("/speakers").json[0]["badge"] == f"speaker-{sid}"
    assert alt.put(f"/speakers/{sid}", {"bio": "x"}, status=200).json["badge"] == f"speaker-{sid}"
    alt.post("/speakers", {"name": "x", "email": "bad"}, status=400)  # refused: nothing fires
    assert alt.delete(f"/speakers/{sid}", status=200).json["previous"]["badge"] == f"speaker-{sid}"
    alt.delete(f"/speakers/{sid}", status=200)  # already in the trash: nothing changes
    alt.delete(f"/speakers/{sid}?force=true", status=200)
    assert hooks.calls == [("created", sid, True), ("speaker.created", sid), ("updated", sid, True),
                           ("speaker.updated", sid), ("deleted", sid, False), ("speaker.deleted", sid),
                           ("deleted", sid, True), ("speaker.deleted", sid)]


def test_speaker_list_is_constant_in_queries(alt):
    alt.site.headers_for("administrator")

    def queries():
        with count_queries(alt.site.engine) as n:
            alt.get("/speakers?per_page=100", headers=alt.admin)
        return n()

    for i in range(2):
        alt.post("/speakers", {"name": f"S{i}"}, status=201)
    small = queries()
    for i in range(12):
        alt.post("/speakers", {"name": f"T{i}"}, status=201)
    assert small == queries()
