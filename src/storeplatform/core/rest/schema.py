"""Reading requests through colander schemas: the query string, the JSON body, validation
into ``InvalidParams``, and the description of the same schemas for the schema index."""
import difflib
import functools
import io
import json
import math
from urllib.parse import parse_qsl
from decimal import Decimal

import colander
from webob.request import DisconnectionError

from .. import errors
from ..errors import InvalidParams
from .types import TYPE_NAMES, IdList, TextList

# JSON bodies of this API are small records; a larger body is refused before parsing.
MAX_BODY_BYTES = 2 * 1024 * 1024


def deserialize(schema, cstruct):
    """Validate ``cstruct`` with ``schema``; raise ``rest_invalid_param`` naming each bad parameter.

    A schema with ``known_only = True`` also names each parameter it does not declare (a
    misspelt one is not silently ignored), but for those in its ``tolerated`` (read-only fields a
    client sends back, ignored as the API it imitates ignores them)."""
    unknown = unknown_params(schema, cstruct) if getattr(schema, "known_only", False) else None
    try:
        value = schema.deserialize(cstruct)
    except colander.Invalid as exc:
        params = {}
        for key, message in exc.asdict().items():
            name = key.split(".", 1)[1] if "." in key and key.split(".", 1)[0] == schema.name else key
            params[name or "body"] = message
        raise InvalidParams({**params, **(unknown or {})})
    if unknown:
        raise InvalidParams(unknown)
    return value


# Parameters of the authentication protocol, not of the route: OAuth 1.0a's may travel in the
# query string (RFC 5849, 3.5.3), and the prefix is reserved for them (3.1).
PROTOCOL_PREFIX = "oauth_"


def unknown_params(schema, cstruct):
    """{name: message} of the keys of ``cstruct`` that ``schema`` neither declares nor tolerates."""
    if not isinstance(cstruct, dict):
        return {}
    known = [node.name for node in schema.children]
    tolerated = getattr(schema, "tolerated", ())
    found = {}
    for key in cstruct:
        if key in known or key in tolerated or str(key).startswith(PROTOCOL_PREFIX):
            continue
        close = difflib.get_close_matches(str(key), known, n=1)
        found[str(key)[:100]] = "unknown parameter" + (f" (did you mean {close[0]}?)" if close else "")
    return found


def query_cstruct(request, schema=None):
    """The query string as a plain dict. A repeated parameter keeps its last value, except for
    list parameters (written ``name[]``, or a list node of ``schema``), which keep all."""
    result = {}
    try:
        params = request.GET
        keys = list(params.keys())
    except UnicodeDecodeError:
        raise errors.INVALID_URL("The query string is not valid UTF-8.")
    lists = _list_names(schema)
    for key in keys:
        values = params.getall(key)
        if any("\x00" in v for v in values):
            raise InvalidParams({key: "NUL characters are not allowed"})
        name = key[:-2] if key.endswith("[]") else key
        result[name] = values if key.endswith("[]") or (name in lists and len(values) > 1) else values[-1]
    return result


def _list_names(schema):
    if schema is None:
        return frozenset()
    return frozenset(node.name for node in schema.children
                     if isinstance(node.typ, (colander.Sequence, IdList, TextList)))


# Media types a JSON route reads: JSON itself (also ``+json`` types) and, as classic store APIs
# accept them, flat HTML forms; any other body is a 415.
FORM_TYPE = "application/x-www-form-urlencoded"


def request_body(request):
    """The body's bytes, refused with a 413 when larger than MAX_BODY_BYTES (before reading it
    when its length is declared). Read from the server's stream once and left seekable for any
    other reader: webob's own first read copies it through two file wrappers."""
    environ = request.environ
    raw = environ.get(_BODY)
    if raw is not None:
        return raw
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        raise errors.REQUEST_TOO_LARGE(f"The request body is larger than {MAX_BODY_BYTES} bytes.")
    if length is None or length < 0 or environ.get("webob.is_body_seekable"):
        raw = request.body
        if len(raw) > MAX_BODY_BYTES:
            raise errors.REQUEST_TOO_LARGE(f"The request body is larger than {MAX_BODY_BYTES} bytes.")
        return raw
    raw = environ["wsgi.input"].read(length) if length else b""
    if len(raw) < length:
        raise DisconnectionError(f"Client disconnected ({length - len(raw)} more bytes were expected)")
    environ["wsgi.input"] = io.BytesIO(raw)
    environ["webob.is_body_seekable"] = True
    environ[_BODY] = raw
    return raw


# environ: the body's bytes as ``request_body`` read them (its next call answers with them).
_BODY = "storeplatform.body"


def json_body(request, parse_float=None, parse_constant=None):
    """The request body as a JSON object; ``{}`` when empty. Malformed JSON is a 400.

    ``parse_float`` / ``parse_constant`` go to ``json.loads`` (e.g. ``Decimal`` to read numbers
    exactly, or to let a route judge NaN itself); by default NaN and Infinity are malformed.
    Text that no database can store (NUL characters, lone UTF-16 surrogates such as
    ``"\\ud800"``) is refused here, once, for every route.
    """
    raw = request_body(request)
    if not raw:
        return {}
    content_type = request.content_type or ""
    if content_type == FORM_TYPE:
        body = _form_body(raw)
    elif content_type and content_type != "application/json" and not content_type.endswith("+json"):
        raise errors.UNSUPPORTED_MEDIA_TYPE(
            f"The request body must be JSON (application/json), not {content_type[:100]}.")
    else:
        try:
            body = _decoder(parse_float, parse_constant or _reject_constant).decode(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise errors.INVALID_JSON(f"The request body is not valid JSON: {exc}")
        except RecursionError:
            raise errors.INVALID_JSON("The request body is nested too deeply.")
        if not isinstance(body, dict):
            raise errors.INVALID_JSON("The request body must be a JSON object.")
    _refuse_unstorable_text(body)
    return body


def _form_body(raw):
    """Flat form fields, a repeated field keeping its last value (as in the query string)."""
    try:
        return dict(parse_qsl(raw.decode("ascii"), keep_blank_values=True, strict_parsing=False,
                              encoding="utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError):
        raise errors.INVALID_JSON("The form body is not valid UTF-8 form data.")


def _refuse_unstorable_text(value):
    """Every string of a parsed body (keys too) must be storable text."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                _check_text(key)
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            _check_text(item)


def _check_text(text):
    if not isinstance(text, str):
        return
    if "\x00" in text:
        raise errors.INVALID_JSON("NUL characters are not allowed in the request body.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise errors.INVALID_JSON("The request body holds text that is not valid Unicode (a lone surrogate).")


@functools.lru_cache(maxsize=16)
def _decoder(parse_float, parse_constant):
    # json.loads makes a decoder (and its scanner) on every call given any option.
    return json.JSONDecoder(parse_float=parse_float, parse_constant=parse_constant)


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
    if getattr(validator, "also", None) is not None:  # a bound_check with the field's own validator
        return _validators(validator.also)
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
