"""REST routes of {rest_root}/pricecalc/v1, in the order of the schema index."""
from sqlalchemy import select

from storeplatform.api import Service, currency_format, require, utcnow

from . import pricing, readmodel
from .merge import merge
from .models import Calculator
from .products import applicable, lock_product
from .schemas import (CALCULATE_BODY, CONFIGURATION_DOC, RESULT_DOC, SAVE_BODY, SAVED_DOC, TABLE_DOC, UNITS_DOC,
                      read_calculate_body)
from .units import UNIT_LABELS
from .validation import clean

NAMESPACE = "pricecalc/v1"

calculation = Service(NAMESPACE, "/calculate", name="calculate", description="Price a product from measurement inputs.")
calculator = Service(NAMESPACE, r"/products/{id:\d+}/calculator", name="calculator",
                     description="The calculator configuration of a product.")
pricing_table = Service(NAMESPACE, r"/products/{id:\d+}/pricing-table", name="pricing-table",
                        description="The pricing rules of a product with formatted prices and sale status.")
units = Service(NAMESPACE, "/units", name="units", description="Measurement units by type.")


@calculation.post(body=CALCULATE_BODY, body_reader=read_calculate_body, response=RESULT_DOC, read_only=True,
                  cache="public")
def post_calculate(request):
    v = request.validated
    found = applicable(request, v["product_id"], v.get("variation_id"))
    return pricing.calculate(found.calculator, found.price_source, v["measurements"], currency_format(request.db),
                             utcnow())


@calculator.get(response=CONFIGURATION_DOC, cache="public")
def get_calculator(request):
    product_id = request.validated["id"]
    calc = applicable(request, product_id, variation_as_product=True).calculator
    return readmodel.configuration_json(product_id, calc)


def save_permission(request):
    """manage_shop first (401/403), then the product (404), before the body is checked."""
    require(request, "manage_shop")
    request.pricecalc_product = lock_product(request.db, request.validated["id"])


@calculator.post(permission=save_permission, permission_description="manage_shop", body=SAVE_BODY,
                 response=SAVED_DOC)
def post_calculator(request):
    product = request.pricecalc_product
    body = request.validated
    calc = request.db.execute(select(Calculator).where(Calculator.product_id == product.id)).scalar_one_or_none()
    configuration = clean(merge(readmodel.stored_form(calc), body))
    if calc is None:
        calc = Calculator(product_id=product.id)
        request.db.add(calc)
    readmodel.store(calc, configuration)
    request.db.flush()
    return {"success": True, "message": "Calculator settings saved.", "product_id": product.id}


@pricing_table.get(response=TABLE_DOC, cache="public")
def get_pricing_table(request):
    product_id = request.validated["id"]
    calc = applicable(request, product_id, variation_as_product=True).calculator
    return pricing.pricing_table(product_id, calc, currency_format(request.db), utcnow())


@units.get(response=UNITS_DOC)
def get_units(request):
    return UNIT_LABELS
