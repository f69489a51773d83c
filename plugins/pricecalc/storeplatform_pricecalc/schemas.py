"""Request bodies and response shapes of the pricecalc/v1 routes (request checks and the schema
index).

The save body is a merge patch of the configuration: here each key is checked for its JSON kind
only (JSON null is kept, not dropped, so that the merge can tell "reset this" from "not sent");
the rules of the parts are those of ``validation``, whose nodes the schema index shows under
each key, and they judge the merged configuration. The measurements of a calculation are
checked by the pricing (invalid_measurement, not rest_invalid_param).
"""
from decimal import Decimal

import colander

from storeplatform.api import RowId, json_body

from .readmodel import CALCULATOR_TYPES
from .validation import CONDITION, PRICING_RULE, SETTINGS, VARIABLE


def _nullable(base, kinds, label):
    class Nullable(base):
        def deserialize(self, node, cstruct):
            if cstruct is colander.null:
                return colander.null
            if cstruct is None or (isinstance(cstruct, kinds) and not isinstance(cstruct, bool)):
                return cstruct
            raise colander.Invalid(node, f"must be {label} or null")

    Nullable.__name__ = f"Nullable{base.__name__}"
    return Nullable


NullableObject = _nullable(colander.Mapping, dict, "an object")
NullableList = _nullable(colander.Sequence, list, "a list")
NullableText = _nullable(colander.String, str, "text")


class AnyJson(colander.Mapping):
    """Any JSON value, checked by the pricing (measurements: invalid_measurement, not 400 here)."""

    def deserialize(self, node, cstruct):
        return cstruct


class CalculateBody(colander.MappingSchema):
    product_id = colander.SchemaNode(RowId("products", error="invalid_product"), description="The product to price.")
    measurements = colander.SchemaNode(
        AnyJson(),
        description="Input name -> number (the field names of the product's calculator); "
                    "absent or incomplete: missing_measurements.")
    variation_id = colander.SchemaNode(RowId("products", error="invalid_product"), missing=colander.drop,
                                       description="A variation of the product (variable products).")


def read_calculate_body(request):
    """The body of POST /calculate as ``CalculateBody`` reads it: numbers exactly (Decimal), and
    NaN or Infinity kept so that inside measurements they are an invalid_measurement naming the
    input; an integral product_id or variation_id (``5.0``) an int, as the host's StrictInt
    reads a float; absent measurements null, the spec's missing_measurements, decided after the
    product."""
    body = json_body(request, parse_float=Decimal, parse_constant=Decimal)
    body.setdefault("measurements", None)
    for key in ("product_id", "variation_id"):
        value = body.get(key)
        if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
            body[key] = int(value)
    return body


def only_known_keys(node, body):
    """Each key the save body does not have is refused by name (colander runs this once the
    known keys are of the right kind, so those errors come first, alone)."""
    unknown = sorted(set(body) - {child.name for child in node.children})
    if unknown:
        invalid = colander.Invalid(node)
        for key in unknown:
            invalid.add(colander.Invalid(colander.SchemaNode(colander.String(), name=key),
                                         "unknown field (input fields are adjusted under settings.fields)"))
        raise invalid


def _patch(kind, *children, **kw):
    """A key of the save body: its JSON kind (or null) checked here; ``children``: the
    validation nodes that judge it once merged, shown by the schema index."""
    return colander.SchemaNode(kind(), *(child.clone() for child in children), missing=colander.drop, **kw)


class SaveBody(colander.MappingSchema):
    calculator_type = colander.SchemaNode(
        NullableText(), missing=colander.drop, validator=colander.OneOf(tuple(CALCULATOR_TYPES)),
        description="length, area, perimeter, volume, weight or custom (a formula over the inputs).")
    settings = _patch(
        NullableObject, *SETTINGS.children,
        description="pricing_unit, pricing_label, minimum_price, overage (percent), enabled (yes/no), "
                    "fields: {name: {label, unit, min, max, step, input_type, options}}; deep merged, "
                    "null removes a key.")
    variables = _patch(NullableList, VARIABLE,
                       description="Custom variables [{name, label, value}] (replaces the list).")
    formula = colander.SchemaNode(NullableText(), missing=colander.drop,
                                  description="Formula of a custom calculator over its inputs and variables.")
    pricing_rules = _patch(
        NullableList, PRICING_RULE,
        description="[{range_start, range_end (null: open), price, sale_price, sale_from, sale_to}] "
                    "(replaces the list; non-overlapping ranges, kept in range order).")
    conditions = _patch(
        NullableList, CONDITION,
        description="[{field (input name or measurement), operator, threshold, type (percentage or fixed), "
                    "value, label}] (replaces the list).")


# Unknown keys are kept by the type so that the validator refuses them by name instead of
# ignoring them (after the JSON kinds of the known ones are right).
SAVE_BODY = SaveBody(colander.Mapping(unknown="preserve"), validator=only_known_keys)
CALCULATE_BODY = CalculateBody()

# Response shapes for the schema index.
RESULT_DOC = {
    "success": "boolean", "calculated_measurement": "number", "measurement_unit": "string",
    "price_per_unit": "number", "total_price": "number", "total_price_formatted": "string",
    "overage_percentage": "number (when an overage is configured)",
    "measurement_with_overage": "number (when an overage is configured)",
    "surcharges": [{"type": "percentage|fixed", "value": "number", "amount": "number", "label": "string"}],
    "pricing_tier": {"range_start": "number", "range_end": "number|null", "price": "number", "is_sale": "boolean"},
}
CONFIGURATION_DOC = {
    "product_id": "integer", "calculator_type": "string", "pricing_unit": "string", "pricing_label": "string",
    "minimum_price": "numeric text", "overage": "numeric text",
    "fields": [{"name": "string", "label": "string", "unit": "string", "min": "numeric text",
                "max": "numeric text", "step": "numeric text", "input_type": "free|options",
                "options": ["numeric text"]}],
    "pricing_rules": [{"range_start": "numeric text", "range_end": "numeric text|null", "price": "numeric text",
                       "sale_price": "numeric text|null", "sale_from": "date-time|null", "sale_to": "date-time|null"}],
    "conditions": [{"field": "string", "operator": "string", "threshold": "numeric text",
                    "type": "percentage|fixed", "value": "numeric text", "label": "string"}],
    "custom_variables": [{"name": "string", "label": "string", "value": "numeric text"}],
}
TABLE_DOC = {
    "product_id": "integer", "pricing_unit": "string",
    "rules": [{"range_start": "number", "range_end": "number|null", "price": "number", "price_formatted": "string",
               "sale_price": "number|null", "sale_price_formatted": "string|null", "is_sale_active": "boolean"}],
}
SAVED_DOC = {"success": "boolean", "message": "string", "product_id": "integer"}
UNITS_DOC = {"<unit type>": {"<unit code>": "label"}}
