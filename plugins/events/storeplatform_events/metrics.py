"""What a door manager and a site owner watch of the events plugin, for Prometheus (the host
serves them at /metrics): check-ins by result, tickets issued, webhook deliveries by outcome and
their time, webhooks disabled by their failures, and the outbox's backlog (read at scrape time)."""
from storeplatform.api import counter, histogram

from .errors import CANCELLED_TICKET, INVALID_TICKET, WRONG_EVENT

CHECKINS = counter("events_checkins", "Check-ins by result: checked_in, already_in (scanned again), invalid "
                   "(unknown code), wrong_event, cancelled, on every channel "
                   "(REST, the admin's desk, the CLI).", ("result",))
CHECKED_IN = CHECKINS.labels("checked_in").inc
ALREADY_IN = CHECKINS.labels("already_in").inc
_REFUSED = {INVALID_TICKET: "invalid", WRONG_EVENT: "wrong_event", CANCELLED_TICKET: "cancelled"}


# Every series exists, at 0, from the start (a dashboard's panel shows 0, not "No data").
for _result in ("checked_in", "already_in", *_REFUSED.values()):
    CHECKINS.labels(_result)


def check_in_refused(error):
    """A check-in refused with ``error`` (a catalogue entry)."""
    CHECKINS.labels(_REFUSED.get(error, "refused")).inc()


TICKETS_ISSUED = counter("events_tickets_issued", "Tickets issued: attendees made when an order with "
                         "event tickets is first paid (one per ticket unit).")

DELIVERIES = counter("events_webhook_deliveries", "Webhook deliveries finished, by outcome: delivered (2xx/3xx), "
                     "failed (an error answer or none), skipped (its webhook was paused, disabled or deleted), "
                     "abandoned (its worker died while sending).", ("outcome",))
DELIVERED = DELIVERIES.labels("delivered").inc
FAILED = DELIVERIES.labels("failed").inc
DELIVERY_SECONDS = histogram("events_webhook_delivery_seconds", "Time of a webhook delivery's HTTP attempt, "
                             "all redirect hops together.",
                             buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0))
for _outcome in ("delivered", "failed", "skipped", "abandoned"):
    DELIVERIES.labels(_outcome)
DISABLED = counter("events_webhooks_disabled", "Webhooks disabled by their consecutive failed deliveries.")


def delivery_recorded(outcome):
    """A delivery's outcome, committed (``delivery.Outcome``)."""
    (DELIVERED if outcome.success else FAILED)()
    if outcome.duration_ms is not None:
        DELIVERY_SECONDS.observe(outcome.duration_ms / 1000)


def outbox_backlog(registry):
    """The deliveries not finished, by status (pending: waiting for a worker; sending: being
    sent), read when the metrics are scraped."""
    from sqlalchemy import func, select

    from storeplatform.api.advanced import site_transaction

    from .webhooks.models import PENDING, SENDING, WebhookDelivery

    counts = {PENDING: 0, SENDING: 0}
    with site_transaction(registry) as session:
        counts.update(session.execute(
            select(WebhookDelivery.status, func.count()).where(WebhookDelivery.status.in_((PENDING, SENDING)))
            .group_by(WebhookDelivery.status)).all())
    return {(status,): number for status, number in counts.items()}


def includeme(config):
    config.add_scrape_gauge("events_webhook_outbox", "Webhook deliveries not finished, by status: pending "
                            "(waiting for a worker), sending (being sent).", outbox_backlog, labels=("status",))
