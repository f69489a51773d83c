"""The Huey tasks: send one queued delivery, and the periodic sweep of lost hand-offs.

A delivery goes one way through: claimed in a short transaction of its own, sent with no
transaction open (a 30-second request must not hold database locks; on SQLite that would stop
every writer), and its outcome recorded in a second short transaction.
"""
from storeplatform.api import site_transaction

from .delivery import post
from .outbox import abandon_stuck, claim_attempt, record, requeue_lost
from .settings import webhook_policy

REQUEUE_TASK = "events.requeue_webhook_deliveries"


def deliver_webhook(ctx, delivery_id):
    with site_transaction(ctx.registry) as session:
        attempt = claim_attempt(session, delivery_id)
    if attempt is None:
        return
    outcome = post(webhook_policy(ctx.registry), attempt)
    with site_transaction(ctx.registry) as session:
        record(session, delivery_id, attempt, outcome)


def requeue_webhook_deliveries(ctx):
    policy = webhook_policy(ctx.registry)
    requeue_lost(ctx.session, policy.requeue_after)
    # Five redirects each waiting the full time-out, plus a margin.
    abandon_stuck(ctx.session, policy.timeout * 6 + 300)
