"""Colander schemas of the store/v1 routes."""
import colander

from ..rest import DecimalText, PaginationSchema, StrictInt, StrictString, make_partial
from ..rest.types import RowId, bound_check, money_amount
from .orders import BILLING_FIELDS, STATUSES as ORDER_STATUSES, line_problems
from .products import STATUSES as PRODUCT_STATUSES, TYPES as PRODUCT_TYPES


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
    meta = colander.SchemaNode(colander.Mapping(unknown="preserve"), missing=colander.drop,
                               description="Free-form data of plugins.")


ProductUpdate = make_partial(ProductBody())


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


class OrderUpdate(colander.MappingSchema):
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(ORDER_STATUSES))
    billing = Billing(missing=colander.drop)


class OrderListQuery(PaginationSchema):
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(ORDER_STATUSES))


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
