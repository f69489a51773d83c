"""``GET {rest_root}/openapi.json``: an OpenAPI 3.1 document of every namespace the request can
reach, generated from the same colander schemas that validate requests (never written by hand),
so that a property-based run (schemathesis) can try every route the site serves."""
import re

import colander

from .index import PLACEHOLDER, guard_allows
from .namespaces import NAMESPACES_KEY
from .types import DateText, DecimalText, IdList, RowId, StrictBoolean, StrictInt, StrictString, TimeText

ERROR_SCHEMA = {
    "type": "object",
    "required": ["code", "message", "data"],
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "data": {"type": "object", "required": ["status"], "properties": {"status": {"type": "integer"}}},
    },
}


def openapi_document(request):
    prefix = request.registry.settings["storeplatform.rest_prefix"]
    paths = {}
    namespaces = request.registry.get(NAMESPACES_KEY, {})
    for name in sorted(namespaces):
        ns = namespaces[name]
        if not guard_allows(ns, request):
            continue
        for service in ns.services:
            paths[PLACEHOLDER.sub(r"{\1}", service.path[len(prefix):])] = _path_item(ns, service)
    _add_links(paths)
    return {
        "openapi": "3.1.0",
        "info": {"title": request.site_options["site.title"], "version": "1"},
        "servers": [{"url": request.application_url + prefix}],
        "paths": paths,
        "components": {
            "schemas": {"Error": ERROR_SCHEMA},
            "securitySchemes": {"basic": {"type": "http", "scheme": "basic"},
                                "bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def _path_item(ns, service):
    item = {}
    path_params = [
        {"name": m.group(1), "in": "path", "required": True,
         "schema": ({"type": "integer", "minimum": 0} if (m.group(2) or "").startswith(r"\d")
                    else {"type": "string", "minLength": 1})}
        for m in PLACEHOLDER.finditer(service.path)
    ]
    for method in sorted(service.docs):
        doc = service.docs[method]
        operation = {
            "operationId": f"{service.name}:{method}",
            "tags": [ns.name],
            "summary": service.description,
            "parameters": path_params + _query_parameters(doc["query"]),
            "responses": {
                "2XX": success_answer(doc["response"]),
                "default": {"description": "The error body.",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
            },
        }
        if doc["permission"]:
            operation["description"] = f"Needs the capability {doc['permission']}."
            operation["security"] = [{"basic": []}, {"bearer": []}]
        if doc["body"] is not None:
            operation["requestBody"] = {
                "required": any(child.required for child in doc["body"].children),
                "content": {"application/json": {"schema": node_schema(doc["body"])}},
            }
        item[method.lower()] = operation
    return item


# Keywords that make a ``response=`` dict a JSON Schema rather than a sketch of the answer.
SCHEMA_KEYWORDS = {"type", "$ref", "properties", "items", "oneOf", "anyOf", "allOf", "enum", "const"}


def success_answer(response):
    """The 2XX answer of an operation from its view's ``response=``, which the schema index shows
    as it is: a JSON Schema of the JSON answer (``content_type`` names another media type), a
    media type alone (a binary answer: ``"image/png"``), or a sketch (``{"field": "type words"}``),
    which is no schema a client could check answers against, so it travels as ``x-shape``."""
    answer = {"description": "Success."}
    if isinstance(response, str):
        answer["content"] = {response: {"schema": {"type": "string", "format": "binary"}}}
    elif isinstance(response, dict) and SCHEMA_KEYWORDS & set(response):
        schema = dict(response)
        media_type = schema.pop("content_type", "application/json")
        answer["content"] = {media_type: {"schema": schema}}
    elif response is not None:
        answer["content"] = {"application/json": {}}
        answer["x-shape"] = response
    return answer


def _query_parameters(schema):
    if schema is None:
        return []
    params = []
    for node in schema.children:
        param = {"name": node.name, "in": "query", "required": node.required, "schema": node_schema(node)}
        if node.description:
            param["description"] = node.description
        params.append(param)
    return params


def node_schema(node):
    """JSON Schema of a colander node: its type, bounds, choices and nested nodes."""
    typ = node.typ
    custom = getattr(typ, "json_schema", None)
    if custom is not None:
        schema = dict(custom)
    elif isinstance(typ, StrictBoolean) or isinstance(typ, colander.Boolean):
        schema = {"type": "boolean"}
    elif isinstance(typ, (StrictInt, colander.Int)):
        schema = {"type": "integer"}
    elif isinstance(typ, DecimalText):
        schema = {"type": ["number", "string"]}
    elif isinstance(typ, DateText):
        schema = {"type": "string", "format": "date"}
    elif isinstance(typ, TimeText):
        schema = {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"}
    elif isinstance(typ, IdList):
        schema = {"type": "string", "pattern": "^[0-9]+(,[0-9]+)*$"}
    elif isinstance(typ, colander.DateTime):
        schema = {"type": "string", "format": "date-time"}
    elif isinstance(typ, (StrictString, colander.String)):
        schema = {"type": "string"}
    elif isinstance(typ, colander.Mapping):
        schema = {"type": "object"}
        if node.children:
            schema["properties"] = {child.name: node_schema(child) for child in node.children}
            required = [child.name for child in node.children if child.required]
            if required:
                schema["required"] = required
        if getattr(node, "known_only", False):  # other fields are refused (rest.schema.deserialize)
            schema["additionalProperties"] = False
        schema.update(getattr(node, "json_schema_extra", None) or {})
    elif isinstance(typ, (colander.Sequence, colander.Tuple)):
        schema = {"type": "array"}
        if node.children:
            schema["items"] = node_schema(node.children[0])
    else:
        schema = {}
    _apply_validators(schema, node.validator)
    if isinstance(typ, RowId):
        # A reference to a row: what it names, whether 0 means none, and the route's own error
        # code for a missing row when it has one (else rest_invalid_param naming the field).
        schema["x-references"] = {"to": typ.to, "zero_is_none": typ.none, "error": typ.error or "rest_invalid_param"}
    if node.description:
        schema["description"] = node.description
    return schema


def _apply_validators(schema, validator):
    if validator is None:
        return
    if isinstance(validator, colander.All):
        for sub in validator.validators:
            _apply_validators(schema, sub)
    elif isinstance(validator, colander.OneOf):
        schema["enum"] = list(validator.choices)
    elif isinstance(validator, colander.Range):
        if validator.min is not None:
            schema["minimum"] = _number(validator.min)
        if validator.max is not None:
            schema["maximum"] = _number(validator.max)
    elif isinstance(validator, colander.Length):
        kind = "Items" if schema.get("type") == "array" else "Length"
        if validator.min is not None:
            schema[f"min{kind}"] = validator.min
        if validator.max is not None:
            schema[f"max{kind}"] = validator.max
    elif isinstance(validator, colander.Regex):
        schema["pattern"] = validator.match_object.pattern
    elif getattr(validator, "also", None) is not None:  # a bound_check with the field's own validator
        _apply_validators(schema, validator.also)


def _number(value):
    return int(value) if value == int(value) else float(value)


def _add_links(paths):
    """Stateful links where ids flow: a 201 of ``POST /x`` gives ``{id}`` of ``/x/{id}``."""
    item_path = re.compile(r"^(.*)/\{id\}$")
    for path, item in paths.items():
        match = item_path.match(path)
        if not match or match.group(1) not in paths or "post" not in paths[match.group(1)]:
            continue
        links = {f"{method.upper()} {path}": {"operationId": operation["operationId"],
                                               "parameters": {"id": "$response.body#/id"}}
                 for method, operation in item.items()}
        paths[match.group(1)]["post"]["responses"]["201"] = {"description": "Created.", "links": links}

