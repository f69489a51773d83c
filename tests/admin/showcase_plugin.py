"""A test plugin whose pages sit in navigation sections and show every shared style of the admin
(admin.css): a data table with numbers and row actions, filters, a pager, badges, dashboard
tiles, a refused field. Declared through the plugin API only."""
import sys
from decimal import Decimal
from pathlib import Path

from storeplatform.api import AdminPage, admin_view, hookimpl

ORDERS = AdminPage("showcase-orders", "Sample orders", "/showcase/orders", "manage_shop", order=20, section="Shop")
PRODUCTS = AdminPage("showcase-products", "Sample products", "/showcase/products", "manage_shop", order=30, section="Shop")
EVENTS = AdminPage("showcase-events", "Sample events", "/showcase/events", "manage_shop", order=25, section="Events")
ATTENDEES = AdminPage("showcase-attendees", "Sample attendees", "/showcase/attendees", "manage_shop", order=45,
                      section="Events")
STATUSES = [("completed", "ok"), ("processing", "warn"), ("failed", "bad"), ("pending", "")]


def rows():
    return [{"id": 1000 + i, "customer": name, "status": STATUSES[i % 4], "count": i % 5 + 1,
             "total": Decimal("19.90") * (i + 1), "date": f"2026-11-{26 - i:02d} 1{i % 10}:0{i % 6}"}
            for i, name in enumerate(["Ann Example", "Bartholomew Longname-Doubleday", "Chen Wei", "Dora", "Émile Zola",
                                      "Farah N.", "Gustav", "Hiroko Tanaka"])]


@admin_view(ORDERS, template="admin_test/showcase.jinja2")
def orders(request):
    return {"title": "Orders", "rows": rows(), "search": "ann", "page": 2, "pages": 7,
            "error": "Enter a date as YYYY-MM-DD."}


@admin_view(PRODUCTS, template="admin_test/showcase.jinja2")
@admin_view(EVENTS, template="admin_test/showcase.jinja2")
@admin_view(ATTENDEES, template="admin_test/showcase.jinja2")
def other(request):
    return {"title": "Other", "rows": rows()[:2], "search": "", "page": 1, "pages": 1, "error": None}


class ShowcasePlugin:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_admin_templates(str(Path(__file__).resolve().parent / "templates"))
        config.add_admin_views(sys.modules[__name__])
