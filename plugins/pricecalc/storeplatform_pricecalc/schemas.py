"""Colander schemas of the pricecalc/v1 routes (request checks and the schema index).

The nested values (settings, rules, conditions, variables, measurements) are checked by
``configuration.clean`` and ``pricing.read_measurements``, which name each bad value; here
only their JSON kind is. JSON null is kept (not dropped), so that the save route can tell
"reset this" from "not sent".
"""
import colander

from storeplatform.rest import StrictInt

from .configuration import CALCULATOR_TYPES


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
    """Any JSON value, checked by the view (measurements: invalid_measurement, not 400 here)."""

    def deserialize(self, node, cstruct):
        return cstruct


class CalculateBody(colander.MappingSchema):
    product_id = colander.SchemaNode(StrictInt(), description="The product to price.")
    measurements = colander.SchemaNode(
        AnyJson(),
        description="Input name -> number (the field names of the product's calculator); "
                    "absent or incomplete: missing_measurements.")
    variation_id = colander.SchemaNode(StrictInt(), missing=colander.drop,
                                       description="A variation of the product (variable products).")


class SaveBody(colander.MappingSchema):
    calculator_type = colander.SchemaNode(
        NullableText(), missing=colander.drop, validator=colander.OneOf(tuple(CALCULATOR_TYPES)),
        description="length, area, perimeter, volume, weight or custom (a formula over the inputs).")
    settings = colander.SchemaNode(
        NullableObject(), missing=colander.drop,
        description="pricing_unit, pricing_label, minimum_price, overage (percent), enabled (yes/no), "
                    "fields: {name: {label, unit, min, max, step, input_type, options}}; deep merged, "
                    "null removes a key.")
    variables = colander.SchemaNode(NullableList(), missing=colander.drop,
                                    description="Custom variables [{name, label, value}] (replaces the list).")
    formula = colander.SchemaNode(NullableText(), missing=colander.drop,
                                  description="Formula of a custom calculator over its inputs and variables.")
    pricing_rules = colander.SchemaNode(
        NullableList(), missing=colander.drop,
        description="[{range_start, range_end (null: open), price, sale_price, sale_from, sale_to}] "
                    "(replaces the list).")
    conditions = colander.SchemaNode(
        NullableList(), missing=colander.drop,
        description="[{field (input name or measurement), operator, threshold, type (percentage or fixed), "
                    "value, label}] (replaces the list).")
