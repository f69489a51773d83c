"""The Huey tasks: send one queued delivery, and the sweep of lost work (every minute, and once
when a worker starts).

A delivery is read, taken and recorded in short statements of its own and sent with no
transaction open (a 30-second request must not hold database locks; on SQLite that would stop
every writer): see ``sender``.
"""
from .outbox import abandon_stuck, requeue_lost
from .sender import delivery_sender
from .settings import webhook_policy

REQUEUE_TASK = "events.requeue_webhook_deliveries"


def deliver_webhook(ctx, delivery_id):
    delivery_sender(ctx.registry).deliver(delivery_id, inline=ctx.inline)


def requeue_webhook_deliveries(ctx):
    policy = webhook_policy(ctx.registry)
    requeue_lost(ctx.session, policy.requeue_after)
    # An attempt ends within its time-out; one still sending requeue_after later has lost its
    # worker.
    abandon_stuck(ctx.session, policy.timeout + policy.requeue_after)
