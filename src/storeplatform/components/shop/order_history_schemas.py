"""Colander schemas of an order's notes and refunds (``store/v1/orders/{id}/notes`` and
``/refunds``), which the admin's order page validates its forms with too."""
import re
from decimal import Decimal

import colander

from storeplatform.core.rest import DecimalText, PaginationSchema, StrictBoolean, StrictInt, StrictString
from storeplatform.core.rest.types import RowId
from storeplatform.core.values import parse_decimal
from .order_notes import NOTE_MAX, NOTE_TYPES, note_problem
from .orders import COLUMN_LIMIT
from .refunds import REASON_MAX

MONEY_PLACES = 4
# Digits, a point and more digits: no exponent, sign, or words ("1e9", "-0", "NaN") for money.
_MONEY_TEXT = re.compile(r"^[0-9]{1,40}(\.[0-9]{1,40})?$")


class MoneyText(DecimalText):
    """An amount of money: numeric text ("12.50") or a JSON number read exactly (the routes read
    their bodies with numbers as Decimal: never a float); anything else is refused."""

    def deserialize(self, node, cstruct):
        if cstruct is colander.null or cstruct is None or cstruct == "":
            return colander.null
        if isinstance(cstruct, str):
            if not _MONEY_TEXT.match(cstruct.strip()):
                raise colander.Invalid(node, f"{cstruct[:40]!r} is not an amount such as \"12.50\"")
        elif isinstance(cstruct, bool) or not isinstance(cstruct, (int, Decimal)):
            raise colander.Invalid(node, f"{str(cstruct)[:40]!r} is not an amount such as \"12.50\"")
        try:
            return parse_decimal(cstruct)
        except ValueError as exc:
            raise colander.Invalid(node, str(exc)[:200])


def money(node, value):
    """An amount an order's money column holds exactly: below 10^14, at most 4 decimal places
    (digits that would be rounded away are refused, never rounded)."""
    if value < 0 or value >= COLUMN_LIMIT:
        raise colander.Invalid(node, "must be between 0 and 99999999999999.9999")
    if value.as_tuple().exponent < -MONEY_PLACES and value != value.quantize(Decimal(1).scaleb(-MONEY_PLACES)):
        raise colander.Invalid(node, f"must have at most {MONEY_PLACES} decimal places")


def note_text(node, value):
    problem = note_problem(value)
    if problem:
        raise colander.Invalid(node, problem)


note_text.also = colander.Length(min=1, max=NOTE_MAX)  # what the schema index and OpenAPI show


class NoteBody(colander.MappingSchema):
    note = colander.SchemaNode(StrictString(), validator=note_text, description="The note's text.")
    customer_note = colander.SchemaNode(StrictBoolean(), missing=False,
                                        description="For the customer to read (true) or private to the staff.")
    added_by_user = colander.SchemaNode(StrictBoolean(), missing=False,
                                        description="From you (true), or from the system (false), as "
                                                    "WooCommerce attributes it.")


class NoteListQuery(PaginationSchema):
    type = colander.SchemaNode(StrictString(), missing="any", validator=colander.OneOf(NOTE_TYPES),
                               description="customer: the notes for the customer; internal: the private ones.")


@colander.deferred
def line_of_the_order(node, kw):
    """A line id of the order of the path (``order_lines``: the view's loader of its ids)."""
    lines = kw["order_lines"]

    def validate(field, value):
        if value not in lines():
            raise colander.Invalid(field, f"{value} is not a line of this order")

    return validate


class RefundLineBody(colander.MappingSchema):
    id = colander.SchemaNode(RowId("order_items"), validator=line_of_the_order,
                             description="The id of a line of the order.")
    quantity = colander.SchemaNode(StrictInt(), missing=0, validator=colander.Range(min=0, max=100000),
                                   description="Units given back (their tickets are cancelled).")
    refund_total = colander.SchemaNode(MoneyText(), missing=None, validator=money,
                                       description="Money given back of this line (default: the units' price).")


class RefundLines(colander.SequenceSchema):
    line = RefundLineBody()


class RefundBody(colander.MappingSchema):
    amount = colander.SchemaNode(MoneyText(), missing=None, validator=money,
                                 description="Money given back, as text (\"12.50\"); default: the lines' "
                                             "refund_total together.")
    reason = colander.SchemaNode(StrictString(), missing="", validator=colander.Length(max=REASON_MAX),
                                 description="Why the money is given back.")
    line_items = RefundLines(missing=(), validator=colander.Length(max=500))


class RefundListQuery(PaginationSchema):
    pass
