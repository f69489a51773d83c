"""A manual order made in the admin (``manage_shop``): for a customer (named by login or e-mail)
or a guest, lines from the catalogue (a product named by its id or SKU, and a quantity), billing
details and a status. The form is typed as REST's body and checked by REST's schema
(``validate_order``), then made by ``create_order``: the same actions (tickets, documents,
webhooks), and the plugins' rules of a line (a ticket's places and sale window) beside the line
they refuse."""
from sqlalchemy import func, or_, select

from storeplatform.core.errors import InvalidParams
from storeplatform.core.values import id_in_range, is_digits
from storeplatform.components.shop.models import Product, User
from storeplatform.components.shop.orders import BILLING_FIELDS, STATUSES, create_order
from storeplatform.components.shop.schemas import validate_order
from .forms import form_values, refuse_form
from .guard import admin_redirect
from .orders import ORDERS
from .pages import admin_view

FORM = "admin/order_new.jinja2"
LINES = 6  # rows of the form; a longer order is made over REST, or changed after
BILLING_LABELS = {"first_name": "First name", "last_name": "Last name", "company": "Company",
                  "address_1": "Address", "address_2": "Address (2nd line)", "city": "City", "state": "State",
                  "postcode": "Postcode", "country": "Country", "email": "E-mail", "phone": "Phone"}


def _customer(session, text):
    """The user a login or an e-mail address names (case-insensitive), or None."""
    wanted = text.strip().lower()
    return session.execute(select(User).where(or_(func.lower(User.login) == wanted, func.lower(User.email) == wanted))
                           .order_by(User.id).limit(1)).scalar()


def _products_by_reference(session, references):
    """{reference: product id} of the references that name a product: a whole number is an id,
    anything else a SKU."""
    ids = [int(r) for r in references if is_digits(r) and len(r) <= 10 and id_in_range(int(r))]
    skus = [r for r in references if not is_digits(r)]
    found = {}
    if ids:
        found.update({str(i): i for i in session.execute(select(Product.id).where(Product.id.in_(ids))).scalars()})
    if skus:
        found.update(dict(session.execute(select(Product.sku, Product.id).where(Product.sku.in_(skus))).all()))
    return found


def order_body(session, form):
    """(REST's order body of the form, ``{field: message}`` of what the form itself cannot read,
    the rows the lines came from): an empty row is no line."""
    problems = {}
    rows = [(n, form.get(f"product-{n}", "").strip(), form.get(f"quantity-{n}", "").strip() or "1")
            for n in range(LINES)]
    rows = [(n, reference, quantity) for n, reference, quantity in rows if reference]
    products = _products_by_reference(session, [reference for _, reference, _ in rows])
    lines, used_rows = [], []
    for n, reference, quantity in rows:
        if reference not in products:
            problems[f"product-{n}"] = f"no product with id or SKU {reference[:40]!r}"
            continue
        if not (is_digits(quantity) and len(quantity) <= 6):
            problems[f"quantity-{n}"] = "a whole number of 1 or more"
            continue
        lines.append({"product_id": products[reference], "quantity": int(quantity)})
        used_rows.append(n)
    if not rows:
        problems["lines"] = "add at least one line: a product's id or SKU and a quantity"
    body = {"status": form.get("status", "pending"), "line_items": lines,
            "billing": {name: form.get(f"billing-{name}", "").strip() for name in BILLING_FIELDS}}
    customer_text = form.get("customer", "").strip()
    if customer_text:
        customer = _customer(session, customer_text)
        if customer is None:
            problems["customer"] = f"no user with the login or e-mail {customer_text[:80]!r}"
        else:
            body["customer_id"] = customer.id
            if not body["billing"]["email"]:
                body["billing"]["email"] = customer.email  # an order mails its buyer: the account's address
    return body, problems, used_rows


def form_errors(params, used_rows):
    """REST's parameter names (``line_items.0.quantity``, ``billing.email``) as the form's fields."""
    errors = {}
    for name, message in params.items():
        parts = name.split(".")
        if parts[0] == "line_items" and len(parts) > 1 and parts[1].isdigit() and int(parts[1]) < len(used_rows):
            row = used_rows[int(parts[1])]
            errors[f"{'quantity' if parts[-1] == 'quantity' else 'product'}-{row}"] = message
        elif parts[0] == "line_items":
            errors["lines"] = message
        elif parts[0] == "billing" and len(parts) > 1:
            errors[f"billing-{parts[1]}"] = message
        elif parts[0] == "customer_id":
            errors["customer"] = message
        else:
            errors[parts[0]] = message
    return errors


def _page(values, errors):
    return {"title": "New order", "values": values, "errors": errors, "rows": range(LINES), "statuses": STATUSES,
            "billing_fields": BILLING_FIELDS, "billing_labels": BILLING_LABELS}


@admin_view(ORDERS, path="/new", template=FORM)
def new_order(request):
    return _page({"status": "pending"}, {})


@admin_view(ORDERS, path="/new", request_method="POST", template=FORM)
def create_order_form(request):
    form = form_values(request)
    body, errors, used_rows = order_body(request.db, form)
    try:
        values = validate_order(request.db, body)
    except InvalidParams as exc:
        errors = {**form_errors(exc.params, used_rows), **errors}
    if not errors:
        try:
            order = create_order(request.db, line_items=values["line_items"], billing=values.get("billing"),
                                 status=values["status"], customer_id=values.get("customer_id"))
        except InvalidParams as exc:  # the plugins' rules of a line (a ticket's places, its sale window)
            errors = form_errors(exc.params, used_rows)
    if errors:
        refuse_form(request)
        return _page(form, errors)
    return admin_redirect(request, f"/orders/{order.id}", notice=f"Order #{order.id} created.")
