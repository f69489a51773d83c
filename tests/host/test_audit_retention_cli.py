"""The audit log kept within the owner's bounds (#40): a periodic task (never a request) deletes
the entries older than ``audit.keep_days`` and the oldest beyond ``audit.max_entries``, both
options bounded; and ``storeplatform audit list`` reads the log with its filters."""
from datetime import datetime, timedelta, timezone

from sqlalchemy import insert

from storeplatform.components.audit.models import AuditEntry
from storeplatform.testing import assert_error

ENTRIES = "/api/audit/v1/entries"
PRUNE = "storeplatform.prune_audit_log"


def seed(site, ages):
    """One entry per age (a timedelta before now), subjects ``0``, ``1``... in that order."""
    now = datetime.now(timezone.utc)
    with site.session() as s:
        s.execute(insert(AuditEntry), [
            {"created_at": now - age, "actor_login": "system", "actor_id": None, "address": None, "kind": "test",
             "action": "seeded", "subject": str(n), "details": {}} for n, age in enumerate(ages)])


def subjects(site, kind="test"):
    res = site.app.get(ENTRIES, {"kind": kind, "per_page": 100}, headers=site.headers_for("administrator"))
    return int(res.headers["X-Total"]), [e["subject"] for e in res.json]


def test_old_entries_are_pruned_by_the_periodic_task_only(site):
    assert PRUNE in site.periodic_task_names()
    days = timedelta(days=1)
    seed(site, [400 * days, 366 * days, 364 * days, days])
    # Requests that write entries prune nothing: only the task does.
    site.app.put_json("/api/store/v1/settings/general", {"site.title": "Busy"},
                      headers=site.headers_for("administrator"), status=200)
    assert subjects(site) == (4, ["3", "2", "1", "0"])
    site.run_task(PRUNE)
    assert subjects(site) == (2, ["3", "2"])  # 365 days by default
    site.set_option("audit.keep_days", 30)
    site.run_task(PRUNE)
    assert subjects(site) == (1, ["3"])
    assert subjects(site, kind="settings")[0] == 2  # the changes of today stay


def test_the_oldest_entries_beyond_the_limit_are_pruned(site):
    site.set_option("audit.max_entries", 1000)  # itself an entry, the oldest
    seed(site, [timedelta(seconds=1200 - n) for n in range(1200)])
    site.run_task(PRUNE)
    total, newest = subjects(site)
    assert total == 1000 and newest[0] == "1199"
    res = site.app.get(ENTRIES, {"kind": "test", "per_page": 100, "page": 10},
                       headers=site.headers_for("administrator"))
    assert res.json[-1]["subject"] == "200"
    assert subjects(site, kind="settings")[0] == 0
    site.run_task(PRUNE)  # nothing more to do
    assert subjects(site)[0] == 1000


def test_the_retention_options_are_bounded(site):
    admin = site.headers_for("administrator")
    section = "/api/store/v1/settings/security"
    for key, value in (("audit.keep_days", 0), ("audit.keep_days", 3651), ("audit.max_entries", 999),
                       ("audit.max_entries", 1_000_001), ("audit.keep_days", "forever")):
        body = assert_error(site.app.put_json(section, {key: value}, headers=admin, status=400), 400,
                            "rest_invalid_param")
        assert set(body["data"]["params"]) == {key}
    site.app.put_json(section, {"audit.keep_days": 90, "audit.max_entries": 5000}, headers=admin, status=200)
    values = {o["id"]: o["value"] for o in site.app.get(section, headers=admin).json}
    assert (values["audit.keep_days"], values["audit.max_entries"]) == (90, 5000)


def test_audit_list_on_the_command_line(cli):
    site = cli.site
    cli("user", "create", "alice", "--role", "editor")
    site.app.put_json("/api/store/v1/settings/general", {"site.title": "Shell & web"},
                      headers=site.headers_for("administrator"), status=200)
    lines = cli("audit", "list").stdout.splitlines()
    assert lines[0].split() == ["ID", "TIME", "USER", "ADDRESS", "KIND", "ACTION", "SUBJECT", "DETAILS"]
    assert len(lines) == 3
    newest, oldest = lines[1], lines[2]
    today = datetime.now(timezone.utc).date().isoformat()  # the site's time zone is UTC
    assert newest.split()[1] == today and "administrator (#" in newest and "127.0.0.1" in newest
    assert ' settings  changed  site.title  {"old":"Storeplatform Demo Store","new":"Shell & web"}' in newest
    assert oldest.split()[3:8] == ["cli", "-", "users", "created", "alice"]
    assert oldest.split()[8].endswith(',"role":"editor","email":""}')
    assert len(cli("audit", "list", "--user", "cli").stdout.splitlines()) == 2
    assert len(cli("audit", "list", "--kind", "settings", "--action", "changed").stdout.splitlines()) == 2
    assert len(cli("audit", "list", "--since", today, "--until", today).stdout.splitlines()) == 3
    tomorrow = (datetime.now(timezone.utc).date() + timedelta(days=1)).isoformat()
    assert cli("audit", "list", "--since", tomorrow).stdout == \
        "ID  TIME  USER  ADDRESS  KIND  ACTION  SUBJECT  DETAILS\n"
    assert len(cli("audit", "list", "--limit", "1").stdout.splitlines()) == 2
    for args, message in ((("--since", "yesterday"), "--since must be a date as YYYY-MM-DD, not 'yesterday'"),
                          (("--until", "0001-01-01"), "--until must be a day from 1970-01-01 to 9998-12-31"),
                          (("--since", tomorrow, "--until", today), "--since must not be after --until"),
                          (("--limit", "0"), "--limit must be an integer from 1 to 1000, not '0'")):
        proc = cli("audit", "list", *args, ok=False)
        assert proc.returncode == 1 and proc.stdout == ""
        assert proc.stderr.strip() == f"storeplatform: error: {message}", proc.stderr
