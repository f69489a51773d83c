"""The ini keys of webhook delivery: parsed once when the site starts (a bad value stops it) and
kept with the site, where views and tasks read the parsed policy."""
import ipaddress
import math
from dataclasses import dataclass

from pyramid.settings import asbool

DEFAULT_TIMEOUT = 30.0
MAX_REDIRECTS = 5
FAILURE_LIMIT = 5
LOG_SIZE = 100
# A pending delivery older than this was handed to Huey but never picked up (lost hand-off).
DEFAULT_REQUEUE_AFTER = 300.0
# Where the site keeps its parsed policy (one per site: two sites of a process may differ).
POLICY_KEY = "events.webhooks.policy"


@dataclass(frozen=True)
class WebhookSettings:
    allow_private_targets: bool
    trusted_networks: tuple
    timeout: float
    requeue_after: float


def webhook_settings(settings):
    """``events.webhooks.*`` of the ini file.

    allow_private_targets: deliver to loopback, private and link-local addresses (development).
    trusted_networks: space- or comma-separated addresses/networks allowed even when private
    targets are refused (an internal receiver the site owner vouches for).
    timeout: seconds to connect and to wait for each read (30 by default, shorter in tests).
    requeue_after: seconds after which the sweep re-queues a pending delivery.
    """
    try:
        trusted = tuple(ipaddress.ip_network(item, strict=False)
                        for item in settings.get("events.webhooks.trusted_networks", "").replace(",", " ").split())
        timeout = _seconds(settings, "events.webhooks.timeout", DEFAULT_TIMEOUT)
        requeue_after = _seconds(settings, "events.webhooks.requeue_after", DEFAULT_REQUEUE_AFTER)
    except ValueError as exc:
        raise ValueError(f"events.webhooks settings: {exc}") from None
    if not (0 < timeout < math.inf) or not (0 <= requeue_after < math.inf):
        raise ValueError("events.webhooks settings: timeout must be positive and requeue_after not negative")
    return WebhookSettings(
        allow_private_targets=asbool(settings.get("events.webhooks.allow_private_targets", False)),
        trusted_networks=trusted,
        timeout=timeout,
        requeue_after=requeue_after,
    )


def _seconds(settings, key, default):
    value = str(settings.get(key, "")).strip()
    return float(value) if value else default


def keep_webhook_policy(registry):
    """Parse the site's ``events.webhooks.*`` once, at start-up, and keep the result."""
    registry[POLICY_KEY] = webhook_settings(registry.settings)


def webhook_policy(registry):
    """The policy ``keep_webhook_policy`` kept for this site (views: ``request.registry``,
    tasks: ``ctx.registry``)."""
    return registry[POLICY_KEY]
