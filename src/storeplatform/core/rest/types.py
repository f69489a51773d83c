"""Colander types and validators for query strings and JSON bodies: each refuses what is not
its kind (a number sent for text, a float for an integer) instead of converting it, so a bad
value is a ``rest_invalid_param`` naming the field and never reaches the database."""
import re
from datetime import date
from decimal import Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import colander

from ..values import INT_MAX, is_digits, parse_bool, parse_decimal


class StrictBoolean(colander.Boolean):
    """Booleans as JSON true/false or the usual query-string spellings (an empty value is
    false); anything else is invalid."""

    def deserialize(self, node, cstruct):
        if cstruct is colander.null:
            return colander.null
        if isinstance(cstruct, str) and not cstruct.strip():
            return False
        try:
            return parse_bool(cstruct)
        except ValueError as exc:
            raise colander.Invalid(node, str(exc))


class StrictInt(colander.Int):
    """Integers only: JSON numbers with no fraction or digit strings (no floats truncated)."""

    def deserialize(self, node, cstruct):
        if cstruct is colander.null or cstruct == "":
            return colander.null
        if isinstance(cstruct, bool):
            raise colander.Invalid(node, f"{cstruct!r} is not an integer")
        if isinstance(cstruct, float) and cstruct.is_integer():
            cstruct = int(cstruct)
        if isinstance(cstruct, int):
            value = cstruct
        else:
            text = str(cstruct).strip()
            if not (is_digits(text.lstrip("+-")) and len(text) <= 20):
                raise colander.Invalid(node, f"{cstruct!r} is not an integer")
            value = int(text)
        # 64-bit at most (SQLite's integers); whether an id names a row is the lookup's
        # business (get_by_id / id_in_range).
        if not -(2**63) <= value < 2**63:
            raise colander.Invalid(node, f"{cstruct!r} is out of range")
        return value


class StrictString(colander.String):
    """Text only: a number or an object sent for a text field is an error, not stringified."""

    def deserialize(self, node, cstruct):
        if cstruct is colander.null:
            return colander.null
        if cstruct is None:
            return ""
        if not isinstance(cstruct, str):
            raise colander.Invalid(node, f"{cstruct!r} is not a string")
        return cstruct


class DecimalText(colander.SchemaType):
    """A finite decimal number given as a JSON number or numeric text."""

    def serialize(self, node, appstruct):
        return colander.null if appstruct is colander.null else str(appstruct)

    def deserialize(self, node, cstruct):
        if cstruct is colander.null or cstruct == "":
            return colander.null
        try:
            return parse_decimal(cstruct)
        except ValueError as exc:
            raise colander.Invalid(node, str(exc))


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


class DateText(colander.SchemaType):
    """A calendar date written YYYY-MM-DD."""

    def serialize(self, node, appstruct):
        return colander.null if appstruct is colander.null else appstruct.isoformat()

    def deserialize(self, node, cstruct):
        if cstruct is colander.null or cstruct == "":
            return colander.null
        if not isinstance(cstruct, str) or not _DATE.match(cstruct.strip()):
            raise colander.Invalid(node, f"{cstruct!r} is not a date (YYYY-MM-DD)")
        try:
            return date.fromisoformat(cstruct.strip())
        except ValueError:
            raise colander.Invalid(node, f"{cstruct!r} is not a valid date")


class TimeText(colander.SchemaType):
    """A time of day written HH:MM (24 hours)."""

    def serialize(self, node, appstruct):
        return appstruct

    def deserialize(self, node, cstruct):
        if cstruct is colander.null:
            return colander.null
        if not isinstance(cstruct, str) or not _TIME.match(cstruct.strip()):
            raise colander.Invalid(node, f"{cstruct!r} is not a time (HH:MM)")
        return cstruct.strip()


class RowId(StrictInt):
    """The id of a row a field refers to (``to``: what it names, e.g. ``"products"``). Every
    reference of a body is of this type, so the OpenAPI document marks it (``x-references``)
    and a sweep finds the references of every route, later ones too. The view checks that the
    row exists as validation (a bound deferred validator): a missing row is a bad parameter,
    or the route's own ``error`` code where its spec names one. ``none``: 0 means no reference."""

    def __init__(self, to, *, none=False, error=None):
        super().__init__()
        self.to = to
        self.none = none
        self.error = error


class OptionalId(RowId):
    """An id of another item, where null or 0 means "none" (returned as 0)."""

    def __init__(self, to, *, error=None):
        super().__init__(to, none=True, error=error)

    def deserialize(self, node, cstruct):
        if cstruct is None:
            return 0
        value = super().deserialize(node, cstruct)
        if value is not colander.null and value < 0:
            raise colander.Invalid(node, f"{value} is not a valid id")
        return value


class IdList(colander.SchemaType):
    """Comma-separated positive ids (also accepted as repeated parameters)."""

    MAX_IDS = 1000

    def serialize(self, node, appstruct):
        return ",".join(map(str, appstruct))

    def deserialize(self, node, cstruct):
        if cstruct is colander.null or cstruct == "":
            return colander.null
        parts = cstruct if isinstance(cstruct, list) else str(cstruct).split(",")
        ids = []
        for part in parts:
            part = str(part).strip()
            if not is_digits(part) or len(part) > 18:
                raise colander.Invalid(node, f"{cstruct!r} is not a comma-separated list of ids")
            ids.append(int(part))
        if len(ids) > self.MAX_IDS:
            raise colander.Invalid(node, f"at most {self.MAX_IDS} ids")
        return ids


class TextList(colander.SchemaType):
    """Comma-separated words (also accepted as repeated parameters): slugs, role names. Each is
    stripped; empty ones are dropped; ``max_items`` at most, each ``max_length`` at most."""

    json_schema = {"type": "string", "description": "comma-separated"}

    def __init__(self, max_items=100, max_length=200):
        self.max_items, self.max_length = max_items, max_length

    def serialize(self, node, appstruct):
        return ",".join(appstruct)

    def deserialize(self, node, cstruct):
        if cstruct is colander.null or cstruct == "":
            return colander.null
        parts = cstruct if isinstance(cstruct, list) else str(cstruct).split(",") if isinstance(cstruct, str) else None
        if parts is None or not all(isinstance(part, str) for part in parts):
            raise colander.Invalid(node, f"{cstruct!r} is not a comma-separated list")
        words = [word for word in (part.strip() for part in parts) if word]
        if len(words) > self.max_items:
            raise colander.Invalid(node, f"at most {self.max_items} items")
        if any(len(word) > self.max_length for word in words):
            raise colander.Invalid(node, f"each item at most {self.max_length} characters")
        return words


# The range of a count or an id stored in an integer column.
COLUMN_INT = colander.Range(min=0, max=INT_MAX)
POSITIVE_ID = colander.Range(min=1, max=INT_MAX)


# What a ``Money`` column (NUMERIC(18, 4)) holds; prices are kept below 10^12.
MONEY_PLACES = 4
MONEY_LIMIT = 10**12


def money_amount(node, value):
    """A non-negative amount a money column stores exactly: at most 4 decimal places and below
    10^12, so that the digits a client reads back are the digits it sent (never rounded)."""
    if value < 0 or value >= MONEY_LIMIT:
        raise colander.Invalid(node, "must be between 0 and 999999999999.9999")
    if value.as_tuple().exponent < -MONEY_PLACES and value != value.quantize(Decimal(1).scaleb(-MONEY_PLACES)):
        raise colander.Invalid(node, f"must have at most {MONEY_PLACES} decimal places")


def bound_check(name, also=None):
    """A deferred validator for rules across fields or against stored rows: the view binds
    ``name`` to a function ``() -> {field: message}`` (worked out once per request from the raw
    body and the stored row), and each field with this validator raises its own problem, so
    such rules are reported beside every other bad parameter instead of after the schema.
    The fields a rule may name need the validator (colander runs none for an absent field).
    ``also``: the field's own validator, run first (and described in the schema index)."""
    def bind(node, kw):
        problems = kw[name]

        def validate(field, value):
            if also is not None:
                also(field, value)
            problem = problems().get(field.name)
            if problem:
                raise colander.Invalid(field, problem)

        return validate

    deferred = colander.deferred(bind)
    deferred.also = also
    return deferred


def once(work):
    """``work`` called on first use only: the bound problem functions of ``bound_check``."""
    done = []

    def cached():
        if not done:
            done.append(work())
        return done[0]

    return cached


def not_blank(node, value):
    if not value.strip():
        raise colander.Invalid(node, "must not be empty")


def is_url(text):
    return re.match(r"^https?://[^\s/]+", text) is not None


def url_or_empty(node, value):
    if value and not is_url(value):
        raise colander.Invalid(node, "must be an http(s) URL")


def valid_email(node, value):
    if value and not re.match(r"^[^@\s]+@[^@\s]+\.[^@\s]+$", value):
        raise colander.Invalid(node, f"{value!r} is not an email address")


def valid_timezone(node, value):
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise colander.Invalid(node, f"{value!r} is not a time zone name such as Europe/Paris")


TYPE_NAMES = {
    colander.String: "string",
    colander.Int: "integer",
    colander.Integer: "integer",
    colander.Float: "number",
    colander.Decimal: "number",
    colander.Money: "number",
    colander.Boolean: "boolean",
    colander.Mapping: "object",
    colander.Sequence: "array",
    colander.Tuple: "array",
    colander.DateTime: "date-time",
    colander.Date: "date",
    colander.Time: "time",
    StrictBoolean: "boolean",
    StrictInt: "integer",
    DecimalText: "number",
    StrictString: "string",
}
