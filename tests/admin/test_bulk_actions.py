"""Bulk actions of the admin's lists (WebTest), without JavaScript: rows ticked, an action and
"Apply" show a confirmation listing what will change (nothing written), "Confirm" changes through
the shop's own functions (an order's status through ``set_order_status``: its note and action per
order; a user's role through ``accounts.update_user``: its audit entry and rules; a product's
status through ``update_product``) and comes back to the list with a notice of what changed, what
was already so and what was refused, named."""
from decimal import Decimal

from sqlalchemy import insert, select

from storeplatform.api import Order, Product, RestError, User, create_order, hookimpl
from storeplatform.components.shop.models import OrderNote
from storeplatform.components.audit.models import AuditEntry

from .helpers import assert_page, login, token


class Recorder:
    """Records each status change; refuses to complete order ``refuse``."""

    def __init__(self):
        self.changes = []
        self.refuse = None

    @hookimpl
    def storeplatform_order_status_changed(self, order, old_status, new_status):
        if order.id == self.refuse and new_status == "completed":
            raise RestError(409, "test_refused", "the warehouse has not shipped it")
        self.changes.append((order.id, old_status, new_status))


def shop(make_site, recorder=None):
    site = make_site(plugins=[recorder] if recorder else [])
    login(site, "boss", role="shop_manager")
    with site.session() as s:
        s.execute(insert(Product), [{"id": 1, "name": "Mug", "regular_price": Decimal("2"), "meta": {}}])
    return site


def orders(site, *statuses):
    with site.session() as s:
        return [create_order(s, line_items=[{"product_id": 1, "quantity": 1}], status=status,
                             billing={"email": "a@shop.example"}).id for status in statuses]


def statuses(site, ids):
    with site.session() as s:
        return [s.get(Order, i).status for i in ids]


def tick(form, ids):
    for i in ids:
        form[f"t{i}"] = True
    return form


def notice(page):
    return page.html.select_one(".notice").text


def plan(page):
    return [(int(tr["data-id"]), tr["data-state"], tr.select("td")[2].text)
            for tr in page.html.select("#bulk-rows tbody tr")]


def test_orders_change_status_after_a_confirmation(make_site):
    recorder = Recorder()
    site = shop(make_site, recorder)
    ids = orders(site, "pending", "processing", "completed", "on-hold")
    recorder.changes.clear()  # those of the orders' creation
    page = site.app.get("/admin/orders?orderby=total&status=")
    form = tick(page.forms["orders-bulk"], ids)
    form["status"] = "completed"
    confirm = assert_page(form.submit(), 200, "Nothing has changed yet.")
    assert plan(confirm) == [(ids[0], "change", "completed"), (ids[1], "change", "completed"),
                             (ids[2], "unchanged", "unchanged (already completed)"), (ids[3], "change", "completed")]
    assert "Change to completed: 3 orders will change." in confirm.text
    assert statuses(site, ids) == ["pending", "processing", "completed", "on-hold"] and recorder.changes == []
    with site.session() as s:
        last_note = s.execute(select(OrderNote.id).order_by(OrderNote.id.desc()).limit(1)).scalar() or 0
    done = confirm.forms["bulk-confirm"].submit()
    assert done.status_int == 303
    back = done.follow()
    assert back.request.path_qs == "/admin/orders?orderby=total&order=desc"  # the list it came from
    assert notice(back) == f"3 orders changed to completed; 1 unchanged (already completed): #{ids[2]}."
    assert statuses(site, ids) == ["completed"] * 4
    assert recorder.changes == [(ids[0], "pending", "completed"), (ids[1], "processing", "completed"),
                                (ids[3], "on-hold", "completed")]
    with site.session() as s:  # each order's history says so, as for a change on its page
        assert s.execute(select(OrderNote.order_id).where(OrderNote.id > last_note, OrderNote.note.like(
            "Order status changed%")).order_by(OrderNote.order_id)).scalars().all() == [ids[0], ids[1], ids[3]]


def test_a_refused_or_missing_order_is_named_and_the_others_change(make_site):
    recorder = Recorder()
    site = shop(make_site, recorder)
    ids = orders(site, "pending", "pending")
    recorder.changes.clear()
    recorder.refuse = ids[1]
    page = site.app.get("/admin/orders")
    form = tick(page.forms["orders-bulk"], ids)
    form["status"] = "completed"
    confirm = form.submit()
    # An order deleted meanwhile, or an id no order has, is named.
    fields = [(k, v) for k, v in confirm.forms["bulk-confirm"].submit_fields()] + [("t999999", "1")]
    done = site.app.post("/admin/orders/bulk", fields, status=303).follow()
    assert notice(done) == (f"1 order changed to completed; 2 refused: #{ids[1]}: the warehouse has not shipped it; "
                            "#999999: there is no such order.")
    assert statuses(site, ids) == ["completed", "pending"]
    assert recorder.changes == [(ids[0], "pending", "completed")]


def test_bad_bulk_input(make_site):
    site = shop(make_site)
    ids = orders(site, "pending")
    page = site.app.get("/admin/orders")
    form = page.forms["orders-bulk"]
    form["status"] = "completed"
    nothing = form.submit().follow()
    assert notice(nothing) == "No order was ticked: tick the orders to change first."
    fields = dict(tick(page.forms["orders-bulk"], ids).submit_fields())
    assert_page(site.app.post("/admin/orders/bulk", {**fields, "status": "shipped"}, status=400), 400,
                "The new status must be one of the order statuses, not &#39;shipped&#39;.")
    many = {**fields, **{f"t{i}": "1" for i in range(1000, 1201)}}
    assert_page(site.app.post("/admin/orders/bulk", many, status=400), 400,
                "At most 200 orders can be changed at once, not 202.")
    assert statuses(site, ids) == ["pending"]


def test_users_change_role_but_never_ones_own(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    made = [site.create_user(name, "customer") for name in ("ann", "bob")]
    author = site.create_user("cid", "author")
    with site.session() as s:
        boss = s.execute(select(User.id).where(User.login == "boss")).scalar_one()
    page = site.app.get("/admin/users?orderby=login")
    form = tick(page.forms["users-bulk"], [*made, author, boss])
    form["role"] = "author"
    confirm = form.submit()
    assert plan(confirm) == sorted([(made[0], "change", "author"), (made[1], "change", "author"),
                                    (author, "unchanged", "unchanged (already author)"),
                                    (boss, "refused", "refused: your own role is not changed here")])
    back = confirm.forms["bulk-confirm"].submit().follow()
    assert back.request.path_qs == "/admin/users?orderby=login&order=asc"
    assert notice(back) == ("2 users changed to author; 1 unchanged (already author): cid; "
                            "1 refused: boss: your own role is not changed here.")
    with site.session() as s:
        roles = dict(s.execute(select(User.login, User.role)).all())
        assert roles == {"boss": "administrator", "ann": "author", "bob": "author", "cid": "author"}
        # The accounts' own audit entries, one per user changed.
        assert sorted(s.execute(select(AuditEntry.subject).where(AuditEntry.action == "role_changed"))
                      .scalars().all()) == ["ann", "bob"]
    assert_page(site.app.post("/admin/users/bulk", {**dict(confirm.forms["bulk-confirm"].submit_fields()),
                                                    "role": "emperor"}, status=400), 400,
                "The new role must be one of the site&#39;s roles, not &#39;emperor&#39;.")


def test_a_manager_cannot_promote_so_the_list_has_no_bulk_form(make_site):
    site = make_site()
    login(site, "mgr", role="shop_manager")
    customer = site.create_user("ann", "customer")
    page = assert_page(site.app.get("/admin/users"), 200, "ann")
    assert "users-bulk" not in page.forms and page.html.select("#users input[type=checkbox]") == []
    fields = {"csrf_token": token(page), f"t{customer}": "1", "role": "administrator"}
    assert_page(site.app.post("/admin/users/bulk", fields, status=403), 403, "may not use this page")
    with site.session() as s:
        assert s.get(User, customer).role == "customer"


def test_products_to_the_trash_and_back(make_site):
    site = shop(make_site)
    with site.session() as s:
        s.execute(insert(Product), [{"id": 2, "name": "Cup", "regular_price": Decimal("3"), "meta": {}},
                                    {"id": 3, "name": "Bowl", "status": "draft", "regular_price": Decimal("3"),
                                     "meta": {}}])
    page = site.app.get("/admin/products?orderby=name")
    form = tick(page.forms["products-bulk"], [1, 3])
    form["status"] = "trash"
    confirm = form.submit()
    assert plan(confirm) == [(1, "change", "trash"), (3, "change", "trash")]
    back = confirm.forms["bulk-confirm"].submit().follow()
    assert notice(back) == "2 products changed to trash."
    assert [int(tr["data-id"]) for tr in back.html.select("#products tbody tr")] == [2]
    trash = site.app.get("/admin/products?status=trash")
    form = tick(trash.forms["products-bulk"], [1, 3])
    form["status"] = "publish"
    form.submit().forms["bulk-confirm"].submit()
    with site.session() as s:
        assert [s.get(Product, i).status for i in (1, 2, 3)] == ["publish", "publish", "publish"]
    assert_page(site.app.post("/admin/products/bulk", {**dict(confirm.forms["bulk-confirm"].submit_fields()),
                                                       "status": "gone"}, status=400), 400,
                "The new status must be one of the product statuses, not &#39;gone&#39;.")
