"""Bulk actions of the admin's lists, without JavaScript: the list's rows have checkboxes
(``t<id>``), an action and "Apply"; the first post shows what would change (nothing written), a
"Confirm" posts the same fields with ``confirm=yes``, and the list comes back with a notice of
what changed, what was left as it was and what was refused (each named).

Every change goes through the shop's own function, once per row, as one change from its page
would: an order's status through ``set_order_status`` (its note, actions and webhooks), a user's
role through ``accounts.update_user`` and a user's deletion through ``accounts.delete_user``
(their rules and audit entries, by way of ``accounts_bulk``), a product's status through REST's
``validate_product`` and ``update_product``. Each order's or product's change runs in a
savepoint: a row refused by a rule is undone alone and named. Users are changed all or nothing:
a rule that refuses one while writing (the last administrator, a plugin's) refuses the whole
action, shown again on its confirmation page, and nothing of it is written."""
import re
from urllib.parse import parse_qsl, urlencode

from pyramid.httpexceptions import HTTPBadRequest
from sqlalchemy import select

from storeplatform.core.errors import InvalidParams, RestError
from storeplatform.core.rest.schema import deserialize
from storeplatform.core.values import id_in_range
from storeplatform.components.shop import account_rules, accounts, accounts_bulk, schemas
from storeplatform.components.shop.models import Order, Product
from storeplatform.components.shop.orders import set_order_status
from storeplatform.components.shop.products import STATUSES as PRODUCT_STATUSES, update_product
from .forms import form_values, refuse_form
from .guard import admin_redirect
from .listing import MAX_PER_PAGE
from .orders import ORDERS
from .pages import admin_view
from .products import PRODUCTS
from .users import USERS

# The most rows one action changes: a page of the longest list.
MAX_BULK = MAX_PER_PAGE
_TICKED = re.compile(r"t(\d{1,20})")
TEMPLATE = "admin/bulk_confirm.jinja2"


def ticked(form, noun):
    """The ids of the ticked rows (``t<id>`` fields), in order; the 400 page beyond ``MAX_BULK``."""
    ids = sorted({int(m.group(1)) for name in form if (m := _TICKED.fullmatch(name))})
    if len(ids) > MAX_BULK:
        raise HTTPBadRequest(f"At most {MAX_BULK} {noun}s can be changed at once, not {len(ids)}.")
    return ids


def back_query(form):
    """The list's query the form came from (``back``), rebuilt from its parameters."""
    pairs = parse_qsl(form.get("back", ""), keep_blank_values=False)[:20]
    return urlencode([(k, v) for k, v in pairs if k != "page" or v.isdigit()])


def _back(request, path, form, notice):
    query = back_query(form)
    return admin_redirect(request, path + ("?" + query if query else ""), notice=notice)


def _plural(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


def summary(noun, target, changed, unchanged, refused):
    """"3 orders changed to completed; 1 unchanged (already completed); 1 refused (#7: why)"."""
    parts = [f"{_plural(len(changed), noun)} changed to {target}"]
    if unchanged:
        parts.append(f"{len(unchanged)} unchanged (already {target}): {', '.join(unchanged)}")
    if refused:
        parts.append(f"{len(refused)} refused: " + "; ".join(f"{name}: {why}" for name, why in refused))
    return "; ".join(parts) + "."


def _run(request, rows, change):
    """``change(row)`` for each planned row in a savepoint of its own: (changed, unchanged,
    refused) names. A row refused by a rule (a RestError, bad values) is undone alone."""
    changed, unchanged, refused = [], [], []
    for row in rows:
        if row["state"] == "refused":
            refused.append((row["name"], row["why"]))
            continue
        if row["state"] == "unchanged":
            unchanged.append(row["name"])
            continue
        try:
            with request.db.begin_nested():
                done = change(row)
        except (InvalidParams, RestError) as exc:
            why = exc.message if isinstance(exc, RestError) else "; ".join(str(v) for v in exc.params.values())
            refused.append((row["name"], why))
            continue
        (changed if done else unchanged).append(row["name"])
    return changed, unchanged, refused


def _confirm(request, *, title, noun, path, form, rows, action_label, fields, confirm_path=None, choice=None,
             will="change", danger=False):
    """The page that asks: each row with what will happen to it, and the Confirm form carrying
    the same fields (posted to ``confirm_path``, default the list's ``/bulk``), with ``choice``
    (``{"field", "label", "options": [(value, text)], "selected"}``) a select of its own;
    "N rows will ``will``", a ``danger`` button for what cannot be undone."""
    return {"title": title, "noun": noun, "rows": rows, "action_label": action_label, "list_path": path,
            "back": back_query(form), "fields": fields, "confirm_path": confirm_path or path + "/bulk",
            "choice": choice, "problem": None, "will": will, "danger": danger,
            "count": sum(1 for row in rows if row["state"] == "change")}


def _missing(ids, found, noun):
    return [{"id": i, "name": f"#{i}", "state": "refused", "why": f"there is no such {noun}"}
            for i in ids if i not in found]


# --- orders ---------------------------------------------------------------------------------------

@admin_view(ORDERS, path="/bulk", request_method="POST", template=TEMPLATE)
def bulk_orders(request):
    form = form_values(request)
    ids = ticked(form, "order")
    if not ids:
        return _back(request, "/orders", form, "No order was ticked: tick the orders to change first.")
    wanted = form.get("status", "")
    try:
        status = deserialize(schemas.OrderUpdate(), {"status": wanted})["status"]  # REST's order update
    except InvalidParams:
        raise HTTPBadRequest(f"The new status must be one of the order statuses, not {wanted[:40]!r}.")
    found = {o.id: o for o in request.db.execute(
        select(Order).where(Order.id.in_([i for i in ids if id_in_range(i)]))).scalars()}
    rows = [{"id": o.id, "name": f"#{o.number}", "before": o.status, "after": status,
             "state": "unchanged" if o.status == status else "change", "item": o} for o in found.values()]
    rows = sorted(rows + _missing(ids, found, "order"), key=lambda r: r["id"])
    if form.get("confirm") != "yes":
        return _confirm(request, title="Change the status of orders", noun="order", path="/orders", form=form,
                        rows=rows, action_label=f"Change to {status}", fields={"status": status})
    changed, unchanged, refused = _run(request, rows, lambda row: set_order_status(request.db, row["item"], status))
    return _back(request, "/orders", form, summary("order", status, changed, unchanged, refused))


# --- users ----------------------------------------------------------------------------------------
# A user's row the plan refuses (one's own account, a user one may not change, an id of nobody)
# is left out and named, as in the other lists. What the plan changes is one change, all or
# nothing (``accounts_bulk``): the rule of the last administrator refuses the whole action on
# the confirmation page already, and a refusal while writing (the rule again, a plugin's) undoes
# every row of it.

def _users_plan(request, actor, form, refuse):
    """The ticked users as the confirmation's rows: ``refuse(user)`` gives why a row is left
    out, or None; the rest is ``change``."""
    ids = ticked(form, "user")
    found = accounts_bulk.users_by_ids(request.db, actor, ids)
    rows = []
    for user in found.values():
        row = {"id": user.id, "name": user.login, "before": user.role, "item": user, "state": "change"}
        why = refuse(user)
        if why:
            row.update(state="refused", why=why)
        rows.append(row)
    return sorted(rows + _missing(ids, found, "user"), key=lambda r: r["id"])


def _changing(rows):
    return [row["item"] for row in rows if row["state"] == "change"]


def _refusal(exc):
    return exc.message if isinstance(exc, RestError) else "; ".join(str(v) for v in exc.params.values())


def _users_confirm(request, form, rows, problem=None, **values):
    """The confirmation page of a users' action; with ``problem`` (the whole action refused)
    its Confirm is disabled and the answer's status is the refusal's (nothing is written)."""
    page = _confirm(request, noun="user", path="/users", form=form, rows=rows, **values)
    if problem is not None:
        refuse_form(request, status=problem.status if isinstance(problem, RestError) else 400)
        page.update(problem=_refusal(problem), count=0)
    return page


@admin_view(USERS, path="/bulk", request_method="POST", template=TEMPLATE, capability="promote_users")
def bulk_users(request):
    """Change the role of the ticked users (``accounts.update_user``: its rules and audit entry,
    their sessions ended)."""
    form = form_values(request)
    actor = accounts.Actor.of(request)
    role = form.get("role", "")
    if not ticked(form, "user"):
        return _back(request, "/users", form, "No user was ticked: tick the users to change first.")
    if role not in account_rules.roles(request.db):
        raise HTTPBadRequest(f"The new role must be one of the site's roles, not {role[:40]!r}.")

    def refuse(user):
        if actor.is_self(user):
            return "your own role is not changed here"
        if not accounts.may_promote(actor, user) or not accounts.may_edit(actor, user):
            return "you may not change this user's role"
        return None

    rows = _users_plan(request, actor, form, refuse)
    for row in rows:
        row["after"] = role
        if row["state"] == "change" and row["before"] == role:
            row["state"] = "unchanged"
    confirm = dict(title="Change the role of users", action_label=f"Change to {role}", fields={"role": role})
    try:
        if role != accounts.ADMINISTRATOR:
            accounts_bulk.refuse_leaving_no_administrator(request.db, _changing(rows))
        if form.get("confirm") != "yes":
            return _users_confirm(request, form, rows, **confirm)
        with request.db.begin_nested():
            accounts_bulk.set_roles(request.db, actor, _changing(rows), role)
    except (InvalidParams, RestError) as exc:
        return _users_confirm(request, form, rows, problem=exc, **confirm)
    return _back(request, "/users", form, summary(
        "user", role, [r["name"] for r in rows if r["state"] == "change"],
        [r["name"] for r in rows if r["state"] == "unchanged"],
        [(r["name"], r["why"]) for r in rows if r["state"] == "refused"]))


@admin_view(USERS, path="/bulk-delete", request_method="POST", template=TEMPLATE, capability="delete_users")
def bulk_delete_users(request):
    """Delete the ticked users (``accounts.delete_user``: its rules and audit entry, the
    plugins' hook), their posts given to one user or kept without an author (the confirmation
    page asks), their orders kept as guest orders."""
    form = form_values(request)
    actor = accounts.Actor.of(request)
    if not ticked(form, "user"):
        return _back(request, "/users", form, "No user was ticked: tick the users to delete first.")

    def refuse(user):
        if actor.is_self(user):
            return "you cannot delete your own account"
        return None if accounts.may_delete(actor, user) else "you may not delete this user"

    rows = _users_plan(request, actor, form, refuse)
    held = accounts_bulk.holdings(request.db, [r["id"] for r in rows if r["state"] == "change"])
    for row in rows:
        if row["state"] == "change":
            posts, orders = held[row["id"]]
            row["after"] = f"deleted ({_plural(posts, 'post')}, {_plural(orders, 'order')})"
    changing = _changing(rows)
    leaving = {user.id for user in changing}
    candidates = [(str(i), login) for i, login in accounts.reassign_candidates(
        request.db, changing[0], limit=500 + len(leaving)) if i not in leaving][:500] if changing else []
    reassign_id = form.get("reassign", "")
    confirm = dict(title="Delete users", action_label="Delete for good", will="be deleted", danger=True, fields={},
                   confirm_path="/users/bulk-delete",
                   choice={"field": "reassign", "label": "Give their posts to", "selected": reassign_id,
                           "options": [("", "nobody: keep them without an author")] + candidates})
    try:
        accounts_bulk.refuse_leaving_no_administrator(request.db, changing)
        if form.get("confirm") != "yes":
            return _users_confirm(request, form, rows, **confirm)
        reassign = _reassign(request, actor, reassign_id)
        with request.db.begin_nested():
            done = accounts_bulk.delete_users(request.db, actor, changing, reassign=reassign)
    except (InvalidParams, RestError) as exc:
        return _users_confirm(request, form, rows, problem=exc, **confirm)
    deleted = [r["name"] for r in rows if r["state"] == "change"]
    parts = [f"{_plural(done['users'], 'user')} deleted" + (f": {', '.join(deleted)}" if deleted else "")]
    if deleted:
        parts.append(f"{_plural(done['posts'], 'post')} " + (f"given to {reassign.login}" if reassign is not None
                                                             else "kept without an author")
                     + f", {_plural(done['orders'], 'order')} kept as guest orders")
    refused = [(r["name"], r["why"]) for r in rows if r["state"] == "refused"]
    if refused:
        parts.append(f"{len(refused)} refused: " + "; ".join(f"{name}: {why}" for name, why in refused))
    return _back(request, "/users", form, "; ".join(parts) + ".")


def _reassign(request, actor, reassign_id):
    """The user the posts go to (None: nobody), or ``reassign`` named as a bad field."""
    if not reassign_id:
        return None
    try:
        return accounts.get_user(request.db, actor, int(reassign_id) if reassign_id.isdigit()
                                 and len(reassign_id) <= 10 else 0)
    except RestError:
        raise InvalidParams({"reassign": "choose a user of this site"})


# --- products -------------------------------------------------------------------------------------

@admin_view(PRODUCTS, path="/bulk", request_method="POST", template=TEMPLATE)
def bulk_products(request):
    form = form_values(request)
    ids = ticked(form, "product")
    if not ids:
        return _back(request, "/products", form, "No product was ticked: tick the products to change first.")
    wanted = form.get("status", "")
    if wanted not in PRODUCT_STATUSES:
        raise HTTPBadRequest(f"The new status must be one of the product statuses, not {wanted[:40]!r}.")
    found = {p.id: p for p in request.db.execute(
        select(Product).where(Product.id.in_([i for i in ids if id_in_range(i)]))).scalars()}
    rows, values = [], {}
    for product in found.values():
        row = {"id": product.id, "name": product.name, "before": product.status, "after": wanted, "item": product,
               "state": "unchanged" if product.status == wanted else "change"}
        if row["state"] == "change":
            try:
                values[product.id] = schemas.validate_product(request.db, {"status": wanted}, product)  # as REST's
            except InvalidParams as exc:  # a rule of the product's (a plugin's own keys)
                row.update(state="refused", why="; ".join(str(v) for v in exc.params.values()))
        rows.append(row)
    rows = sorted(rows + _missing(ids, found, "product"), key=lambda r: r["id"])
    label = "Move to the trash" if wanted == "trash" else f"Change to {wanted}"
    if form.get("confirm") != "yes":
        return _confirm(request, title="Change the status of products", noun="product", path="/products",
                        form=form, rows=rows, action_label=label, fields={"status": wanted})

    def change(row):
        update_product(request.db, row["item"], values[row["id"]])
        return True

    changed, unchanged, refused = _run(request, rows, change)
    return _back(request, "/products", form, summary("product", wanted, changed, unchanged, refused))
