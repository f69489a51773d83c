"""The store core's own hook implementations (registered as a default plugin)."""
from pathlib import Path

from ..hookspecs import hookimpl
from .options import OptionSpec

POSITIONS = ("left", "right", "left_space", "right_space")


@hookimpl
def storeplatform_site_options():
    return [
        OptionSpec("site.title", "string", "Storeplatform Demo Store", "general", "Site title"),
        OptionSpec("site.url", "string", "http://127.0.0.1:6543", "general", "Site address (URL)",
                   description="Used for links made outside a web request (worker, CLI)."),
        OptionSpec("site.timezone", "timezone", "UTC", "general", "Time zone"),
        OptionSpec("store.name", "string", "Storeplatform Demo Store", "store", "Store name"),
        OptionSpec("store.address", "text", "1 Example Street\n12345 Example City", "store", "Store address"),
        OptionSpec("store.currency", "string", "USD", "store", "Currency"),
        OptionSpec("store.currency_symbol", "string", "", "store", "Currency symbol",
                   description="Empty: the usual symbol of the currency."),
        OptionSpec("store.currency_position", "choice", "left", "store", "Currency position", choices=POSITIONS),
        OptionSpec("store.thousand_separator", "string", ",", "store", "Thousand separator"),
        OptionSpec("store.decimal_separator", "string", ".", "store", "Decimal separator"),
        OptionSpec("store.decimals", "int", 2, "store", "Number of decimals", min=0, max=4),
    ]


@hookimpl
def storeplatform_migration_locations():
    return [str(Path(__file__).resolve().parent.parent / "migrations" / "versions")]


@hookimpl(tryfirst=True)
def storeplatform_demo_data(session):
    from .demo import load_demo

    load_demo(session)
