"""REST routes of {rest_root}/pricecalc/v1."""
from decimal import Decimal

import colander
from sqlalchemy import bindparam, select

from storeplatform.auth import require, user_can
from storeplatform.db import id_in_range
from storeplatform.db.types import utcnow
from storeplatform.rest import RestError, deserialize, invalid_params, json_body, namespace
from storeplatform.store.models import Product
from storeplatform.store.money import currency_format

from . import configuration
from .models import Calculator
from .pricing import calculate, pricing_table
from .schemas import CalculateBody, SaveBody
from .units import UNIT_LABELS

# A calculation is a product id and a few numbers; anything much larger is not one.
CALCULATE_BODY = CalculateBody()
# Unknown keys are kept so that the view can refuse them by name instead of ignoring them.
SAVE_BODY = SaveBody(colander.Mapping(unknown="preserve"))
_SAVE_KEYS = {node.name for node in SAVE_BODY.children}

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


def includeme(config):
    ns = namespace(config, "pricecalc/v1").configure(
        unauthenticated_code="unauthorized", forbidden_code="forbidden",
        description="Measurement price calculator: prices from measurements, calculator settings, units.")

    calc = ns.service(config, "calculate", "/calculate", "Price a product from measurement inputs.")
    # The body is read here, not by the host's validator, so that NaN or Infinity inside
    # measurements are an invalid_measurement naming the input; the schema index still
    # describes the body from the same schema that checks it.
    calc.add_view("POST", post_calculate, response=RESULT_DOC)
    calc.docs["POST"]["body"] = CALCULATE_BODY

    calculator = ns.service(config, "calculator", r"/products/{id:\d+}/calculator",
                            "The calculator configuration of a product.")
    calculator.add_view("GET", get_calculator, response=CONFIGURATION_DOC)
    calculator.add_view("POST", post_calculator, permission=save_permission, body=SAVE_BODY,
                        permission_description="manage_shop",
                        response={"success": "boolean", "message": "string", "product_id": "integer"})

    table = ns.service(config, "pricing-table", r"/products/{id:\d+}/pricing-table",
                       "The pricing rules of a product with formatted prices and sale status.")
    table.add_view("GET", get_pricing_table, response=TABLE_DOC)

    units = ns.service(config, "units", "/units", "Measurement units by type.")
    units.add_view("GET", get_units, response={"<unit type>": {"<unit code>": "label"}})


# --- loading ---------------------------------------------------------------------------------

def invalid_product(message="Invalid product: not found or calculator not enabled.", **data):
    return RestError(404, "invalid_product", message, **data)


# Built once: constructing the statement per request costs more than running it.
_PRODUCTS_WITH_CALCULATORS = (
    select(Product, Calculator).outerjoin(Calculator, Calculator.product_id == Product.id)
    .where(Product.id.in_(bindparam("ids", expanding=True)))
)


def load_with_calculators(session, ids):
    """``{id: (product, calculator or None)}`` for the products ``ids``, in one query."""
    ids = [i for i in ids if id_in_range(i)]
    if not ids:
        return {}
    rows = session.execute(_PRODUCTS_WITH_CALCULATORS, {"ids": ids}).all()
    return {product.id: (product, calc) for product, calc in rows}


def visible(request, product):
    return product.status == "publish" or user_can(request, "manage_shop")


def effective_calculator(request, product_id):
    """The product and the calculator that applies to it (a variation without one of its own
    uses its parent's); invalid_product when there is none or it is disabled."""
    found = load_with_calculators(request.db, [product_id])
    if product_id not in found:
        raise invalid_product()
    product, calc = found[product_id]
    if not visible(request, product):
        raise invalid_product()
    if calc is None and product.type == "variation" and product.parent_id:
        parent = load_with_calculators(request.db, [product.parent_id]).get(product.parent_id)
        if parent is not None and visible(request, parent[0]):
            calc = parent[1]
    if calc is None or not calc.enabled:
        raise invalid_product()
    return product, calc


# --- views -----------------------------------------------------------------------------------

def read_body(request):
    # Numbers exactly, and NaN/Infinity kept so that they are reported as invalid_measurement.
    return json_body(request, parse_float=Decimal, parse_constant=Decimal)


def post_calculate(request):
    body = read_body(request)
    # Absent measurements are the spec's missing_measurements, decided after the product.
    body.setdefault("measurements", None)
    for key in ("product_id", "variation_id"):
        # 5.0 is an integer for the host's StrictInt too; the reader made it a Decimal.
        value = body.get(key)
        if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
            body[key] = int(value)
    v = deserialize(CALCULATE_BODY, body)
    product_id, variation_id = v["product_id"], v.get("variation_id")
    found = load_with_calculators(request.db, [product_id] + ([variation_id] if variation_id is not None else []))
    product, calc = found.get(product_id, (None, None))
    if product is None or product.type == "variation" or not visible(request, product):
        raise invalid_product()
    price_source = product
    if variation_id is not None:
        variation, own = found.get(variation_id, (None, None))
        if variation is None or variation.type != "variation" or variation.parent_id != product_id \
                or not visible(request, variation):
            raise invalid_product(f"Invalid variation: {variation_id} is not a variation of product {product_id}.",
                                  field="variation_id")
        price_source = variation
        if own is not None:
            calc = own
    if calc is None or not calc.enabled:
        raise invalid_product()
    return calculate(calc, price_source, v["measurements"], currency_format(request.db), utcnow())


def get_calculator(request):
    product_id = int(request.matchdict["id"])
    _, calc = effective_calculator(request, product_id)
    return configuration.configuration_json(product_id, calc)


def get_pricing_table(request):
    product_id = int(request.matchdict["id"])
    _, calc = effective_calculator(request, product_id)
    return pricing_table(product_id, calc, currency_format(request.db), utcnow())


def get_units(request):
    return UNIT_LABELS


def save_permission(request):
    """manage_shop first (401/403), then the product (404), before the body is checked."""
    require(request, "manage_shop")
    product_id = int(request.matchdict["id"])
    product = None
    if id_in_range(product_id):
        # Locks the product row: concurrent saves of one product merge one after the other.
        product = request.db.execute(
            select(Product).where(Product.id == product_id).with_for_update()).scalar_one_or_none()
    if product is None:
        raise invalid_product("Invalid product: not found.")
    request.pricecalc_product = product


def post_calculator(request):
    product = request.pricecalc_product
    body = request.validated
    unknown = sorted(set(body) - _SAVE_KEYS)
    if unknown:
        raise invalid_params({key: "unknown field (input fields are adjusted under settings.fields)"
                              for key in unknown})
    calc = request.db.execute(select(Calculator).where(Calculator.product_id == product.id)).scalar_one_or_none()
    try:
        clean = configuration.clean(configuration.merge(configuration.stored_form(calc), body), body)
    except configuration.ConfigurationError as exc:
        raise invalid_params(exc.params)
    if calc is None:
        calc = Calculator(product_id=product.id)
        request.db.add(calc)
    calc.calculator_type = clean["calculator_type"]
    calc.enabled = clean["enabled"]
    calc.settings = clean["settings"]
    calc.variables = clean["variables"]
    calc.formula = clean["formula"]
    calc.pricing_rules = clean["pricing_rules"]
    calc.conditions = clean["conditions"]
    request.db.flush()
    return {"success": True, "message": "Calculator settings saved.", "product_id": product.id}

