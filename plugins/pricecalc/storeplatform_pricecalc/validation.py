"""The rules of a calculator configuration, as colander schemas: ``CONFIGURATION`` checks the
merged document before it is stored (``clean``), and the save body of the schema index
(``schemas.SaveBody``) shows the same nodes.

A save reports every bad value at once, named by its path (``settings.fields.width.max``,
``pricing_rules.0.price``), so the objects and lists are read by the types of
``schema_types.py`` rather than colander's own, whose cross-key validators run only once every
key is valid. The rules that depend on the configuration itself (the calculator type, its
inputs, the custom variables) read the bindings ``clean`` gives the schema.
"""
from decimal import Decimal

import colander

from storeplatform.api import deserialize

from .readmodel import CALCULATOR_TYPES, FIELD_DEFAULTS
from .schema_types import (AsSent, Bounds, Formula, InputFields, IsoMoment, Items, NumberList, NumberText, Record,
                           TextUpTo, UnitCode, YesNo, is_formula_name)

INPUT_TYPES = ("free", "options")
SURCHARGE_TYPES = ("percentage", "fixed")
OPERATORS = (">", ">=", "<", "<=", "==", "!=")
MAX_ITEMS = {"pricing_rules": 100, "conditions": 50, "variables": 50, "fields": 10, "options": 50}
MAX_LABEL = 200
# Finer steps than this are no real measuring tool; it also keeps the step check exact.
MAX_STEP_PLACES = 10
ZERO = Decimal(0)


def one_of(choices):
    return colander.OneOf(choices, msg_err="must be one of ${choices}")


def label_node(name, missing, description=""):
    return colander.SchemaNode(AsSent(), name=name, validator=TextUpTo(MAX_LABEL), missing=missing,
                               description=f"{description} At most {MAX_LABEL} characters.".strip())


def required_number(low=None, **kw):
    """A number that must be there: null or "" reads as absent (``required``)."""
    return colander.SchemaNode(NumberText(blank_is_absent=True), validator=Bounds(min=low), missing_msg="required",
                               **kw)


def optional_number(low=None, **kw):
    """A number that may be null or "" (stored as null)."""
    return colander.SchemaNode(NumberText(blank_is_absent=True), validator=Bounds(min=low), missing=None, **kw)


def setting_number(name, low, high=None, places=None, **kw):
    """A number of the settings or of an input's adjustments: there or absent, never null or ""."""
    return colander.SchemaNode(NumberText(), name=name, validator=Bounds(min=low, max=high, places=places),
                               missing=colander.drop, **kw)


# --- settings ------------------------------------------------------------------------------

def max_not_below_min(node, values, failed):
    if "min" not in failed and "max" not in failed:
        if Decimal(values.get("max", FIELD_DEFAULTS["max"])) < Decimal(values.get("min", FIELD_DEFAULTS["min"])):
            yield "max", "must not be less than min"


def options_for_options_input(node, values, failed):
    # Also replaces the message of a bad list: an options input without usable options.
    if values.get("input_type") == "options" and not values.get("options"):
        yield "options", "an options input needs at least one option"


INPUT_ADJUSTMENTS = colander.SchemaNode(
    Record(checks=(max_not_below_min, options_for_options_input)),
    label_node("label", colander.drop),
    colander.SchemaNode(AsSent(), name="unit", validator=UnitCode("input"), missing=colander.drop,
                        description="A unit code of the inputs' kind (GET /units); custom inputs may also use \"\"."),
    setting_number("min", ZERO, description=f"Default {FIELD_DEFAULTS['min']}."),
    setting_number("max", ZERO, description=f"Default {FIELD_DEFAULTS['max']}; not less than min."),
    setting_number("step", ZERO, places=MAX_STEP_PLACES,
                   description=f"Default {FIELD_DEFAULTS['step']}; 0: any value; at most {MAX_STEP_PLACES} places."),
    colander.SchemaNode(AsSent(), name="input_type", validator=one_of(INPUT_TYPES), missing=colander.drop),
    colander.SchemaNode(NumberList(MAX_ITEMS["options"]), colander.SchemaNode(NumberText(), validator=Bounds(min=ZERO)),
                        name="options", missing=colander.drop,
                        description="The values an options input accepts (at least one)."),
    name="<input name>", description="Adjustments of one input.",
)


def custom_needs_unit_and_inputs(node, values, failed):
    if node.bindings["calculator_type"] != "custom":
        return
    if "pricing_unit" not in values and "pricing_unit" not in failed:
        yield "pricing_unit", "required for a custom calculator (a unit code, see GET /units)"
    if "fields" not in values and "fields" not in failed:
        yield "fields", "a custom calculator needs at least one input field"


SETTINGS = colander.SchemaNode(
    Record(unknown="unknown setting", checks=(custom_needs_unit_and_inputs,)),
    colander.SchemaNode(AsSent(), name="pricing_unit", validator=UnitCode("pricing"), missing=colander.drop,
                        description="The unit prices are per: of the measurement's kind (GET /units); "
                                    "default by type, required for a custom calculator."),
    label_node("pricing_label", colander.drop, "Default \"Price per <unit>\"."),
    setting_number("minimum_price", ZERO, description="The lowest total; default 0."),
    setting_number("overage", ZERO, Decimal(100), description="Percent added to the measurement; default 0."),
    colander.SchemaNode(YesNo(), name="enabled", missing=colander.drop,
                        description="yes/no (or true/false, on/off, 1/0); a new calculator is enabled."),
    colander.SchemaNode(InputFields(MAX_ITEMS["fields"]), INPUT_ADJUSTMENTS, name="fields", missing=colander.drop,
                        description="Input name -> adjustments: the type's own inputs, or those of a custom "
                                    f"calculator (at least one, at most {MAX_ITEMS['fields']})."),
    name="settings",
)


# --- lists ---------------------------------------------------------------------------------

def range_end_not_below_start(node, values, failed):
    if values.get("range_start") is not None and values.get("range_end") is not None \
            and Decimal(values["range_end"]) < Decimal(values["range_start"]):
        yield "range_end", "must not be less than range_start"


def sale_to_not_before_from(node, values, failed):
    # Both are UTC ISO texts of one format, so that text order is time order.
    if values.get("sale_from") and values.get("sale_to") and values["sale_to"] < values["sale_from"]:
        yield "sale_to", "must not be before sale_from"


def in_range_order(rules):
    return sorted(rules, key=lambda rule: Decimal(rule["range_start"])) if isinstance(rules, list) else rules


def ranges_do_not_overlap(node, rules):
    for before, after in zip(rules, rules[1:]):
        if before["range_end"] is None or Decimal(after["range_start"]) < Decimal(before["range_end"]):
            raise colander.Invalid(node, f"the ranges starting at {before['range_start']} and "
                                         f"{after['range_start']} overlap")


PRICING_RULE = colander.SchemaNode(
    Record(checks=(range_end_not_below_start, sale_to_not_before_from)),
    required_number(ZERO, name="range_start"),
    optional_number(ZERO, name="range_end", description="null: open-ended; ranges are inclusive."),
    required_number(ZERO, name="price", description="Per pricing unit."),
    optional_number(ZERO, name="sale_price"),
    colander.SchemaNode(IsoMoment(), name="sale_from", missing=None),
    colander.SchemaNode(IsoMoment(), name="sale_to", missing=None, description="Not before sale_from."),
    name="rule",
)


def percentage_not_below_minus_100(node, values, failed):
    if values.get("type") == "percentage" and "value" in values and Decimal(values["value"]) < -100:
        yield "value", "must be at least -100"


def input_or_measurement(node, value):
    """A condition's subject: an input of the calculator (bound) or the measurement."""
    inputs = node.bindings["inputs"]
    if value not in inputs and value != "measurement":
        raise colander.Invalid(node, "must be an input field (" + ", ".join(inputs) + ") or measurement")


CONDITION = colander.SchemaNode(
    Record(checks=(percentage_not_below_minus_100,)),
    colander.SchemaNode(AsSent(absent=None), name="field", validator=input_or_measurement,
                        description="An input name, or measurement."),
    colander.SchemaNode(AsSent(absent=None), name="operator", validator=one_of(OPERATORS)),
    required_number(name="threshold"),
    colander.SchemaNode(AsSent(), name="type", validator=one_of(SURCHARGE_TYPES), missing="percentage"),
    required_number(name="value", description="Percent of the subtotal (at least -100), or a fixed amount."),
    label_node("label", ""),
    name="condition",
)


def variable_name(node, value):
    if not is_formula_name(value):
        raise colander.Invalid(node, "lower-case letters, digits and _ (at most 40), not a function name")


def distinct_variable_names(node, items):
    """Each variable's name is neither an input's nor an earlier variable's. It sees the list as
    sent (``Items``): a name that is no formula name (not text: an object, a list, a number) is
    the name's own rule's error, and is not compared."""
    inputs, seen = node.bindings["inputs"], set()
    for i, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) else None
        if not is_formula_name(name):
            continue
        if name in seen or name in inputs:
            yield (i, "name"), f"{name} is already an input field or variable"
        seen.add(name)


VARIABLE = colander.SchemaNode(
    Record(),
    colander.SchemaNode(AsSent(absent=None), name="name", validator=variable_name,
                        description="Lower-case letters, digits and _, not an input's or a function's name."),
    label_node("label", ""),
    required_number(name="value"),
    name="variable",
)


# --- the configuration ---------------------------------------------------------------------

CALCULATOR_TYPE = colander.SchemaNode(
    AsSent(), name="calculator_type", validator=one_of(tuple(CALCULATOR_TYPES)),
    missing_msg="required for a new calculator (one of " + ", ".join(CALCULATOR_TYPES) + ")")

CONFIGURATION = colander.SchemaNode(
    Record(),
    CALCULATOR_TYPE,
    SETTINGS,
    colander.SchemaNode(Items(MAX_ITEMS["variables"], checks=(distinct_variable_names,)), VARIABLE,
                        name="variables"),
    colander.SchemaNode(Formula(), name="formula"),
    colander.SchemaNode(Items(MAX_ITEMS["pricing_rules"]), PRICING_RULE, name="pricing_rules",
                        preparer=in_range_order, validator=ranges_do_not_overlap),
    colander.SchemaNode(Items(MAX_ITEMS["conditions"]), CONDITION, name="conditions"),
)


def clean(document):
    """``document`` (``merge.merge``) checked and in canonical form (numbers as text, dates in
    UTC, rules in range order); ``InvalidParams`` naming every bad value. Without a valid
    calculator type nothing else can be judged, so that error comes alone."""
    ctype = document.get("calculator_type")
    ctype = deserialize(CALCULATOR_TYPE, colander.null if ctype is None else ctype)
    inputs = input_names(ctype, document["settings"])
    schema = CONFIGURATION.bind(calculator_type=ctype, inputs=inputs,
                                formula_names=inputs + variable_names(document["variables"]))
    return deserialize(schema, document)


def input_names(ctype, settings):
    """The inputs a configuration will have (conditions and formulas may use them): the type's
    own, or a custom calculator's well-named ones."""
    if ctype != "custom":
        return list(CALCULATOR_TYPES[ctype][0])
    fields = settings.get("fields")
    if not isinstance(fields, dict):
        return []
    return [name for name, adjust in fields.items() if isinstance(adjust, dict) and is_formula_name(name)]


def variable_names(variables):
    """The names of the custom variables as sent, good or bad (a bad one is refused by the
    variables' rules; the formula's check names only what it does not know); a name that is not
    text is none a formula could use."""
    if not isinstance(variables, list) or len(variables) > MAX_ITEMS["variables"]:
        return []
    return [item["name"] for item in variables if isinstance(item, dict) and isinstance(item.get("name"), str)]
