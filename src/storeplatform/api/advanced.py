"""The advanced plugin API: what a plugin needs only past the everyday (``storeplatform.api``).
docs/plugins.md ("The advanced API") describes every name.

- a statement on a hot path, run on the driver's own connection (``DriverStatement``);
- a transaction of the plugin's own, and the registry or request behind a session
  (``site_transaction``, ``registry_of``, ``request_of``);
- an authentication method that checks the site's consumer keys (``consumer_key_credentials``,
  ``ConsumerKeyCredentials``, ``require_consumer_key_permission``) and throttles guesses as the
  host's methods do (``refuse_if_throttled``, ``failed_guess``);
- a migration step (``never_reuse_ids``);
- the less used helpers: more of the host's error catalogue, links outside a request
  (``site_rest_url``), value parsing and its limits, the money column type, the task context's
  class, the admin's list internals, an order's status change and a product's sale check.
"""
from ..components.shop.credentials import (ConsumerKeyCredentials, consumer_key_credentials,
                                          require_consumer_key_permission)
from ..core.auth.throttle import failed_guess, refuse_if_throttled
from ..core.db import never_reuse_ids, registry_of, request_of, site_transaction
from ..core.db.statements import DriverStatement
from ..core.db.text_search import text_contains
from ..core.db.types import Money
from ..core.errors import BAD_REQUEST, INTERNAL_ERROR, INVALID_JSON, INVALID_PARAM
from ..core.queue import TaskContext
from ..core.rest.types import money_amount
from ..core.rest.urls import site_rest_url
from ..core.values import FALSE_WORDS, INT_MAX, TRUE_WORDS, parse_bool
from ..components.admin.listing import ListQuery, Pager, csv_cell
from ..components.shop.orders import set_order_status
from ..components.shop.products import sale_is_active

__all__ = [
    # statements and transactions
    "DriverStatement", "site_transaction", "registry_of", "request_of",
    # authentication methods
    "ConsumerKeyCredentials", "consumer_key_credentials", "require_consumer_key_permission",
    "refuse_if_throttled", "failed_guess",
    # migrations
    "never_reuse_ids",
    # less used: errors, links, values, types, tasks, admin lists, the shop
    "BAD_REQUEST", "INVALID_PARAM", "INVALID_JSON", "INTERNAL_ERROR", "site_rest_url", "money_amount", "parse_bool",
    "INT_MAX", "TRUE_WORDS", "FALSE_WORDS", "Money", "TaskContext", "ListQuery", "Pager", "csv_cell", "text_contains",
    "set_order_status", "sale_is_active",
]
