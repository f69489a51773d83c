"""Colander schemas: request validation and the schema index come from the same nodes."""
import json
import math
from decimal import Decimal, InvalidOperation

import colander

from .errors import RestError

# JSON bodies of this API are small records; a larger body is refused before parsing.
MAX_BODY_BYTES = 2 * 1024 * 1024

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
}


class StrictBoolean(colander.Boolean):
    """Booleans as JSON true/false or the usual query-string spellings; anything else is invalid."""

    TRUE = {"true", "1", "yes", "on"}
    FALSE = {"false", "0", "no", "off", ""}

    def deserialize(self, node, cstruct):
        if cstruct is colander.null:
            return colander.null
        if isinstance(cstruct, bool):
            return cstruct
        if isinstance(cstruct, int) and cstruct in (0, 1):
            return bool(cstruct)
        text = str(cstruct).strip().lower()
        if text in self.TRUE:
            return True
        if text in self.FALSE:
            return False
        raise colander.Invalid(node, f"{cstruct!r} is not a boolean")


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
            if not (text.lstrip("+-").isdigit() and len(text) <= 20):
                raise colander.Invalid(node, f"{cstruct!r} is not an integer")
            value = int(text)
        # 64-bit at most (SQLite's integers); whether an id names a row is the lookup's
        # business (storeplatform.db.get_by_id / id_in_range).
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


def parse_decimal(value):
    """A finite Decimal from a JSON number or numeric text; ValueError saying why otherwise."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise ValueError(f"{value!r} is not a number")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"{value!r} is not a number")
    if not number.is_finite():
        raise ValueError(f"{value!r} is not a finite number")
    return number


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


TYPE_NAMES[StrictBoolean] = "boolean"
TYPE_NAMES[StrictInt] = "integer"
TYPE_NAMES[DecimalText] = "number"
TYPE_NAMES[StrictString] = "string"


def invalid_params(params):
    return RestError(400, "rest_invalid_param", "Invalid parameter(s): " + ", ".join(sorted(params)) + ".",
                     params=params)


def deserialize(schema, cstruct):
    """Validate ``cstruct`` with ``schema``; raise ``rest_invalid_param`` naming each bad parameter."""
    try:
        return schema.deserialize(cstruct)
    except colander.Invalid as exc:
        params = {}
        for key, message in exc.asdict().items():
            name = key.split(".", 1)[1] if "." in key and key.split(".", 1)[0] == schema.name else key
            params[name or "body"] = message
        raise invalid_params(params)


def query_cstruct(request):
    """The query string as a plain dict; a repeated parameter keeps its last value,
    except for sequence parameters (``name[]`` or repeated) that keep all."""
    result = {}
    try:
        params = request.GET
        keys = list(params.keys())
    except UnicodeDecodeError:
        raise RestError(400, "rest_invalid_url", "The query string is not valid UTF-8.")
    for key in keys:
        values = params.getall(key)
        if any("\x00" in v for v in values):
            raise invalid_params({key: "NUL characters are not allowed"})
        name = key[:-2] if key.endswith("[]") else key
        result[name] = values if key.endswith("[]") or len(values) > 1 else values[-1]
    return result


def json_body(request, parse_float=None, parse_constant=None):
    """The request body as a JSON object; ``{}`` when empty. Malformed JSON is a 400.

    ``parse_float`` / ``parse_constant`` go to ``json.loads`` (e.g. ``Decimal`` to read numbers
    exactly, or to let a route judge NaN itself); by default NaN and Infinity are malformed.
    """
    if not request.body:
        return {}
    content_type = request.content_type or ""
    if content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return request.POST.mixed()
    if len(request.body) > MAX_BODY_BYTES:
        raise RestError(413, "rest_request_too_large", f"The request body is larger than {MAX_BODY_BYTES} bytes.")
    try:
        body = json.loads(request.body.decode("utf-8"), parse_float=parse_float,
                          parse_constant=parse_constant or _reject_constant)
    except (ValueError, UnicodeDecodeError) as exc:
        raise RestError(400, "rest_invalid_json", f"The request body is not valid JSON: {exc}")
    except RecursionError:
        raise RestError(400, "rest_invalid_json", "The request body is nested too deeply.")
    # JSON escapes NUL as \u0000; databases refuse it in text, so it is refused here, once.
    if b"\\u0000" in request.body:
        raise RestError(400, "rest_invalid_json", "NUL characters are not allowed in the request body.")
    if not isinstance(body, dict):
        raise RestError(400, "rest_invalid_json", "The request body must be a JSON object.")
    return body


def _reject_constant(name):
    # NaN and Infinity are not JSON; Python's parser accepts them unless told not to.
    raise ValueError(f"{name} is not allowed")


def make_partial(schema):
    """A copy of a mapping schema where every field may be omitted (partial updates)."""
    clone = schema.clone()
    for child in clone.children:
        child.missing = colander.drop
    return clone


def describe(schema, location):
    """The arguments of a schema for the schema index."""
    if schema is None:
        return {}
    args = {}
    for node in schema.children:
        args[node.name] = describe_node(node, location)
    return args


def describe_node(node, location):
    arg = {
        "type": _type_name(node.typ),
        "required": node.required,
        "location": location,
    }
    default = node.missing
    if default is not colander.required and default is not colander.drop and default is not colander.null:
        arg["default"] = _jsonable(default)
    if node.description:
        arg["description"] = node.description
    enum = _enum(node.validator)
    if enum is not None:
        arg["enum"] = enum
    for bound in ("minimum", "maximum"):
        value = _bound(node.validator, bound)
        if value is not None:
            arg[bound] = value
    if isinstance(node.typ, colander.Mapping) and node.children:
        arg["properties"] = {child.name: describe_node(child, location) for child in node.children}
    if isinstance(node.typ, colander.Sequence) and node.children:
        arg["items"] = describe_node(node.children[0], location)
    return arg


def _type_name(typ):
    for cls in type(typ).__mro__:
        if cls in TYPE_NAMES:
            return TYPE_NAMES[cls]
    return "string"


def _validators(validator):
    if validator is None:
        return []
    if isinstance(validator, (colander.All, colander.Any)):
        return [v for sub in validator.validators for v in _validators(sub)]
    return [validator]


def _enum(validator):
    for v in _validators(validator):
        if isinstance(v, colander.OneOf):
            return list(v.choices)
    return None


def _bound(validator, which):
    for v in _validators(validator):
        if isinstance(v, colander.Range):
            value = v.min if which == "minimum" else v.max
            if value is not None:
                return _jsonable(value)
    return None


def _jsonable(value):
    if isinstance(value, Decimal):
        return float(value) if not value == value.to_integral_value() else int(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, int, float, bool, list, dict)) or value is None:
        return value
    return str(value)
