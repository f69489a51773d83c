"""audit/v1 (#40): the audit log over REST, administrators only: filters (who acted, kind, action,
local days), paging headers as every list, one entry, bad parameters refused with the one error
body; the namespace in the schema index and the OpenAPI document."""
from datetime import datetime, timedelta, timezone

from sqlalchemy import insert

from storeplatform.components.audit.models import AuditEntry
from storeplatform.testing import assert_error

ENTRIES = "/api/audit/v1/entries"


def seed(site, rows):
    """Entries as they would have been written: ``(at, login, user_id, kind, action)``."""
    with site.session() as s:
        s.execute(insert(AuditEntry), [
            {"created_at": at, "actor_login": login, "actor_id": user_id, "address": "192.0.2.1", "kind": kind,
             "action": action, "subject": f"thing {n}", "details": {"n": n}}
            for n, (at, login, user_id, kind, action) in enumerate(rows)])


def ids(res):
    return [e["details"]["n"] for e in res.json]


NOW = datetime.now(timezone.utc).replace(microsecond=0)


def test_the_list_filters_and_pages_newest_first(site):
    admin = site.headers_for("administrator")
    day = timedelta(days=1)
    seed(site, [(NOW - 3 * day, "alice", 7, "users", "created"),
                (NOW - 2 * day, "cli", None, "settings", "changed"),
                (NOW - 2 * day, "alice", 7, "credentials", "app_password_created"),
                (NOW - day, "bob", 8, "users", "role_changed"),
                (NOW, "system", None, "settings", "changed")])
    res = site.app.get(ENTRIES, headers=admin, status=200)
    assert ids(res) == [4, 3, 2, 1, 0] and res.headers["X-Total"] == "5" and res.headers["X-TotalPages"] == "1"
    first = res.json[-1]
    assert first == {"id": first["id"], "date": (NOW - 3 * day).isoformat(), "user_id": 7, "user": "alice",
                     "address": "192.0.2.1", "kind": "users", "action": "created", "subject": "thing 0",
                     "details": {"n": 0},
                     "_links": {"self": [{"href": f"http://localhost{ENTRIES}/{first['id']}"}]}}
    assert ids(site.app.get(ENTRIES, {"user": "alice"}, headers=admin)) == [2, 0]
    assert ids(site.app.get(ENTRIES, {"user_id": 8}, headers=admin)) == [3]
    assert ids(site.app.get(ENTRIES, {"user": "cli"}, headers=admin)) == [1]
    assert ids(site.app.get(ENTRIES, {"kind": "settings"}, headers=admin)) == [4, 1]
    assert ids(site.app.get(ENTRIES, {"kind": "users", "action": "role_changed"}, headers=admin)) == [3]
    assert ids(site.app.get(ENTRIES, {"kind": "", "user": ""}, headers=admin)) == [4, 3, 2, 1, 0]  # empty: no filter
    today = NOW.date()
    assert ids(site.app.get(ENTRIES, {"since": (today - timedelta(days=2)).isoformat()}, headers=admin)) == [4, 3, 2, 1]
    assert ids(site.app.get(ENTRIES, {"until": (today - timedelta(days=2)).isoformat()}, headers=admin)) == [2, 1, 0]
    same = (today - timedelta(days=2)).isoformat()
    assert ids(site.app.get(ENTRIES, {"since": same, "until": same}, headers=admin)) == [2, 1]
    page = site.app.get(ENTRIES, {"per_page": 2, "page": 2, "kind": "", "user": ""}, headers=admin)
    assert ids(page) == [2, 1] and page.headers["X-Total"] == "5" and page.headers["X-TotalPages"] == "3"
    assert page.headers["Link"] == (f'<http://localhost{ENTRIES}?per_page=2&kind=&user=&page=1>; rel="prev", '
                                    f'<http://localhost{ENTRIES}?per_page=2&kind=&user=&page=3>; rel="next"')
    assert site.app.get(ENTRIES, {"page": 9}, headers=admin).json == []


def test_days_are_the_sites_local_days(site):
    admin = site.headers_for("administrator")
    site.set_option("site.timezone", "Asia/Tokyo")  # UTC+9: 20:00 UTC is the next day there
    seed(site, [(datetime(2030, 5, 1, 20, 0, tzinfo=timezone.utc), "alice", 7, "users", "created")])
    local = {"since": "2030-05-02", "until": "2030-05-02"}
    assert ids(site.app.get(ENTRIES, {**local, "kind": "users"}, headers=admin)) == [0]
    assert ids(site.app.get(ENTRIES, {"until": "2030-05-01", "kind": "users"}, headers=admin)) == []


def test_one_entry_and_its_404(site):
    admin = site.headers_for("administrator")
    seed(site, [(NOW, "alice", 7, "users", "created")])
    entry_id = site.app.get(ENTRIES, headers=admin).json[0]["id"]
    assert site.app.get(f"{ENTRIES}/{entry_id}", headers=admin).json["subject"] == "thing 0"
    for missing in (entry_id + 1, 0, "9" * 30):
        assert_error(site.app.get(f"{ENTRIES}/{missing}", headers=admin, status=404), 404, "audit_entry_invalid_id")


def test_bad_parameters_are_refused_with_the_error_body(site):
    admin = site.headers_for("administrator")
    for params, bad in (({"per_page": 0}, "per_page"), ({"per_page": 101}, "per_page"), ({"page": "x"}, "page"),
                        ({"user_id": 0}, "user_id"), ({"user_id": "me"}, "user_id"),
                        ({"user_id": 2**31}, "user_id"), ({"since": "2030-13-01"}, "since"),
                        ({"since": "yesterday"}, "since"), ({"until": "0001-01-01"}, "until"),
                        ({"since": "9999-12-31"}, "since"), ({"kind": "k" * 65}, "kind"),
                        ({"user": "u" * 192}, "user"), ({"action": "a" * 65}, "action"),
                        ({"since": "2030-05-02", "until": "2030-05-01"}, "until")):
        res = site.app.get(ENTRIES, params, headers=admin, status=400)
        body = assert_error(res, 400, "rest_invalid_param")
        assert set(body["data"]["params"]) == {bad}, (params, body)
    assert_error(site.app.get(ENTRIES + "?user=%00", headers=admin, status=400), 400, "rest_invalid_param")


def test_only_administrators_read_it(site):
    assert_error(site.app.get(ENTRIES, status=401), 401, "rest_not_logged_in")
    for role in ("shop_manager", "editor", "customer"):
        assert_error(site.app.get(ENTRIES, headers=site.headers_for(role), status=403), 403, "rest_forbidden")
        assert_error(site.app.get(f"{ENTRIES}/1", headers=site.headers_for(role), status=403), 403, "rest_forbidden")
    site.app.get(ENTRIES, headers=site.headers_for("administrator"), status=200)


def test_the_namespace_is_in_the_index_and_the_openapi_document(site):
    assert "audit/v1" in site.app.get("/api/").json["namespaces"]
    index = site.app.get("/api/audit/v1/").json
    assert set(index["routes"]) == {"/audit/v1/entries", "/audit/v1/entries/{id}"}
    endpoint = index["routes"]["/audit/v1/entries"]["endpoints"][0]
    assert endpoint["permission"] == "view_audit_log"
    assert {"user", "user_id", "kind", "action", "since", "until", "page", "per_page"} <= set(endpoint["args"])
    doc = site.app.get("/api/openapi.json").json
    operation = doc["paths"]["/audit/v1/entries"]["get"]
    assert operation["tags"] == ["audit/v1"] and operation["description"] == "Needs the capability view_audit_log."
    assert {p["name"] for p in operation["parameters"]} >= {"user", "kind", "since", "until"}
    assert "/audit/v1/entries/{id}" in doc["paths"]
