"""Helpers of the pricecalc tests: a site with the plugin, products, saving and calculating."""
from decimal import Decimal

import pytest

from storeplatform.api import Product

PC = "/api/pricecalc/v1"


class Calc:
    """A site with pricecalc enabled and the few calls every test makes."""

    def __init__(self, site):
        self.site = site
        self.app = site.app

    def product(self, name="Product", price="10.00", **values):
        with self.site.session() as s:
            product = Product(name=name, regular_price=Decimal(price) if price is not None else None, meta={},
                              **values)
            s.add(product)
            s.flush()
            return product.id

    def save(self, product_id, body, role="shop_manager", status=200):
        return self.app.post_json(f"{PC}/products/{product_id}/calculator", body,
                                  headers=self.site.headers_for(role) if role else {}, status=status)

    def calculate(self, product_id, measurements, status=200, **extra):
        body = {"product_id": product_id, "measurements": measurements, **extra}
        return self.app.post_json(f"{PC}/calculate", body, status=status)

    def config(self, product_id, status=200):
        return self.app.get(f"{PC}/products/{product_id}/calculator", status=status)

    def table(self, product_id, status=200):
        return self.app.get(f"{PC}/products/{product_id}/pricing-table", status=status)

    def priced(self, body, price="10.00", **product_values):
        """A product with a calculator saved from ``body``; its id."""
        product_id = self.product(price=price, **product_values)
        self.save(product_id, body)
        return product_id


@pytest.fixture
def pc(make_site):
    return Calc(make_site(**{"storeplatform.plugins": "pricecalc"}))
