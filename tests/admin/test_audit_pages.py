"""The admin's Audit log page (WebTest, #40): what the admin's own forms change is listed with who,
when (the site's time zone) and from where; filtered by user, kind and days, paged, exported as
CSV; administrators only. A refused form leaves no entry."""
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from sqlalchemy import insert

from storeplatform.components.audit.models import AuditEntry

from .helpers import PASSWORD, assert_page, login


def rows(page):
    return [(tr.select_one("td[data-label=User] a").text, tr.select_one("td[data-label=Kind]").text.strip(),
             tr.select_one("td[data-label=Action]").text, tr.select_one("td[data-label=Subject]").text)
            for tr in page.html.select("#audit tbody tr")]


def admin_site(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    return site


def test_the_admins_own_changes_are_listed_with_who_when_and_where(make_site):
    site = admin_site(make_site)
    form = site.app.get("/admin/settings/general").forms["settings-form"]
    form["site.title"] = "Boss's shop"
    form["site.timezone"] = "Europe/Vienna"
    form.submit(status=303)
    form = site.app.get("/admin/users/new").forms["user-new-form"]
    form["login"], form["role"], form["email"] = "ann", "customer", "ann@example.com"
    form["password"] = PASSWORD
    form.submit(status=303)
    # A refused form (the e-mail is no address) writes nothing, its entry neither.
    ann = site.app.get("/admin/users?search=ann").html.select_one("#users tbody tr")["data-id"]
    form = site.app.get(f"/admin/users/{ann}").forms["user-form"]
    form["email"] = "not an address"
    form.submit(status=400)
    page = assert_page(site.app.get("/admin/audit"), 200, "1–3 of 3 entries.")
    assert rows(page) == [("boss", "users", "created", "ann"), ("boss", "settings", "changed", "site.timezone"),
                          ("boss", "settings", "changed", "site.title")]
    first = page.html.select_one("#audit tbody tr")
    assert first.select_one("td[data-label=Address]").text == "127.0.0.1"
    assert '"role":"customer"' in first.select_one("td[data-label=Details]").text
    # Shown in the site's time zone (Vienna is an hour or two ahead of UTC).
    shown = datetime.strptime(first.select_one("td[data-label=Time]").text, "%Y-%m-%d %H:%M:%S")
    vienna_now = datetime.now(timezone.utc).astimezone(ZoneInfo("Europe/Vienna"))
    assert abs(vienna_now.replace(tzinfo=None) - shown) < timedelta(minutes=5)
    assert "Europe/Vienna" in page.text
    # The nav names the page for administrators.
    assert '>Audit log</a>' in page.text


def test_filters_paging_and_the_export(make_site):
    site = admin_site(make_site)
    now = datetime.now(timezone.utc)
    with site.session() as s:
        s.execute(insert(AuditEntry), [
            {"created_at": now - timedelta(days=10 if n < 5 else 0, seconds=60 - n),
             "actor_login": "ann" if n % 2 else "cli", "actor_id": 9 if n % 2 else None,
             "address": "192.0.2.1" if n % 2 else None,
             "kind": "settings" if n < 55 else "users", "action": "changed", "subject": f"s{n}",
             "details": {"old": f"=cmd|{n}", "new": n}} for n in range(60)])
    page = assert_page(site.app.get("/admin/audit"), 200, "1–50 of 60 entries.")
    assert rows(page)[0] == ("ann", "users", "changed", "s59")
    second = assert_page(page.click("Next"), 200, "51–60 of 60 entries.")
    assert rows(second)[-1] == ("cli", "settings", "changed", "s0")
    assert_page(site.app.get("/admin/audit", {"user": "ann"}), 200, "1–30 of 30 entries found.")
    assert_page(site.app.get("/admin/audit", {"kind": "users"}), 200, "1–5 of 5 entries found.")
    assert_page(site.app.get("/admin/audit", {"kind": "users", "user": "ann"}), 200, "1–3 of 3 entries found.")
    today = now.date()  # the site's time zone is UTC
    old = (today - timedelta(days=10)).isoformat()
    assert_page(site.app.get("/admin/audit", {"from": today.isoformat()}), 200, "1–50 of 55 entries found.")
    assert_page(site.app.get("/admin/audit", {"to": old}), 200, "1–5 of 5 entries found.")
    tomorrow = (today + timedelta(days=1)).isoformat()
    assert_page(site.app.get("/admin/audit", {"from": tomorrow}), 200, "No entry matches.")
    # A user's name on the page filters by them.
    ann = next(a for a in page.html.select("#audit td[data-label=User] a") if a.text == "ann")
    assert_page(site.app.get(ann["href"]), 200, "1–30 of 30 entries found.")
    for query, problem in (("from=2030-02-30", "from must be a date as YYYY-MM-DD"),
                           ("from=2030-05-02&to=2030-05-01", "from must not be after to"),
                           ("to=0001-01-01", "to must be a day from 1970-01-01 to 9998-12-31"),
                           ("page=0", "page must be a whole number"), ("user=%00", "NUL")):
        assert_page(site.app.get(f"/admin/audit?{query}", status=400), 400, problem)

    res = site.app.get("/admin/audit/export.csv", {"user": "ann", "to": old})
    assert res.content_type == "text/csv" and "audit-log-" in res.headers["Content-Disposition"]
    lines = res.body.decode("utf-8-sig").split("\r\n")
    assert lines[0] == "id,time,user_id,user,address,kind,action,subject,details"
    assert len(lines) == 2 + 2  # two entries of ann before today, and the last line end
    cells = lines[1].split(",", 8)
    assert cells[2:8] == ["9", "ann", "192.0.2.1", "settings", "changed", "s3"]
    assert cells[8] == '"{""old"":""=cmd|3"",""new"":3}"'
    assert site.app.get("/admin/audit/export.csv").body.decode("utf-8-sig").count("\r\n") == 61


def test_only_administrators_see_the_page(make_site):
    site = make_site()
    assert site.app.get("/admin/audit", status=303).location.startswith("http://localhost/admin/login")
    login(site, "manager", role="shop_manager")
    for path in ("/admin/audit", "/admin/audit/export.csv"):
        assert_page(site.app.get(path, status=403), 403, "may not use this page")
    assert ">Audit log</a>" not in assert_page(site.app.get("/admin/"), 200, "Dashboard").text
