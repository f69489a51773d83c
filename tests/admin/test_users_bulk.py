"""The admin's Users screen (#43 part 4, WebTest): the users of each role counted above the list
as links that filter it, the list sorted by e-mail too, bulk role changes and bulk deletion
after a confirmation, all or nothing (the last administrator refuses the whole action), and a
user's consumer keys listed and revoked on their page (refused from the next request on). Every
change goes through the shop's accounts functions: their rules, their audit entries."""
import base64
from datetime import datetime, timezone
from decimal import Decimal

from sqlalchemy import insert, select

from storeplatform.api import Product, RestError, create_order, hookimpl
from storeplatform.components.audit.models import AuditEntry
from storeplatform.components.shop.models import ConsumerKey, Order, Post, User
from storeplatform.testing import assert_error, count_queries

from .helpers import assert_page, login, token

ME = "/api/store/v1/users/me"


class UserAdmins:
    """A plugin role that manages users (lists, edits, promotes and deletes them) without
    being an administrator: the one who can reach the last administrator in bulk."""

    @hookimpl
    def storeplatform_role_capabilities(self):
        return {"user_admin": {"read", "edit_posts", "list_users", "create_users", "edit_users", "promote_users",
                               "delete_users"}}


class Keeper:
    """Refuses deleting the user whose login is ``keep`` (a plugin's rule)."""

    keep = None

    @hookimpl
    def storeplatform_user_deleted(self, user, reassign):
        if user.login == self.keep:
            raise RestError(409, "test_user_kept", f"{user.login} still has open tickets")


def ids_of(site, *logins):
    with site.session() as s:
        found = dict(s.execute(select(User.login, User.id).where(User.login.in_(logins))).all())
    return [found[name] for name in logins]


def logins(site):
    with site.session() as s:
        return dict(s.execute(select(User.login, User.role)).all())


def listed(page):
    return [int(tr["data-id"]) for tr in page.html.select("#users tbody tr")]


def role_tabs(page):
    return [(a["data-role"], " ".join(a.text.split()), a.get("aria-current")) for a in page.html.select("#users-roles a")]


def notice(page):
    return page.html.select_one(".notice").text


def plan(page):
    return [(tr.select("td")[0].text, tr["data-state"], tr.select("td")[2].text)
            for tr in page.html.select("#bulk-rows tbody tr")]


def tick(form, ids):
    for i in ids:
        form[f"t{i}"] = True
    return form


def audited(site, action):
    with site.session() as s:
        return sorted(s.execute(select(AuditEntry.subject).where(AuditEntry.action == action)).scalars().all())


def basic(key, secret):
    return {"Authorization": "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()}


# --- counts per role, sorting ---------------------------------------------------------------------

def test_the_users_of_each_role_are_counted_and_each_count_filters(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    for name in ("ann", "bob", "cy"):
        site.create_user(name, "customer")
    site.create_user("ed", "editor")
    page = assert_page(site.app.get("/admin/users?orderby=login"), 200, "Users")
    # WordPress's "All (5) | Administrator (1) | ...": the roles someone has, in the roles' order.
    assert role_tabs(page) == [("", "All (5)", "page"), ("administrator", "administrator (1)", None),
                               ("editor", "editor (1)", None), ("customer", "customer (3)", None)]
    assert page.html.select_one("#users-total").text.strip() == "5 users."
    customers = page.click(href="role=customer")
    assert customers.request.path_qs == "/admin/users?orderby=login&order=asc&role=customer"  # the sort is kept
    assert [a.text for a in customers.html.select("#users td[data-label=Login] a")] == ["ann", "bob", "cy"]
    assert ("customer", "customer (3)", "page") in role_tabs(customers)
    assert customers.html.select_one("#users-total").text.strip() == "3 users found."
    # A role nobody has is shown when chosen (0), else left out; the counts follow every change.
    authors = site.app.get("/admin/users?role=author")
    assert ("author", "author (0)", "page") in role_tabs(authors) and listed(authors) == []
    site.create_user("al", "author")
    assert ("author", "author (1)", None) in role_tabs(site.app.get("/admin/users"))
    # A search counts what it finds; the role links stay the site's counts.
    found = site.app.get("/admin/users?search=b")
    assert found.html.select_one("#users-total").text.strip() == "2 users found."  # bob, boss
    assert role_tabs(found)[0] == ("", "All (6)", "page")


def test_the_list_sorts_by_e_mail_with_the_id_breaking_ties(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    with site.session() as s:
        s.execute(insert(User), [{"login": login_name, "role": "customer", "email": email, "display_name": login_name,
                                  "created_at": datetime(2026, 5, 1, tzinfo=timezone.utc)}
                                 for login_name, email in (("u1", "zed@shop.example"), ("u2", ""), ("u3", "amy@shop.example"),
                                                           ("u4", ""), ("u5", "max@shop.example"))])
    u1, u2, u3, u4, u5 = ids_of(site, "u1", "u2", "u3", "u4", "u5")
    page = site.app.get("/admin/users?role=customer")
    by_email = page.click(href="orderby=email")
    assert by_email.request.path_qs == "/admin/users?role=customer&orderby=email&order=asc"
    assert listed(by_email) == [u2, u4, u3, u5, u1]
    th = [th for th in by_email.html.select("#users thead th") if th.a and th.a.text.startswith("E-mail")][0]
    assert th["aria-sort"] == "ascending"
    back = site.app.get("/admin/users" + th.a["href"])
    assert listed(back) == [u1, u5, u3, u4, u2]


def test_the_list_costs_the_same_statements_with_3_or_30_users(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    paths = ("/admin/users", "/admin/users?orderby=email", "/admin/users?role=customer&orderby=name&order=desc",
             "/admin/users?search=example&orderby=since", "/admin/users?orderby=login&page=2")

    def costs():
        for path in paths:
            site.app.get(path)  # anything a first visit loads once
        counted = []
        for path in paths:
            with count_queries(site.engine) as n:
                site.app.get(path)
            counted.append(n())
        return counted

    with site.session() as s:
        s.execute(insert(User), [{"login": f"c{i:02d}", "role": "customer", "email": f"c{i}@example.com"}
                                 for i in range(2)])
    few = costs()
    with site.session() as s:
        s.execute(insert(User), [{"login": f"d{i:02d}", "role": role, "email": f"d{i}@example.com"}
                                 for i, role in enumerate(["customer"] * 60 + ["editor"] * 5 + ["author"] * 3)])
    assert costs() == few


def test_a_users_page_costs_the_same_statements_with_one_key_or_many(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    ann = site.create_user("ann", "customer")
    site.consumer_key("ann")
    site.app_password("ann")
    site.app.get(f"/admin/users/{ann}")
    with count_queries(site.engine) as one:
        site.app.get(f"/admin/users/{ann}")
    for _ in range(5):
        site.consumer_key("ann", "read")
        site.app_password("ann")
    site.app.get(f"/admin/users/{ann}")  # the new keys moved the auth generation: the login is read again
    with count_queries(site.engine) as many:
        page = site.app.get(f"/admin/users/{ann}")
    assert len(page.html.select("#consumer-keys tbody tr")) == 6
    assert one() == many()


# --- bulk role change ------------------------------------------------------------------------------

def test_the_last_administrators_are_not_demoted_in_bulk_and_nothing_is_half_done(make_site):
    site = make_site(plugins=[UserAdmins()])
    login(site, "keeper", role="user_admin")
    for name in ("root", "root2"):
        site.create_user(name, "administrator")
    site.create_user("ann", "customer")
    root, root2, ann = ids_of(site, "root", "root2", "ann")
    page = site.app.get("/admin/users")
    form = tick(page.forms["users-bulk"], [root, root2, ann])
    form["role"] = "editor"
    confirm = assert_page(form.submit(status=409), 409)
    problem = confirm.html.select_one("#bulk-problem").text
    assert problem == ("Nothing was changed: The site's last active administrator cannot be demoted, disabled or "
                       "deleted. root and root2 are every active administrator the site has.")
    assert confirm.html.select_one("#bulk-confirm button[type=submit]").has_attr("disabled")
    # A Confirm posted anyway is refused the same way, with nothing written.
    fields = {**dict(confirm.forms["bulk-confirm"].submit_fields()), "confirm": "yes"}
    refused = assert_page(site.app.post("/admin/users/bulk", fields, status=409), 409, "root and root2 are")
    assert "Nothing was changed" in refused.text
    assert logins(site) == {"keeper": "user_admin", "root": "administrator", "root2": "administrator",
                            "ann": "customer"}
    assert audited(site, "role_changed") == []
    # One administrator of the two may go: the other stays.
    page = site.app.get("/admin/users")
    form = tick(page.forms["users-bulk"], [root2, ann])
    form["role"] = "editor"
    done = form.submit().forms["bulk-confirm"].submit().follow()
    assert notice(done) == "2 users changed to editor."
    assert logins(site)["root2"] == "editor" and logins(site)["root"] == "administrator"
    assert audited(site, "role_changed") == ["ann", "root2"]


def test_a_disabled_administrator_does_not_count_as_one_left(make_site):
    site = make_site(plugins=[UserAdmins()])
    login(site, "keeper", role="user_admin")
    site.create_user("root", "administrator")
    site.create_user("old", "administrator")
    root, old = ids_of(site, "root", "old")
    with site.session() as s:
        s.get(User, old).disabled = True
    page = site.app.get("/admin/users")
    form = tick(page.forms["users-bulk"], [root])
    form["role"] = "customer"
    confirm = form.submit(status=409)
    assert "root is every active administrator the site has." in confirm.html.select_one("#bulk-problem").text


# --- bulk deletion ---------------------------------------------------------------------------------

def test_users_are_deleted_in_bulk_after_a_confirmation_never_oneself(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    for name, role in (("ann", "customer"), ("bob", "author"), ("cid", "editor")):
        site.create_user(name, role)
    boss, ann, bob, cid = ids_of(site, "boss", "ann", "bob", "cid")
    with site.session() as s:
        s.add_all([Post(post_type="post", title="One", author_id=bob), Post(post_type="post", title="Two", author_id=bob)])
        s.execute(insert(Product), [{"id": 1, "name": "Mug", "regular_price": Decimal("2"), "meta": {}}])
        create_order(s, line_items=[{"product_id": 1, "quantity": 1}], status="completed", customer_id=ann,
                     billing={"email": "ann@example.com"})
    page = site.app.get("/admin/users?orderby=login")
    assert page.html.select_one("#users-bulk-delete")["formaction"] == "http://localhost/admin/users/bulk-delete"
    form = tick(page.forms["users-bulk"], [boss, ann, bob])
    # The Delete button posts the same form to /users/bulk-delete (its formaction, no script).
    confirm = assert_page(site.app.post("/admin/users/bulk-delete", dict(form.submit_fields())), 200,
                          "Nothing has changed yet.")
    assert plan(confirm) == [("boss", "refused", "refused: you cannot delete your own account"),
                             ("ann", "change", "deleted (0 posts, 1 order)"),
                             ("bob", "change", "deleted (2 posts, 0 orders)")]
    assert "Delete for good: 2 users will be deleted." in confirm.text
    # The posts may go to a member of the staff not deleted with them (never one who is).
    options = [o["value"] for o in confirm.html.select("#bulk-reassign option")]
    assert options == ["", str(boss), str(cid)]  # by login
    assert sorted(logins(site)) == ["ann", "bob", "boss", "cid"]  # nothing yet
    form = confirm.forms["bulk-confirm"]
    assert form.action == "http://localhost/admin/users/bulk-delete"
    form["reassign"] = str(cid)
    back = form.submit().follow()
    assert back.request.path_qs == "/admin/users?orderby=login&order=asc"
    assert notice(back) == ("2 users deleted: ann, bob; 2 posts given to cid, 1 order kept as guest orders; "
                            "1 refused: boss: you cannot delete your own account.")
    assert sorted(logins(site)) == ["boss", "cid"]
    with site.session() as s:
        assert s.execute(select(Post.author_id)).scalars().all() == [cid, cid]
        assert s.execute(select(Order.customer_id)).scalars().all() == [None]
    assert audited(site, "deleted") == ["ann", "bob"]
    assert role_tabs(back)[0] == ("", "All (2)", "page")


def test_a_refusal_while_deleting_undoes_the_whole_action(make_site):
    keeper = Keeper()
    site = make_site(plugins=[keeper])
    login(site, "boss", role="administrator")
    for name in ("ann", "bob", "cy"):
        site.create_user(name, "customer")
    ann, bob, cy = ids_of(site, "ann", "bob", "cy")
    keeper.keep = "bob"
    page = site.app.get("/admin/users")
    fields = dict(tick(page.forms["users-bulk"], [ann, bob, cy]).submit_fields())
    confirm = site.app.post("/admin/users/bulk-delete", fields)
    refused = assert_page(confirm.forms["bulk-confirm"].submit(status=409), 409)
    assert refused.html.select_one("#bulk-problem").text == "Nothing was changed: bob still has open tickets"
    assert sorted(logins(site)) == ["ann", "bob", "boss", "cy"]  # ann, deleted before bob, is back
    assert audited(site, "deleted") == []


def test_the_last_administrators_are_not_deleted_in_bulk(make_site):
    site = make_site(plugins=[UserAdmins()])
    login(site, "keeper", role="user_admin")
    site.create_user("root", "administrator")
    root, = ids_of(site, "root")
    page = site.app.get("/admin/users")
    fields = dict(tick(page.forms["users-bulk"], [root]).submit_fields())
    confirm = assert_page(site.app.post("/admin/users/bulk-delete", fields, status=409), 409)
    assert "root is every active administrator the site has." in confirm.html.select_one("#bulk-problem").text
    refused = site.app.post("/admin/users/bulk-delete", {**fields, "confirm": "yes"}, status=409)
    assert "Nothing was changed" in refused.text
    assert "root" in logins(site) and audited(site, "deleted") == []


def test_a_bad_reassign_is_refused_and_nothing_is_deleted(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    for name in ("ann", "bob"):
        site.create_user(name, "author")
    ann, bob = ids_of(site, "ann", "bob")
    page = site.app.get("/admin/users")
    fields = {**dict(tick(page.forms["users-bulk"], [ann, bob]).submit_fields()), "confirm": "yes"}
    for reassign, message in ((str(bob), "the posts cannot go to a user who is deleted with them"),
                              ("99999999", "choose a user of this site"), ("x", "choose a user of this site")):
        refused = assert_page(site.app.post("/admin/users/bulk-delete", {**fields, "reassign": reassign}, status=400),
                              400)
        assert refused.html.select_one("#bulk-problem").text == "Nothing was changed: " + message
    assert sorted(logins(site)) == ["ann", "bob", "boss"]


def test_who_may_not_delete_users_has_no_delete_button_and_is_refused(make_site):
    site = make_site()
    login(site, "mgr", role="shop_manager")
    ann = site.create_user("ann", "customer")
    page = site.app.get("/admin/users")
    assert page.html.select_one("#users-bulk-delete") is None and "users-bulk" not in page.forms
    assert_page(site.app.post("/admin/users/bulk-delete", {"csrf_token": token(page), f"t{ann}": "1",
                                                           "confirm": "yes"}, status=403), 403, "may not use this page")
    assert "ann" in logins(site)


def test_the_bulk_forms_need_the_form_token(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    ann = site.create_user("ann", "customer")
    for path, extra in (("/admin/users/bulk-delete", {}), ("/admin/users/bulk", {"role": "editor"})):
        assert_page(site.app.post(path, {f"t{ann}": "1", "confirm": "yes", **extra}, status=403), 403,
                    "did not come from this site")
        assert_page(site.app.post(path, {"csrf_token": "0" * 64, f"t{ann}": "1", "confirm": "yes", **extra},
                                  status=403), 403)
    assert logins(site)["ann"] == "customer"


def test_nothing_ticked_and_too_many(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    page = site.app.get("/admin/users")
    nothing = site.app.post("/admin/users/bulk-delete", {"csrf_token": token(page), "back": "orderby=login"}, status=303)
    assert nothing.location.endswith("/admin/users?orderby=login")
    assert notice(nothing.follow()) == "No user was ticked: tick the users to delete first."
    many = {"csrf_token": token(page), **{f"t{i}": "1" for i in range(1000, 1201)}}
    assert_page(site.app.post("/admin/users/bulk-delete", many, status=400), 400,
                "At most 200 users can be changed at once, not 201.")


# --- consumer keys ---------------------------------------------------------------------------------

def test_a_users_consumer_keys_are_listed_and_one_revoked_ends_at_once(make_site):
    one, other = make_site(), make_site()  # two processes of one site
    login(other, "boss", role="administrator")
    one.create_user("ann", "shop_manager")
    ann, = ids_of(one, "ann")
    kept = basic(*one.consumer_key("ann", "read"))
    key, secret = one.consumer_key("ann")
    revoked = basic(key, secret)
    for headers in (kept, revoked):  # each is kept by the process from now on
        assert one.app.get(ME, headers=headers).json["login"] == "ann"
    page = other.app.get(f"/admin/users/{ann}")
    rows = page.html.select("#consumer-keys tbody tr")
    assert [tr.select_one("td[data-label=Key]").text for tr in rows] == [
        "ck_…" + k.truncated_key for k in keys_of(one, ann)]
    assert [tr.select_one("td[data-label=Permissions]").text for tr in rows] == ["read", "read_write"]
    assert key not in page.text and secret not in page.text  # the list shows the key's end only
    with one.session() as s:
        key_id = s.execute(select(ConsumerKey.id).where(ConsumerKey.permissions == "read_write")).scalar_one()
    form = [f for f in page.forms.values() if f.action.endswith(f"/consumer-keys/{key_id}/revoke")][0]
    done = form.submit().follow()
    assert notice(done) == f"The consumer key ck_…{key[-7:]} is revoked: requests made with it are refused."
    assert [int(tr["data-id"]) for tr in done.html.select("#consumer-keys tbody tr")] == [
        k.id for k in keys_of(one, ann)] and key_id not in [k.id for k in keys_of(one, ann)]
    # Refused at the next request of the process that kept it; the other key still works.
    assert_error(one.app.get(ME, headers=revoked, status=401), 401, "rest_authentication_failed")
    assert one.app.get(ME, headers=kept).json["login"] == "ann"
    with one.session() as s:
        entry = s.execute(select(AuditEntry).where(AuditEntry.action == "consumer_key_revoked")).scalar_one()
        assert (entry.kind, entry.subject, entry.actor_login, entry.details["id"]) == ("credentials", "ann", "boss",
                                                                                     key_id)


def keys_of(site, user_id):
    with site.session() as s:
        rows = s.execute(select(ConsumerKey).where(ConsumerKey.user_id == user_id).order_by(ConsumerKey.id)).scalars().all()
        for row in rows:
            s.expunge(row)
        return rows


def test_a_key_is_revoked_on_its_own_users_page_only_and_by_who_may_edit_them(make_site):
    site = make_site()
    login(site, "mgr", role="shop_manager")
    site.create_user("ann", "customer")
    site.create_user("root", "administrator")
    ann, root = ids_of(site, "ann", "root")
    ann_key = basic(*site.consumer_key("ann"))
    root_key = basic(*site.consumer_key("root"))
    [ann_key_id] = [k.id for k in keys_of(site, ann)]
    [root_key_id] = [k.id for k in keys_of(site, root)]
    # A shop manager sees an administrator's page without its keys, and may not revoke them.
    root_page = assert_page(site.app.get(f"/admin/users/{root}"), 200)
    assert root_page.html.select_one("#consumer-keys") is None and "Consumer keys" not in root_page.text
    refused = site.app.post(f"/admin/users/{root}/consumer-keys/{root_key_id}/revoke",
                            {"csrf_token": token(root_page)}, status=403)
    assert_page(refused, 403, "not allowed to edit this user")
    # A key named through another user's page is no key of theirs.
    missing = site.app.post(f"/admin/users/{ann}/consumer-keys/{root_key_id}/revoke",
                            {"csrf_token": token(root_page)}, status=404)
    assert_page(missing, 404, "No such consumer key.")
    assert_page(site.app.post(f"/admin/users/{ann}/consumer-keys/99999999999/revoke",
                              {"csrf_token": token(root_page)}, status=404), 404)
    # Without the form token: refused, the key still works.
    assert_page(site.app.post(f"/admin/users/{ann}/consumer-keys/{ann_key_id}/revoke", status=403), 403)
    for headers in (ann_key, root_key):
        assert site.app.get(ME, headers=headers).status_int == 200
    # A customer's key, by the manager who may edit customers.
    page = site.app.get(f"/admin/users/{ann}")
    assert [int(tr["data-id"]) for tr in page.html.select("#consumer-keys tbody tr")] == [ann_key_id]
    site.app.post(f"/admin/users/{ann}/consumer-keys/{ann_key_id}/revoke", {"csrf_token": token(page)}, status=303)
    assert_error(site.app.get(ME, headers=ann_key, status=401), 401, "rest_authentication_failed")
    assert site.app.get(f"/admin/users/{ann}").html.select_one("#no-consumer-keys").text == "No consumer keys."


def signed(app, key, secret, path=ME):
    """A GET signed with OAuth 1.0a (HMAC-SHA256, by requests-oauthlib), sent through WebTest
    byte for byte."""
    import requests
    from requests_oauthlib import OAuth1

    prepared = requests.Request("GET", "http://localhost" + path,
                                auth=OAuth1(key, client_secret=secret, signature_method="HMAC-SHA256")).prepare()
    headers = {k: v.decode() if isinstance(v, bytes) else v for k, v in prepared.headers.items()
               if k.lower() != "content-length"}
    return app.request(prepared.url, method="GET", headers=headers, expect_errors=True)


def test_a_key_revoked_in_the_admin_refuses_the_next_signed_request(make_site):
    site = make_site(**{"storeplatform.plugins": "oauth"})
    login(site, "boss", role="administrator")
    ann = site.create_user("ann", "shop_manager")
    key, secret = site.consumer_key("ann")
    assert signed(site.app, key, secret).json["login"] == "ann"
    page = site.app.get(f"/admin/users/{ann}")
    [key_id] = [k.id for k in keys_of(site, ann)]
    site.app.post(f"/admin/users/{ann}/consumer-keys/{key_id}/revoke", {"csrf_token": token(page)}, status=303)
    assert_error(signed(site.app, key, secret), 401, "rest_oauth_unknown_consumer_key")
