"""The advanced plugin API: what a plugin needs only past the everyday (``storeplatform.api``).
docs/plugins.md ("The advanced API") describes every name.

- a statement on a hot path, run on the driver's own connection (``DriverStatement``);
- a transaction of the plugin's own, and the registry or request behind a session
  (``site_transaction``, ``registry_of``, ``request_of``);
- an authentication method that checks the site's consumer keys (``consumer_key_credentials``,
  ``ConsumerKeyCredentials``, ``require_consumer_key_permission``) and throttles guesses as the
  host's methods do (``refuse_if_throttled``, ``failed_guess``);
- a migration step (``never_reuse_ids``).
"""
from ..components.shop.credentials import (ConsumerKeyCredentials, consumer_key_credentials,
                                          require_consumer_key_permission)
from ..core.auth.throttle import failed_guess, refuse_if_throttled
from ..core.db import never_reuse_ids, registry_of, request_of, site_transaction
from ..core.db.statements import DriverStatement

__all__ = [
    # statements and transactions
    "DriverStatement", "site_transaction", "registry_of", "request_of",
    # authentication methods
    "ConsumerKeyCredentials", "consumer_key_credentials", "require_consumer_key_permission",
    "refuse_if_throttled", "failed_guess",
    # migrations
    "never_reuse_ids",
]
