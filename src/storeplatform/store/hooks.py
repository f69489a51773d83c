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
                   description="Used for links made outside a web request (worker, CLI). Until you set it, the server writes the address it serves at each start."),
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
        # Throttling of credential guesses (auth/throttle.py).
        OptionSpec("auth.throttle_window", "int", 900, "security", "Window of failed logins (seconds)",
                   description="Failed logins are counted in windows of this length; a blocked address "
                               "waits until its window ends.", min=60, max=86400),
        OptionSpec("auth.throttle_login_failures", "int", 10, "security", "Failed logins per login and address",
                   description="Wrong passwords (or keys) for one login from one address in a window; "
                               "the next attempt is refused until the window ends.", min=1, max=10000),
        OptionSpec("auth.throttle_address_failures", "int", 100, "security", "Failed logins per address",
                   description="Wrong passwords (or keys) for any logins from one address (an IPv6 "
                               "client's /64) in a window.", min=1, max=1000000),
    ]


@hookimpl
def storeplatform_migration_locations():
    return [str(Path(__file__).resolve().parent.parent / "migrations" / "versions")]


@hookimpl(tryfirst=True)
def storeplatform_demo_data(session):
    from .demo import load_demo

    load_demo(session)
