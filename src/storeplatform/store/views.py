"""REST routes of the store core: {rest_root}/store/v1."""
from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError

from ..auth import user_can
from ..db import get_by_id
from ..auth.methods import (SESSION_COOKIE, issue_jwt, make_nonce, session_for_cookie, start_session)
from ..auth.passwords import verify_password
from ..rest import RestError, invalid_params, namespace, paginate
from . import schemas
from .models import Order, Product, User
from .money import currency_format, format_money
from .options import OptionError, load_options, set_option, specs_of
from .orders import OrderError, create_order, normalize_billing, set_order_status
from .products import current_price, sale_is_active


def includeme(config):
    ns = namespace(config, "store/v1").configure(description="Store core: users, settings, products, orders.")
    _auth_routes(config, ns)
    _settings_routes(config, ns)
    _product_routes(config, ns)
    _order_routes(config, ns)


# --- users and authentication -------------------------------------------------------------

def user_json(request, user):
    caps = request.registry["auth.role_capabilities"].get(user.role, frozenset())
    return {"id": user.id, "login": user.login, "email": user.email, "name": user.display_name or user.login,
            "role": user.role, "capabilities": sorted(caps)}


def _auth_routes(config, ns):
    me = ns.service(config, "users-me", "/users/me", "The authenticated user.")

    @me.get(permission="read")
    def get_me(request):
        return user_json(request, request.identity.user)

    login = ns.service(config, "auth-login", "/auth/login", "Cookie login; answers a nonce for X-Nonce.")

    @login.post(body=schemas.LoginBody())
    def post_login(request):
        user = _check_password(request, request.validated["login"], request.validated["password"])
        token = start_session(request, user)
        return {"nonce": make_nonce(request, token), "user": user_json(request, user)}

    logout = ns.service(config, "auth-logout", "/auth/logout", "Ends the cookie session.")

    @logout.post(permission="read")
    def post_logout(request):
        row = session_for_cookie(request)
        if row is not None:
            request.db.delete(row)
        request.response.delete_cookie(SESSION_COOKIE, path="/")
        return {"logged_out": True}

    nonce = ns.service(config, "auth-nonce", "/auth/nonce", "A fresh nonce for the cookie session.")

    @nonce.get()
    def get_nonce(request):
        row = session_for_cookie(request)
        if row is None:
            raise RestError(401, "rest_not_logged_in", "No valid session cookie.")
        return {"nonce": make_nonce(request, request.cookies[SESSION_COOKIE])}

    token = ns.service(config, "auth-token", "/auth/token", "A JWT bearer token for a login and password.")

    @token.post(body=schemas.TokenBody())
    def post_token(request):
        v = request.validated
        if "login" in v or "password" in v:
            user = _check_password(request, v.get("login", ""), v.get("password", ""))
        elif request.identity is not None:
            user = request.identity.user
        else:
            raise RestError(401, "rest_not_logged_in", "Send login and password, or authenticate.")
        value, lifetime = issue_jwt(request, user)
        return {"token": value, "token_type": "Bearer", "expires_in": lifetime}


def _check_password(request, login, password):
    user = request.db.execute(select(User).where(User.login == login)).scalar_one_or_none()
    # Verify against a dummy hash when the login is unknown, so timing does not tell.
    stored = user.password_hash if user is not None else _DUMMY_HASH
    if not verify_password(password, stored) or user is None:
        raise RestError(401, "rest_invalid_login", "Unknown login or wrong password.")
    return user


_DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="


# --- settings ---------------------------------------------------------------------------

def _settings_routes(config, ns):
    all_settings = ns.service(config, "settings", "/settings", "Site options by section.")

    @all_settings.get(permission="manage_options")
    def get_settings(request):
        values = load_options(request.db)
        sections = {}
        for spec in specs_of(request.registry).values():
            sections.setdefault(spec.section, []).append(_option_json(spec, values[spec.key]))
        return {"sections": sections}

    section = ns.service(config, "settings-section", "/settings/{section}", "The options of one section.")

    @section.get(permission="manage_options")
    def get_section(request):
        specs = _section_specs(request)
        values = load_options(request.db)
        return [_option_json(spec, values[spec.key]) for spec in specs]

    @section.put(permission="manage_options", body=schemas.SettingsBody())
    def put_section(request):
        specs = {spec.key: spec for spec in _section_specs(request)}
        errors = {}
        for key, value in request.validated.items():
            if key not in specs:
                errors[key] = f"not an option of section {request.matchdict['section']}"
        if errors:
            raise invalid_params(errors)
        for key, value in request.validated.items():
            try:
                set_option(request.db, key, value)
            except OptionError as exc:
                errors[key] = str(exc)
        if errors:
            # Nothing half-written: the transaction is aborted with the error.
            raise invalid_params(errors)
        values = load_options(request.db)
        return [_option_json(spec, values[spec.key]) for spec in specs.values()]


def _section_specs(request):
    name = request.matchdict["section"]
    specs = [s for s in specs_of(request.registry).values() if s.section == name]
    if not specs:
        raise RestError(404, "rest_settings_invalid_section", f"No settings section {name!r}.")
    return specs


def _option_json(spec, value):
    item = {"id": spec.key, "label": spec.label, "type": spec.type, "value": value, "default": spec.default,
            "section": spec.section, "description": spec.description}
    if spec.choices:
        item["choices"] = list(spec.choices)
    return item


# --- products ---------------------------------------------------------------------------

def product_json(request, product, fmt=None):
    fmt = fmt or currency_format(request.db)
    price = current_price(product)
    return {
        "id": product.id,
        "name": product.name,
        "sku": product.sku or "",
        "type": product.type,
        "status": product.status,
        "parent_id": product.parent_id or 0,
        "price": price,
        "price_formatted": format_money(price, fmt) if price is not None else None,
        "regular_price": product.regular_price,
        "sale_price": product.sale_price,
        "sale_from": product.sale_from.isoformat() if product.sale_from else None,
        "sale_to": product.sale_to.isoformat() if product.sale_to else None,
        "on_sale": sale_is_active(product),
        "meta": product.meta or {},
        "date_created": product.created_at.isoformat(),
        "date_modified": product.modified_at.isoformat(),
        "_links": {"self": [{"href": _product_url(request, product.id)}]},
    }


def _product_url(request, product_id):
    prefix = request.registry.settings["storeplatform.rest_prefix"]
    return f"{request.application_url}{prefix}/store/v1/products/{product_id}"


def _load_product(request):
    product = get_by_id(request.db, Product, request.matchdict["id"])
    if product is None or (product.status != "publish" and not user_can(request, "manage_shop")):
        raise RestError(404, "rest_product_invalid_id", "Invalid product ID.")
    return product


def _product_values(request, values, product=None):
    """Check the cross-field rules of a product before anything is written."""
    errors = {}
    ptype = values.get("type", product.type if product else "simple")
    parent_id = values.get("parent_id", product.parent_id if product else None)
    if ptype == "variation":
        parent = request.db.get(Product, parent_id) if parent_id else None
        if parent is None or parent.type != "variable":
            errors["parent_id"] = "a variation needs parent_id of a variable product"
    elif "parent_id" in values and values["parent_id"]:
        errors["parent_id"] = "only a variation has a parent"
    for key in ("sale_from", "sale_to"):
        if key in values and values[key].tzinfo is None:
            from datetime import timezone

            values[key] = values[key].replace(tzinfo=timezone.utc)
    if "sku" in values:
        values["sku"] = values["sku"] or None
        if values["sku"]:
            clash = request.db.execute(select(Product.id).where(Product.sku == values["sku"])).scalar()
            if clash is not None and (product is None or clash != product.id):
                errors["sku"] = "another product has this SKU"
    if errors:
        raise invalid_params(errors)
    return values


def _product_routes(config, ns):
    products = ns.service(config, "products", "/products", "Products.")

    @products.get(query=schemas.ProductListQuery())
    def list_products(request):
        v = request.validated
        stmt = select(Product).order_by(Product.id.desc())
        if user_can(request, "manage_shop"):
            if "status" in v:
                stmt = stmt.where(Product.status == v["status"])
        else:
            stmt = stmt.where(Product.status == "publish")
        if "type" in v:
            stmt = stmt.where(Product.type == v["type"])
        if "parent" in v:
            stmt = stmt.where(Product.parent_id == v["parent"])
        if v.get("search"):
            like = f"%{v['search']}%"
            stmt = stmt.where(or_(Product.name.ilike(like), Product.sku.ilike(like)))
        fmt = currency_format(request.db)
        return [product_json(request, p, fmt) for p in paginate(request, stmt)]

    @products.post(permission="manage_shop", body=schemas.ProductBody())
    def create_product(request):
        values = _product_values(request, dict(request.validated))
        product = Product(**values)
        request.db.add(product)
        request.db.flush()
        request.response.status = 201
        request.response.headers["Location"] = _product_url(request, product.id)
        return product_json(request, product)

    product = ns.service(config, "product", r"/products/{id:\d+}", "One product.")

    @product.get()
    def get_product(request):
        return product_json(request, _load_product(request))

    @product.put(permission="manage_shop", body=schemas.ProductUpdate)
    def update_product(request):
        item = _load_product(request)
        for key, value in _product_values(request, dict(request.validated), item).items():
            setattr(item, key, value)
        request.db.flush()
        return product_json(request, item)

    @product.delete(permission="manage_shop")
    def delete_product(request):
        item = _load_product(request)
        previous = product_json(request, item)
        request.db.delete(item)
        request.db.flush()
        return {"deleted": True, "previous": previous}


# --- orders -----------------------------------------------------------------------------

def order_json(request, order):
    prefix = request.registry.settings["storeplatform.rest_prefix"]
    return {
        "id": order.id,
        "number": order.number,
        "status": order.status,
        "order_key": order.order_key,
        "currency": order.currency,
        "customer_id": order.customer_id or 0,
        "billing": order.billing,
        "total": order.total,
        "line_items": [
            {"id": li.id, "product_id": li.product_id, "name": li.name, "quantity": li.quantity,
             "price": li.unit_price, "total": li.total}
            for li in order.line_items
        ],
        "date_created": order.created_at.isoformat(),
        "date_modified": order.modified_at.isoformat(),
        "_links": {"self": [{"href": f"{request.application_url}{prefix}/store/v1/orders/{order.id}"}]},
    }


def _load_order(request):
    order = get_by_id(request.db, Order, request.matchdict["id"])
    if order is None:
        raise RestError(404, "rest_order_invalid_id", "Invalid order ID.")
    return order


def _order_routes(config, ns):
    orders = ns.service(config, "orders", "/orders", "Store orders.")

    @orders.get(permission="manage_shop", query=schemas.OrderListQuery())
    def list_orders(request):
        stmt = select(Order).order_by(Order.id.desc())
        if "status" in request.validated:
            stmt = stmt.where(Order.status == request.validated["status"])
        return [order_json(request, o) for o in paginate(request, stmt)]

    @orders.post(permission="manage_shop", body=schemas.OrderBody())
    def post_order(request):
        v = request.validated
        try:
            order = create_order(request.db, line_items=v["line_items"], billing=v.get("billing"),
                                 status=v["status"], currency=v.get("currency"), customer_id=v.get("customer_id"))
        except OrderError as exc:
            raise invalid_params(exc.params)
        request.response.status = 201
        prefix = request.registry.settings["storeplatform.rest_prefix"]
        request.response.headers["Location"] = f"{request.application_url}{prefix}/store/v1/orders/{order.id}"
        return order_json(request, order)

    order = ns.service(config, "order", r"/orders/{id:\d+}", "One store order.")

    @order.get(permission="manage_shop")
    def get_order(request):
        return order_json(request, _load_order(request))

    @order.put(permission="manage_shop", body=schemas.OrderUpdate())
    def put_order(request):
        item = _load_order(request)
        v = request.validated
        if "billing" in v:
            item.billing = normalize_billing(v["billing"])
            request.db.flush()
        if "status" in v:
            set_order_status(request.db, item, v["status"])
        return order_json(request, item)

    @order.delete(permission="manage_shop")
    def delete_order(request):
        item = _load_order(request)
        previous = order_json(request, item)
        request.db.delete(item)
        try:
            request.db.flush()
        except IntegrityError:
            raise RestError(409, "rest_order_in_use", "The order is referenced by other records.")
        return {"deleted": True, "previous": previous}
