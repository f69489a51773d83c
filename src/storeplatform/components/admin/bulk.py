"""Bulk actions of the admin's lists, without JavaScript: the list's rows have checkboxes
(``t<id>``), an action and "Apply"; the first post shows what would change (nothing written), a
"Confirm" posts the same fields with ``confirm=yes``, and the list comes back with a notice of
what changed, what was left as it was and what was refused (each named).

Every change goes through the shop's own function, once per row, as one change from its page
would: an order's status through ``set_order_status`` (its note, actions and webhooks), a user's
role through ``accounts.update_user`` (its rules and audit entry), a product's status through
REST's ``validate_product`` and ``update_product``. Each row's change runs in a savepoint: a row
refused by a rule is undone alone and named."""
import re
from urllib.parse import parse_qsl, urlencode

from pyramid.httpexceptions import HTTPBadRequest
from sqlalchemy import select

from storeplatform.core.errors import InvalidParams, RestError
from storeplatform.core.rest.schema import deserialize
from storeplatform.core.values import id_in_range
from storeplatform.components.shop import account_rules, accounts, schemas
from storeplatform.components.shop.models import Order, Product, User
from storeplatform.components.shop.orders import set_order_status
from storeplatform.components.shop.products import STATUSES as PRODUCT_STATUSES, update_product
from .forms import form_values
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


def _confirm(request, *, title, noun, path, form, rows, action_label, fields):
    """The page that asks: each row with what will happen to it, and the Confirm form carrying
    the same fields."""
    return {"title": title, "noun": noun, "rows": rows, "action_label": action_label, "list_path": path,
            "back": back_query(form), "fields": fields,
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

@admin_view(USERS, path="/bulk", request_method="POST", template=TEMPLATE, capability="promote_users")
def bulk_users(request):
    form = form_values(request)
    ids = ticked(form, "user")
    if not ids:
        return _back(request, "/users", form, "No user was ticked: tick the users to change first.")
    actor = accounts.Actor.of(request)
    role = form.get("role", "")
    if role not in account_rules.roles(request.db):
        raise HTTPBadRequest(f"The new role must be one of the site's roles, not {role[:40]!r}.")
    found = {}
    for i in ids:
        try:
            found[i] = accounts.get_user(request.db, actor, i) if id_in_range(i) else None
        except RestError:  # a user one may not see is one that does not exist
            found[i] = None
        if found[i] is None:
            del found[i]
    rows = []
    for user in found.values():
        row = {"id": user.id, "name": user.login, "before": user.role, "after": role, "item": user, "state": "change"}
        if actor.is_self(user):
            row.update(state="refused", why="your own role is not changed here")
        elif not accounts.may_promote(actor, user):
            row.update(state="refused", why="you may not change this user's role")
        elif user.role == role:
            row["state"] = "unchanged"
        rows.append(row)
    rows = sorted(rows + _missing(ids, found, "user"), key=lambda r: r["id"])
    if form.get("confirm") != "yes":
        return _confirm(request, title="Change the role of users", noun="user", path="/users", form=form,
                        rows=rows, action_label=f"Change to {role}", fields={"role": role})

    def change(row):
        accounts.update_user(request.db, actor, row["item"], role=role)
        return True

    changed, unchanged, refused = _run(request, rows, change)
    return _back(request, "/users", form, summary("user", role, changed, unchanged, refused))


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
