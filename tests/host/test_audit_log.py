"""The audit log records (#40): every administrative change (users, credentials, site options,
webhooks, a plugin's own) leaves exactly one entry naming who made it (the user as they were, or
cli/system), from which address (a trusted proxy's client too), its kind, action, subject and
details; a change rolled back leaves none; no secret is ever written. Read back through the
public REST list (tests/host/test_audit_rest.py checks the list itself)."""
import json

import colander
import pytest

from storeplatform.api import (InvalidParams, OptionSpec, Service, audit, hookimpl, set_option)

API = "/api/store/v1"
ENTRIES = "/api/audit/v1/entries"


def entries(site, **params):
    """Every entry (newest first) the REST list gives for ``params``."""
    params.setdefault("per_page", 100)
    return site.app.get(ENTRIES, params=params, headers=site.headers_for("administrator")).json


def one(site, **params):
    found = entries(site, **params)
    assert len(found) == 1, found
    return found[0]


def user_id(site, login):
    found = site.app.get(f"{API}/users", params={"search": login}, headers=site.headers_for("administrator")).json
    return found[0]["id"]


def test_each_change_of_a_user_over_rest_is_one_entry_naming_who_and_from_where(site):
    admin = site.headers_for("administrator")
    admin_id = user_id(site, "administrator")
    res = site.app.post_json(f"{API}/users", {"login": "carol", "role": "customer", "email": "c@example.com",
                                              "password": "first-password"}, headers=admin, status=201)
    carol = res.json["id"]
    created = one(site)
    assert {k: created[k] for k in ("user_id", "user", "address", "kind", "action", "subject")} == {
        "user_id": admin_id, "user": "administrator", "address": "127.0.0.1", "kind": "users", "action": "created",
        "subject": "carol"}
    assert created["details"] == {"user_id": carol, "role": "customer", "email": "c@example.com"}

    steps = [
        ({"email": "carol@example.com", "name": "carol"}, "changed",  # the name is unchanged: not named
         {"user_id": carol, "email": {"old": "c@example.com", "new": "carol@example.com"}}),
        ({"role": "shop_manager"}, "role_changed",
         {"user_id": carol, "old": "customer", "new": "shop_manager", "sessions_ended": 0}),
        ({"password": "second-password"}, "password_reset", {"user_id": carol, "sessions_ended": 0}),
        ({"disabled": True}, "disabled",
         {"user_id": carol, "sessions_ended": 0, "app_passwords_revoked": 0, "consumer_keys_revoked": 0}),
        ({"disabled": False}, "enabled", {"user_id": carol}),
    ]
    for count, (body, action, details) in enumerate(steps, start=2):
        site.app.put_json(f"{API}/users/{carol}", body, headers=admin, status=200)
        found = entries(site)
        assert len(found) == count, found
        assert (found[0]["action"], found[0]["subject"], found[0]["details"]) == (action, "carol", details)
        assert (found[0]["user"], found[0]["user_id"], found[0]["kind"]) == ("administrator", admin_id, "users")
    # Saving what is already there changes nothing and records nothing.
    site.app.put_json(f"{API}/users/{carol}", {"email": "carol@example.com", "role": "shop_manager"}, headers=admin)
    assert len(entries(site)) == 6
    site.app.delete(f"{API}/users/{carol}?force=true", headers=admin, status=200)
    deleted = one(site, action="deleted")
    assert deleted["details"] == {"user_id": carol, "role": "shop_manager", "posts": 0, "reassigned_to": None,
                                  "orders": 0}
    # Nothing of the passwords was written.
    text = json.dumps(entries(site))
    assert "first-password" not in text and "second-password" not in text


def test_ones_own_password_change_and_credentials(site):
    site.create_user("ed", "editor", password="old-password")
    ed = site.headers_for("ed")
    ed_id = user_id(site, "ed")
    site.app.put_json(f"{API}/users/{ed_id}", {"password": "new-password", "current_password": "old-password"},
                      headers=ed, status=200)
    changed = one(site)
    assert (changed["action"], changed["user"], changed["user_id"], changed["subject"]) == (
        "password_changed", "ed", ed_id, "ed")
    created = site.app.post_json(f"{API}/users/me/app-passwords", {"name": "phone"}, headers=ed, status=201).json
    entry = one(site, kind="credentials")
    assert (entry["action"], entry["user"], entry["subject"]) == ("app_password_created", "ed", "ed")
    assert entry["details"] == {"user_id": ed_id, "id": created["id"], "name": "phone"}
    site.app.delete(f"{API}/users/me/app-passwords/{created['id']}", headers=ed, status=200)
    assert one(site, action="app_password_revoked")["details"] == {"user_id": ed_id, "id": created["id"],
                                                                    "name": "phone"}
    site.app.delete(f"{API}/users/{ed_id}/sessions", headers=site.headers_for("administrator"), status=200)
    ended = one(site, action="sessions_revoked")
    assert (ended["user"], ended["subject"], ended["details"]) == ("administrator", "ed",
                                                                    {"user_id": ed_id, "sessions": 0})
    text = json.dumps(entries(site))
    assert created["password"] not in text and created["password"].replace(" ", "") not in text
    assert "new-password" not in text and "old-password" not in text
    assert len(entries(site)) == 4


def test_a_change_refused_or_rolled_back_leaves_no_entry(site):
    admin = site.headers_for("administrator")
    admin_id = user_id(site, "administrator")
    # Refused by the rules: the last administrator keeps their role.
    site.app.put_json(f"{API}/users/{admin_id}", {"role": "editor"}, headers=admin, status=403)
    # Every value checked before any is written, the transaction aborted with the error.
    site.app.put_json(f"{API}/settings/general", {"site.title": "Changed", "site.timezone": "Mars/Olympus"},
                      headers=admin, status=400)
    assert entries(site) == []


def test_an_entry_written_in_a_transaction_that_rolls_back_goes_with_it(make_site):
    """The change and its entry are one transaction: a view that sets an option, which reports
    it, and then fails, leaves neither."""
    site = make_site(plugins=[Secretive()])
    admin = site.headers_for("administrator")
    site.app.post_json("/api/secretive/v1/title", {"title": "Kept", "fail": True}, headers=admin, status=400)
    assert entries(site) == []
    assert site.app.get(f"{API}/settings/general", headers=admin).json[0]["value"] == "Storeplatform Demo Store"
    site.app.post_json("/api/secretive/v1/title", {"title": "Kept", "fail": False}, headers=admin, status=200)
    assert one(site)["details"] == {"old": "Storeplatform Demo Store", "new": "Kept"}


def test_each_option_changed_is_an_entry_with_its_old_and_new_value(site, cli):
    admin = site.headers_for("administrator")
    site.app.put_json(f"{API}/settings/general", {"site.title": "Corner Shop", "site.timezone": "UTC"},
                      headers=admin, status=200)
    entry = one(site, kind="settings")  # the time zone was UTC already: not a change
    assert (entry["action"], entry["subject"], entry["user"], entry["address"]) == (
        "changed", "site.title", "administrator", "127.0.0.1")
    assert entry["details"] == {"old": "Storeplatform Demo Store", "new": "Corner Shop"}
    site.app.put_json(f"{API}/settings/store", {"store.decimals": 3}, headers=admin, status=200)
    decimals = entries(site, kind="settings")[0]
    assert (decimals["subject"], decimals["details"]) == ("store.decimals", {"old": 2, "new": 3})
    cli("option", "set", "site.title", "From the shell")
    by_cli = entries(site, user="cli")
    assert len(by_cli) == 1 and by_cli[0]["user_id"] is None and by_cli[0]["address"] is None
    assert by_cli[0]["details"] == {"old": "Corner Shop", "new": "From the shell"}
    # Outside a request and the command line (a task, a script's own transaction): the system.
    site.set_option("site.title", "By a task")
    assert entries(site, user="system")[0]["details"] == {"old": "From the shell", "new": "By a task"}


def test_a_secret_options_value_is_never_written(make_site):
    site = make_site(plugins=[Secretive()])
    admin = site.headers_for("administrator")
    site.app.put_json(f"{API}/settings/secretive", {"secretive.api_key": "sk-live-0123456789"}, headers=admin,
                      status=200)
    entry = one(site)
    assert (entry["kind"], entry["subject"], entry["details"]) == (
        "settings", "secretive.api_key", {"old": "[hidden]", "new": "[hidden]"})
    site.app.put_json(f"{API}/settings/secretive", {"secretive.api_key": "sk-live-9876543210"}, headers=admin)
    assert len(entries(site)) == 2
    text = json.dumps(entries(site))
    assert "sk-live" not in text


def test_a_plugin_reports_through_the_api_and_secret_details_are_hidden(make_site):
    site = make_site(plugins=[Secretive()])
    admin = site.headers_for("administrator")
    site.app.post_json("/api/secretive/v1/rotate", {}, headers=admin, status=200)
    entry = one(site)
    assert {k: entry[k] for k in ("user", "address", "kind", "action", "subject")} == {
        "user": "administrator", "address": "127.0.0.1", "kind": "plugin:secretive", "action": "key_rotated",
        "subject": "signing key"}
    assert entry["details"] == {"api_key": "[hidden]", "generation": 2, "note": "x" * 299 + "…"}
    with site.session() as s:
        audit(s, "plugin:secretive", "swept", "", {"kept": [1, 2]})
    assert (entries(site)[0]["user"], entries(site)[0]["details"]) == ("system", {"kept": [1, 2]})
    with site.session() as s, pytest.raises(ValueError, match="kind must match"):
        audit(s, "Not A Kind", "x")


@pytest.mark.in_process  # another REMOTE_ADDR
def test_the_address_is_the_clients_behind_a_trusted_proxy(make_site):
    site = make_site(**{"storeplatform.trusted_proxies": "10.0.0.0/8"})
    admin = site.headers_for("administrator")
    behind = {"REMOTE_ADDR": "10.1.2.3"}
    site.app.put_json(f"{API}/settings/general", {"site.title": "Proxied"}, headers={
        **admin, "X-Forwarded-For": "198.51.100.4, 203.0.113.9"}, extra_environ=behind)
    assert one(site)["address"] == "203.0.113.9"
    # From an address the site does not trust, the header is what the client wrote: ignored.
    site.app.put_json(f"{API}/settings/general", {"site.title": "Direct"}, headers={
        **admin, "X-Forwarded-For": "203.0.113.9"}, extra_environ={"REMOTE_ADDR": "192.0.2.7"})
    assert entries(site)[0]["address"] == "192.0.2.7"


def test_the_command_line_changes_are_the_clis(cli):
    site = cli.site
    cli("user", "create", "dave", "--role", "customer", "--email", "d@example.com")
    cli("user", "set-role", "dave", "editor")
    cli("user", "set-password", "dave", stdin="cli-password\n")
    cli("user", "disable", "dave")
    cli("user", "enable", "dave")
    password = cli("user", "app-password", "create", "dave", "--name", "shell").stdout.strip()
    cli("user", "app-password", "revoke", "dave", "--all")
    key, secret = cli("consumer-key", "create", "dave", "--permissions", "read").stdout.split()
    key_id = cli("consumer-key", "list", "dave").stdout.splitlines()[1].split()[0]
    cli("consumer-key", "revoke", key_id)
    cli("user", "sessions", "end", "dave")
    cli("user", "delete", "dave")
    found = list(reversed(entries(site)))
    assert [(e["kind"], e["action"]) for e in found] == [
        ("users", "created"), ("users", "role_changed"), ("users", "password_reset"), ("users", "disabled"),
        ("users", "enabled"), ("credentials", "app_password_created"), ("credentials", "app_passwords_revoked"),
        ("credentials", "consumer_key_created"), ("credentials", "consumer_key_revoked"),
        ("credentials", "sessions_revoked"), ("users", "deleted")]
    assert {(e["user"], e["user_id"], e["address"], e["subject"]) for e in found} == {("cli", None, None, "dave")}
    keys = [e["details"] for e in found if e["action"].startswith("consumer_key")]
    assert keys[0] == keys[1] == {"user_id": keys[0]["user_id"], "id": int(key_id), "key": "ck_..." + key[-7:],
                                  "permissions": "read", "description": ""}
    text = json.dumps(found)
    assert secret not in text and key not in text and password not in text and "cli-password" not in text


def test_webhooks_created_changed_and_deleted_never_with_their_secret(make_site):
    site = make_site(**{"storeplatform.plugins": "events", "events.webhooks.allow_private_targets": "true"})
    admin = site.headers_for("administrator")
    hooks = "/api/events/v1/webhooks"
    made = site.app.post_json(hooks, {"name": "Orders", "url": "http://127.0.0.1:9/in/tok-123",
                                      "topic": "event.created", "secret": "signing-secret-1"},
                              headers=admin, status=201).json
    entry = one(site, kind="webhooks")
    assert (entry["action"], entry["subject"], entry["user"]) == ("created", "Orders", "administrator")
    assert entry["details"] == {"id": made["id"], "topic": "event.created", "status": "active",
                                "url_host": "127.0.0.1:9"}
    site.app.put_json(f"{hooks}/{made['id']}", {"url": "http://localhost:9/other", "secret": "signing-secret-2",
                                                "status": "paused"}, headers=admin, status=200)
    changed = one(site, kind="webhooks", action="changed")
    assert changed["details"] == {"id": made["id"], "changed": ["url", "secret", "status"],
                                  "status": {"old": "active", "new": "paused"},
                                  "url_host": {"old": "127.0.0.1:9", "new": "localhost:9"}}
    site.app.put_json(f"{hooks}/{made['id']}", {"status": "paused"}, headers=admin, status=200)  # no change
    site.app.delete(f"{hooks}/{made['id']}", headers=admin, status=200)
    assert one(site, kind="webhooks", action="deleted")["subject"] == "Orders"
    assert len(entries(site, kind="webhooks")) == 3
    text = json.dumps(entries(site))
    assert "signing-secret" not in text and "tok-123" not in text


# --- a test plugin: a secret option, and routes that report changes of their own ------------------

class TitleBody(colander.MappingSchema):
    title = colander.SchemaNode(colander.String())
    fail = colander.SchemaNode(colander.Boolean())


title = Service("secretive/v1", "/title", name="title")
rotate = Service("secretive/v1", "/rotate", name="rotate")


@title.post(permission="manage_options", body=TitleBody())
def set_title(request):
    set_option(request.db, "site.title", request.validated["title"])
    if request.validated["fail"]:
        raise InvalidParams({"fail": "asked to fail after the change"})
    return {"ok": True}


@rotate.post(permission="manage_options")
def rotate_key(request):
    audit(request, "plugin:secretive", "key_rotated", "signing key",
          {"api_key": "sk-rotated-secret", "generation": 2, "note": "x" * 400})
    return {"ok": True}


class Secretive:
    """A plugin with an option named after a secret and two routes of its own."""

    @hookimpl
    def storeplatform_site_options(self):
        return [OptionSpec("secretive.api_key", "string", "", "secretive", "API key of the payment provider")]

    @hookimpl
    def storeplatform_includeme(self, config):
        import sys

        config.add_rest_namespace("secretive/v1")
        config.add_rest_services(sys.modules[__name__])
