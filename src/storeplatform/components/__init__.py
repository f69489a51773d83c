"""First-party components: features built on the kernel (``storeplatform.core``) the way a
plugin is, each registered in the site's plugin manager and included by the app factory.

- ``shop``: users and accounts, content, products, orders, sales and the ``store/v1`` namespace;
- ``admin``: the staff's pages in the browser; builds on ``shop`` (its pages read and write
  through the shop's domain modules, the one read path of each entity);
- ``observability``: metrics (Prometheus) and traces (OpenTelemetry);
- ``audit``: the audit log of administrative changes, which every layer reports through the
  kernel's ``storeplatform_audit_event``; builds on ``admin`` (its page);
- ``mail``: messages recorded in the change's transaction and sent by the queue (SMTP, or
  ``.eml`` files when no server is set); builds on ``admin`` (the Mail log) and ``shop`` (the
  order messages read the order).

A component imports the kernel, its own modules, and no other component but those it builds on
(``BUILDS_ON``); tests/host/test_structure.py holds the rule.
"""

# component -> the components it may import (besides the kernel)
BUILDS_ON = {
    "shop": (),
    "admin": ("shop",),
    "observability": (),
    "audit": ("admin",),
    "mail": ("admin", "shop"),
}

# The components' modules that implement hooks, registered in every site's plugin manager before
# the plugins the ini enables (as Datasette registers its default plugins).
PLUGINS = (
    "storeplatform.components.shop.credentials",
    "storeplatform.components.shop.cli",
    "storeplatform.components.shop.hooks",
    "storeplatform.components.admin.dashboard",
    "storeplatform.components.audit.hooks",
    "storeplatform.components.audit.cli",
    "storeplatform.components.mail.hooks",
    "storeplatform.components.mail.account_messages",
    "storeplatform.components.mail.order_messages",
    "storeplatform.components.mail.cli",
)
