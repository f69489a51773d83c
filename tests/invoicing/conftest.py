"""Fixtures of the invoicing tests: a site with the plugin (REST API switched on), products,
orders and PDF text."""
import io
from decimal import Decimal

import pytest

from storeplatform import testing

API = "/api/invoicing/v1"
GREEK = {"first_name": "Ωμέγα", "last_name": "Παπαδοπούλου", "address_1": "Οδός Ερμού 12", "city": "Αθήνα",
         "postcode": "105 63", "country": "GR", "email": "omega@example.com"}
CYRILLIC = {"first_name": "Дмитрий", "last_name": "Соколов", "city": "Новосибирск", "country": "RU",
            "email": "dmitry@example.com"}


class Shop:
    """A site with the invoicing plugin and helpers to make orders."""

    def __init__(self, site):
        self.site = site
        self.app = site.app
        self._products = None

    def __getattr__(self, name):
        return getattr(self.site, name)

    def products(self):
        if self._products is None:
            from storeplatform.api import Product

            with self.site.session() as s:
                items = [Product(name="Desk lamp", regular_price=Decimal("39.90"), meta={}),
                         Product(name="Кабель USB-C", regular_price=Decimal("7.25"), meta={}),
                         Product(name="Zoë's mug", regular_price=Decimal("12.00"), meta={})]
                s.add_all(items)
                s.flush()
                self._products = [p.id for p in items]
        return self._products

    def order(self, status="completed", billing=None, lines=None):
        """Create an order through the store's public route; return its JSON."""
        products = self.products()
        lines = lines or [(products[0], 1), (products[1], 3)]
        res = self.app.post_json("/api/store/v1/orders", {
            "line_items": [{"product_id": pid, "quantity": qty} for pid, qty in lines],
            "billing": billing if billing is not None else GREEK, "status": status,
        }, headers=self.site.headers_for("administrator"), status=201)
        return res.json

    def set_status(self, order_id, status):
        return self.app.put_json(f"/api/store/v1/orders/{order_id}", {"status": status},
                                 headers=self.site.headers_for("administrator")).json

    def meta(self, order_id, status=200):
        return self.app.get(f"{API}/documents/{order_id}", headers=self.site.headers_for("shop_manager"),
                            status=status)

    def regen(self, order_id, body=None, status=200):
        headers = self.site.headers_for("shop_manager")
        if body is None:
            return self.app.post(f"{API}/documents/{order_id}/regenerate", headers=headers, status=status)
        return self.app.post_json(f"{API}/documents/{order_id}/regenerate", body, headers=headers, status=status)

    def documents(self):
        from sqlalchemy import select

        from storeplatform_invoicing.models import Document

        with self.site.session() as s:
            rows = s.execute(select(Document.order_id, Document.document_type, Document.invoice_number,
                                    Document.display_number, Document.generated_at).order_by(Document.id)).all()
            return [tuple(r) for r in rows]


@pytest.fixture
def make_shop(make_site):
    def factory(rest=True, **settings):
        plugins = settings.pop("plugins", "invoicing")
        site = make_site(**{"storeplatform.plugins": plugins, **settings})
        if rest:
            site.set_option("invoicing.rest_api_enabled", True)
        return Shop(site)

    return factory


@pytest.fixture
def shop(make_shop):
    return make_shop()


def pdf_text(data):
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() for page in reader.pages)


def pdf_fonts(data):
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    names = set()
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            names.add(str(font.get_object()["/BaseFont"]))
    return names


def write_ini(path, site, **extra):
    settings = site.settings
    lines = ["[app:main]", "use = egg:storeplatform",
             f"sqlalchemy.url = {settings['sqlalchemy.url']}",
             f"huey.url = {settings['huey.url']}",
             f"huey.name = {settings['huey.name']}",
             f"storeplatform.plugins = {settings['storeplatform.plugins']}",
             f"storeplatform.secret = {settings['storeplatform.secret']}"]
    lines += [f"{k} = {v}" for k, v in extra.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_cli(ini, *args):
    """``storeplatform -c INI *args`` run in this process (``testing.run_cli``): what it printed
    and its exit status, as a subprocess would report them, without a process start per command."""
    return testing.run_cli("-c", str(ini), *args)
