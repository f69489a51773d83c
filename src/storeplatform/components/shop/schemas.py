"""Colander schemas of the store/v1 routes."""
import colander

from . import account_rules
from storeplatform.core.auth.capabilities import ROLES
from storeplatform.core.rest import DecimalText, PaginationSchema, StrictBoolean, StrictInt, StrictString, make_partial
from storeplatform.core.rest.schema import deserialize
from storeplatform.core.rest.types import DateText, OptionalId, RowId, bound_check, money_amount, once
from .models import User
from .orders import BILLING_FIELDS, STATUSES as ORDER_STATUSES, line_problems, load_products
from .products import STATUSES as PRODUCT_STATUSES, TYPES as PRODUCT_TYPES, product_problems


def product_rule(also=None):
    """The cross-field and stored-row rules of a product (``product_problems``), checked beside
    the other fields (``product_rules``: what the product views bind)."""
    return bound_check("product_rules", also)


class ProductBody(colander.MappingSchema):
    name = colander.SchemaNode(StrictString(), validator=colander.Length(min=1, max=250),
                               description="Product name.")
    sku = colander.SchemaNode(StrictString(), missing=colander.drop, validator=product_rule(colander.Length(max=100)),
                              description="Stock keeping unit, unique.")
    type = colander.SchemaNode(StrictString(), missing="simple",
                               validator=product_rule(colander.OneOf(PRODUCT_TYPES)))
    status = colander.SchemaNode(StrictString(), missing="publish", validator=colander.OneOf(PRODUCT_STATUSES))
    parent_id = colander.SchemaNode(RowId("products", none=True), missing=colander.drop,
                                    validator=product_rule(colander.Range(min=0)),
                                    description="Parent of a variation.")
    regular_price = colander.SchemaNode(DecimalText(), missing=colander.drop, validator=money_amount)
    sale_price = colander.SchemaNode(DecimalText(), missing=colander.drop, validator=money_amount)
    sale_from = colander.SchemaNode(colander.DateTime(), missing=colander.drop,
                                    description="Start of the sale, ISO 8601 (UTC when no offset).")
    sale_to = colander.SchemaNode(colander.DateTime(), missing=colander.drop)
    meta = colander.SchemaNode(colander.Mapping(unknown="preserve"), missing=colander.drop, validator=product_rule(),
                               description="Free-form data of plugins (the keys a plugin reads it checks).")


ProductUpdate = make_partial(ProductBody())


def validate_product(session, body, item=None):
    """A product body checked as ``store/v1/products`` checks it (POST, or PUT for ``item``):
    the validated values, or ``InvalidParams`` naming every bad field (the plugins' rules of
    ``meta`` included). For the admin's forms and plugins that make products."""
    schema = ProductBody() if item is None else ProductUpdate
    bound = schema.bind(product_rules=once(lambda: product_problems(session, body, item)))
    return deserialize(bound, body)


class ProductListQuery(PaginationSchema):
    search = colander.SchemaNode(StrictString(), missing=colander.drop)
    type = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(PRODUCT_TYPES))
    status = colander.SchemaNode(StrictString(), missing=colander.drop,
                                 validator=colander.OneOf(PRODUCT_STATUSES))
    parent = colander.SchemaNode(StrictInt(), missing=colander.drop)


@colander.deferred
def orderable(node, kw):
    """A line whose product can be ordered, checked beside the other fields so that every bad
    parameter is reported at once (``products``: a loader the orders view binds)."""
    products = kw["products"]

    def validate(line, value):
        problems = line_problems(products().get(value["product_id"]), value["product_id"], value["quantity"])
        if problems:
            exc = colander.Invalid(line)
            for field, message in problems.items():
                exc[field] = message
            raise exc

    return validate


@colander.deferred
def existing_user(node, kw):
    users = kw["users"]

    def validate(field, value):
        if value and not users(value):
            raise colander.Invalid(field, f"no user with id {value}")

    return validate


class LineItem(colander.MappingSchema):
    validator = orderable

    product_id = colander.SchemaNode(RowId("products"))
    quantity = colander.SchemaNode(StrictInt(), missing=1, validator=colander.Range(min=1, max=100000))


class LineItems(colander.SequenceSchema):
    item = LineItem()


class Billing(colander.MappingSchema):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in BILLING_FIELDS:
            self.add(colander.SchemaNode(StrictString(), name=name, missing="",
                                         validator=colander.Length(max=250)))


class OrderBody(colander.MappingSchema):
    status = colander.SchemaNode(StrictString(), missing="pending", validator=colander.OneOf(ORDER_STATUSES))
    currency = colander.SchemaNode(StrictString(), missing=colander.drop,
                                   validator=colander.Regex(r"^[A-Z]{3}$", "must be a three-letter code"))
    billing = Billing(missing=colander.drop)
    customer_id = colander.SchemaNode(RowId("users", none=True), missing=colander.drop, validator=existing_user)
    line_items = LineItems(validator=colander.Length(min=1, max=500))


def validate_order(session, body):
    """An order body checked as ``POST store/v1/orders`` checks it: the validated values, or
    ``InvalidParams`` naming every bad field (lines whose product cannot be ordered included)."""
    ids = [line.get("product_id") for line in body.get("line_items") or () if isinstance(line, dict)]
    products = once(lambda: load_products(session, [i for i in ids if isinstance(i, int) and not isinstance(i, bool)]))
    bound = OrderBody().bind(products=products, users=lambda user_id: session.get(User, user_id) is not None)
    return deserialize(bound, body)


class OrderUpdate(colander.MappingSchema):
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(ORDER_STATUSES))
    billing = Billing(missing=colander.drop)


class OrderListQuery(PaginationSchema):
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(ORDER_STATUSES))


class SalesReportQuery(colander.MappingSchema):
    date_min = colander.SchemaNode(DateText(), missing=colander.drop,
                                   description="First local day, YYYY-MM-DD (default 29 days before date_max).")
    date_max = colander.SchemaNode(DateText(), missing=colander.drop,
                                   description="Last local day, YYYY-MM-DD (default today, or 29 days after date_min "
                                               "if that is earlier).")


class LoginBody(colander.MappingSchema):
    login = colander.SchemaNode(StrictString(), validator=colander.Length(min=1, max=60))
    password = colander.SchemaNode(StrictString(), validator=colander.Length(min=1, max=1000))


class TokenBody(colander.MappingSchema):
    login = colander.SchemaNode(StrictString(), missing=colander.drop)
    password = colander.SchemaNode(StrictString(), missing=colander.drop)


def SettingsBody():
    """Any option keys of the section with their new values; checked against the option specs."""
    return colander.SchemaNode(colander.Mapping(unknown="preserve"), name="body",
                               description="Option keys of the section and their new values.")


# --- users (#28): the rules are storeplatform.components.shop.accounts', checked here at the boundary too ----

def account_rule(problem, documented=None):
    """A validator running one of the account rules (``account_rules.login_problem`` ...), so that a
    field is refused with the message the command line and the admin give; ``documented``: the
    colander validators the schema index and the OpenAPI document show for it."""
    def validate(node, value):
        message = problem(value)
        if message:
            raise colander.Invalid(node, message)

    validate.also = documented
    return validate


@colander.deferred
def known_role(node, kw):
    """One of the site's roles (the host's and the plugins': ``roles``, bound by the view)."""
    roles = kw["roles"]

    def validate(field, value):
        if value not in roles:
            raise colander.Invalid(field, f"unknown role {value!r} (roles: {', '.join(roles)})")

    return validate


def _account_text(name, problem, max_length, description, **kw):
    return colander.SchemaNode(StrictString(), name=name, validator=account_rule(problem, colander.Length(max=max_length)),
                               description=description, **kw)


ROLE_DESCRIPTION = f"One of the site's roles ({', '.join(ROLES)}, and those plugins add)."


class UserBody(colander.MappingSchema):
    login = colander.SchemaNode(
        StrictString(), validator=account_rule(account_rules.login_problem, colander.All(
            colander.Length(min=1, max=account_rules.LOGIN_MAX), colander.Regex(account_rules.LOGIN_PATTERN))),
        description="The login, for ever: letters, digits and . _ @ + - (not starting with ck_).")
    email = _account_text("email", account_rules.email_problem, account_rules.EMAIL_MAX, "E-mail address.", missing="")
    name = _account_text("name", account_rules.name_problem, account_rules.NAME_MAX, "Display name (default: the login).",
                         missing=colander.drop)
    password = _account_text("password", account_rules.password_problem, account_rules.PASSWORD_MAX,
                             "Password for cookie login and JWT (none: application passwords only).",
                             missing=colander.drop)
    role = colander.SchemaNode(StrictString(), missing=account_rules.DEFAULT_ROLE, validator=known_role,
                               description=ROLE_DESCRIPTION)


class UserUpdate(colander.MappingSchema):
    email = _account_text("email", account_rules.email_problem, account_rules.EMAIL_MAX, "E-mail address.",
                          missing=colander.drop)
    name = _account_text("name", account_rules.name_problem, account_rules.NAME_MAX, "Display name.", missing=colander.drop)
    password = _account_text("password", account_rules.password_problem, account_rules.PASSWORD_MAX,
                             "A new password: ends every cookie session and JWT of the user.",
                             missing=colander.drop)
    current_password = colander.SchemaNode(StrictString(), missing=colander.drop,
                                           validator=colander.Length(max=account_rules.PASSWORD_MAX),
                                           description="Your current password (to change your own).")
    role = colander.SchemaNode(StrictString(), missing=colander.drop, validator=known_role,
                               description=ROLE_DESCRIPTION + " Needs promote_users; ends every session.")
    disabled = colander.SchemaNode(StrictBoolean(), missing=colander.drop,
                                   description="Refuse every credential of the user (true) or not (false).")


class UserListQuery(PaginationSchema):
    search = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.Length(max=200),
                                 description="Text in the login, e-mail or name (any case).")
    role = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.Length(min=1, max=40),
                               description=ROLE_DESCRIPTION)


class UserDeleteQuery(colander.MappingSchema):
    reassign = colander.SchemaNode(OptionalId("users"), missing=colander.drop,
                                   description="The user who gets the deleted user's posts (none: they stay "
                                               "without an author).")
    force = colander.SchemaNode(StrictBoolean(), missing=True,
                                description="Users have no trash: a user is deleted for good (false is refused).")


class AppPasswordBody(colander.MappingSchema):
    name = colander.SchemaNode(
        StrictString(), validator=account_rule(account_rules.app_password_name_problem, colander.Length(
            min=1, max=account_rules.APP_PASSWORD_NAME_MAX)),
        description="What the password is for (an application, a script).")


class LostPasswordBody(colander.MappingSchema):
    login = colander.SchemaNode(StrictString(), validator=colander.Length(min=1, max=200),
                                description="The account's login or e-mail address.")


class ResetPasswordBody(colander.MappingSchema):
    key = colander.SchemaNode(StrictString(), validator=colander.Length(min=1, max=200),
                              description="The key of the link that was sent.")
    password = _account_text("password", account_rules.password_problem, account_rules.PASSWORD_MAX,
                             "The new password: ends every cookie session and JWT of the user.")
