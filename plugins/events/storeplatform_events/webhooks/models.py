"""Tables of the webhooks: the webhooks themselves, and one table of deliveries that is both
the outbox (rows still ``pending``) and the delivery log (finished rows, the last 100 kept)."""
from sqlalchemy import JSON, Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storeplatform.api import Base, UTCDateTime, utcnow

WEBHOOK_STATUSES = ("active", "paused", "disabled")

# Delivery states: pending (written with the change, waiting for a worker), sending (taken by
# one worker with the connection to the receiver open, right before the request is written:
# it has been attempted), then delivered, failed or skipped (the webhook was no longer active).
PENDING, SENDING, DELIVERED, FAILED, SKIPPED = "pending", "sending", "delivered", "failed", "skipped"
FINISHED = (DELIVERED, FAILED, SKIPPED)


class Webhook(Base):
    __tablename__ = "evt_webhooks"
    # What is cached of webhooks (the active ones per topic) reads only these two columns.
    __table_args__ = (Index("ix_evt_webhooks_topic_status", "topic", "status"),
                      {"info": {"generation": "webhooks", "generation_columns": ("topic", "status")}})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    url: Mapped[str] = mapped_column(Text, nullable=False)
    topic: Mapped[str] = mapped_column(String(40), nullable=False)
    secret: Mapped[str] = mapped_column(String(255), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="active")
    failures: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    updated_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)


class WebhookDelivery(Base):
    """``webhook_id`` carries no foreign key: a deleted webhook's log rows stay in the log."""

    __tablename__ = "evt_webhook_deliveries"
    # The log of one webhook is read newest first by creation (ties by id): its index serves the
    # lookups by webhook alone too (a delete's queued work).
    __table_args__ = (Index("ix_evt_webhook_deliveries_status_id", "status", "id"),
                      Index("ix_evt_webhook_deliveries_webhook_created_id", "webhook_id", "created_at", "id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False, unique=True)
    webhook_id: Mapped[int] = mapped_column(Integer, nullable=False)
    topic: Mapped[str] = mapped_column(String(40), nullable=False)
    # The exact bytes sent (as UTF-8 text), built when the change happened.
    body: Mapped[str] = mapped_column(Text, nullable=False)
    # The envelope's timestamp (site time, YYYY-MM-DD HH:MM:SS), carried to the
    # X-EVT-Timestamp header of every attempt.
    timestamp: Mapped[str] = mapped_column(String(19), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default=PENDING)
    # When the delivery was made (the change, a test, a "deliver again"): the log's time and order.
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    # Last hand-off to Huey; the sweep re-queues a pending row only when this is old.
    queued_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    claimed_at = mapped_column(UTCDateTime, nullable=True)
    # When the request was about to be written (the row left pending then). A row still
    # sending long after this belongs to a worker that died: closed as failed, never resent.
    attempted_at = mapped_column(UTCDateTime, nullable=True)
    finished_at = mapped_column(UTCDateTime, nullable=True)
    url: Mapped[str | None] = mapped_column(Text, nullable=True)
    request_headers = mapped_column(JSON, nullable=True)
    response_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    duration_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The start of the receiver's answer body as text (at most ``delivery.MAX_SHOWN_BODY`` bytes
    # of it), and whether there was more (or it could not all be read in time).
    response_body: Mapped[str | None] = mapped_column(Text, nullable=True)
    response_truncated: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    # The delivery this one sends again ("Deliver again" in the admin), None for the others.
    redelivery_of: Mapped[int | None] = mapped_column(Integer, nullable=True)
