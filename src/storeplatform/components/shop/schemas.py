"""Colander schemas of the store/v1 routes."""
import colander

from . import account_rules
from storeplatform.core.auth.capabilities import ROLES
from storeplatform.core.rest import DecimalText, PaginationSchema, StrictBoolean, StrictInt, StrictString, make_partial
from storeplatform.core.rest.schema import deserialize
from storeplatform.core.rest.types import (DateText, IdList, OptionalId, RowId, TextList, bound_check, money_amount,
                                          once)
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


# What a client written for WordPress sends back of a user it read, and WordPress ignores: read
# here too, and ignored (every other unknown field is refused, naming it).
USER_READ_ONLY = ("id", "link", "avatar_urls", "capabilities", "extra_capabilities", "registered_date",
                  "date_created", "_links", "_embedded", "meta")
LOGIN_DESCRIPTION = "The login, for ever: letters, digits and . _ @ + - (not starting with ck_)."
CONTEXTS = ("view", "embed", "edit")


def _login_node(name, description, **kw):
    return colander.SchemaNode(
        StrictString(), name=name, validator=account_rule(account_rules.login_problem, colander.All(
            colander.Length(min=1, max=account_rules.LOGIN_MAX), colander.Regex(account_rules.LOGIN_PATTERN))),
        description=description, **kw)


def _profile_nodes(schema):
    """The profile fields (WordPress's) of a user's body, each optional."""
    for field, max_length, description in (
            ("first_name", account_rules.NAME_MAX, "First name."), ("last_name", account_rules.NAME_MAX, "Last name."),
            ("nickname", account_rules.NAME_MAX, "Nickname."),
            ("url", account_rules.URL_MAX, "Website (an http(s) URL, or empty)."),
            ("description", account_rules.DESCRIPTION_MAX, "Biographical info."),
            ("locale", account_rules.LOCALE_MAX, "Locale (en_US, de_DE ...; empty: the site's).")):
        schema.add(_account_text(field, lambda value, field=field: account_rules.profile_problem(field, value),
                                 max_length, description, missing=colander.drop))


class _Roles(colander.SequenceSchema):
    role = colander.SchemaNode(StrictString(), validator=known_role)


class UserBody(colander.MappingSchema):
    """A new user, in this API's names (``login``, ``role``) or WordPress's (``username``,
    ``roles``: one role, as a user has one here)."""

    known_only = True
    tolerated = USER_READ_ONLY
    # For the OpenAPI document: one of the two names is required.
    json_schema_extra = {"anyOf": [{"required": ["login"]}, {"required": ["username"]}]}

    login = _login_node("login", LOGIN_DESCRIPTION, missing=colander.drop)
    username = _login_node("username", "WordPress's name of login.", missing=colander.drop)
    email = _account_text("email", account_rules.email_problem, account_rules.EMAIL_MAX,
                          "E-mail address (unique, any case).", missing="")
    name = _account_text("name", account_rules.name_problem, account_rules.NAME_MAX, "Display name (default: the login).",
                         missing=colander.drop)
    password = _account_text("password", account_rules.password_problem, account_rules.PASSWORD_MAX,
                             "Password for cookie login and JWT (none: application passwords only).",
                             missing=colander.drop)
    role = colander.SchemaNode(StrictString(), missing=colander.drop, validator=known_role,
                               description=ROLE_DESCRIPTION + " Default customer.")
    roles = _Roles(missing=colander.drop, validator=colander.Length(min=1, max=1, min_err="one role",
                                                                    max_err="a user has one role"),
                   description="WordPress's roles: a list of one role.")
    slug = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.Length(max=account_rules.LOGIN_MAX),
                               description="The login lower-cased (not a field of its own: when sent it must be that).")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _profile_nodes(self)


class UserUpdate(UserBody):
    """A change of a user (PUT, PATCH, POST on the user): any field; the login cannot change."""

    json_schema_extra = None

    current_password = colander.SchemaNode(StrictString(), missing=colander.drop,
                                           validator=colander.Length(max=account_rules.PASSWORD_MAX),
                                           description="Your current password (to change your own).")
    disabled = colander.SchemaNode(StrictBoolean(), missing=colander.drop,
                                   description="Refuse every credential of the user (true) or not (false).")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Copies: the class's nodes are shared with UserBody's (where email defaults to "").
        self.children = [node.clone() for node in self.children]
        for node in self.children:
            node.missing = colander.drop


def _context_nodes(schema):
    schema.add(colander.SchemaNode(StrictString(), name="context", missing="edit", validator=colander.OneOf(CONTEXTS),
                                   description="The shape of the answer: view (public fields), embed, or edit "
                                               "(every field; the default here, as every caller may read it)."))
    schema.add(colander.SchemaNode(TextList(max_items=50, max_length=50), name="_fields", missing=colander.drop,
                                   description="Only these fields of each user (comma-separated)."))


class UserQuery(colander.MappingSchema):
    """The query of one user's routes: the answer's shape. ``_embed`` is taken, as WordPress
    takes it: a user has nothing to embed."""

    known_only = True
    tolerated = ("_embed",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _context_nodes(self)


USER_ORDERBY = ("id", "include", "name", "registered_date", "slug", "login")


class UserListQuery(PaginationSchema):
    known_only = True
    tolerated = ("_embed",)

    search = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.Length(max=200),
                                 description="Text in the login, e-mail or name (any case).")
    role = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.Length(min=1, max=40),
                               description=ROLE_DESCRIPTION)
    roles = colander.SchemaNode(TextList(max_items=20, max_length=40), missing=colander.drop,
                                description="Users with any of these roles (comma-separated).")
    include = colander.SchemaNode(IdList(), missing=colander.drop, description="Only these user ids.")
    exclude = colander.SchemaNode(IdList(), missing=colander.drop, description="Not these user ids.")
    slug = colander.SchemaNode(TextList(max_items=100, max_length=account_rules.LOGIN_MAX), missing=colander.drop,
                               description="Users with these slugs (a slug is the login lower-cased).")
    who = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(("authors",)),
                              description="authors: the users whose role may write posts.")
    orderby = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(USER_ORDERBY),
                                  description="Sort by (default id, newest first; include: the order of include).")
    order = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(("asc", "desc")),
                                description="asc or desc (default asc with orderby, else desc).")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _context_nodes(self)


class UserDeleteQuery(colander.MappingSchema):
    known_only = True

    reassign = colander.SchemaNode(OptionalId("users"), missing=colander.drop,
                                   description="The user who gets the deleted user's posts (none: they stay "
                                               "without an author).")
    force = colander.SchemaNode(StrictBoolean(), missing=True,
                                description="Users have no trash: a user is deleted for good (false is refused).")


APP_PASSWORD_READ_ONLY = ("uuid", "id", "created", "date_created", "last_used", "last_ip", "password", "_links")


class AppPasswordBody(colander.MappingSchema):
    known_only = True
    tolerated = APP_PASSWORD_READ_ONLY

    name = colander.SchemaNode(
        StrictString(), validator=account_rule(account_rules.app_password_name_problem, colander.Length(
            min=1, max=account_rules.APP_PASSWORD_NAME_MAX)),
        description="What the password is for (an application, a script).")
    app_id = colander.SchemaNode(StrictString(), missing=colander.drop,
                                 validator=account_rule(account_rules.app_id_problem, colander.Length(max=36)),
                                 description="The UUID of the application it is for (WordPress's app_id).")


class AppPasswordUpdate(colander.MappingSchema):
    """A new name (WordPress lets nothing else of it change); ``app_id`` sent back unchanged is taken."""

    known_only = True
    tolerated = (*APP_PASSWORD_READ_ONLY, "app_id")

    name = colander.SchemaNode(
        StrictString(), validator=account_rule(account_rules.app_password_name_problem, colander.Length(
            min=1, max=account_rules.APP_PASSWORD_NAME_MAX)),
        description="The password's new name.")


class NoQuery(colander.MappingSchema):
    """A route that takes no query parameter: any is refused, naming it."""

    known_only = True


class LostPasswordBody(colander.MappingSchema):
    login = colander.SchemaNode(StrictString(), validator=colander.Length(min=1, max=200),
                                description="The account's login or e-mail address.")


class ResetPasswordBody(colander.MappingSchema):
    key = colander.SchemaNode(StrictString(), validator=colander.Length(min=1, max=200),
                              description="The key of the link that was sent.")
    password = _account_text("password", account_rules.password_problem, account_rules.PASSWORD_MAX,
                             "The new password: ends every cookie session and JWT of the user.")
