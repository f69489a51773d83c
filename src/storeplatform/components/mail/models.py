"""The mail outbox: one row per message, written in the transaction of the change that makes it
(``pending``; ``composing`` for a message a worker builds first: ``queue_mail``), taken by one worker right before the message's data is written to the server
(``sending``), then ``sent`` or ``failed``; a temporary failure puts it back to ``pending`` with
the time of its next attempt. The finished rows are the mail log (the newest ``mail.log_size``
kept)."""
from sqlalchemy import JSON, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storeplatform.core.db.meta import Base
from storeplatform.core.db.types import UTCDateTime

COMPOSING, PENDING, SENDING, SENT, FAILED = "composing", "pending", "sending", "sent", "failed"
STATUSES = (COMPOSING, PENDING, SENDING, SENT, FAILED)
WAITING = (COMPOSING, PENDING, SENDING)
FINISHED = (SENT, FAILED)


class MailMessage(Base):
    """The whole message as built (``body``: the bytes sent, Message-ID included), so that every
    attempt sends the same bytes. No generation counts the table: nothing reading it is kept by
    the host's cache."""

    __tablename__ = "mail_outbox"
    # The log reads newest first by id (all, or one status); the sweep reads the waiting ones
    # by when they are due.
    __table_args__ = (
        Index("ix_mail_outbox_status_id", "status", "id"),
        Index("ix_mail_outbox_status_next_attempt_at", "status", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at = mapped_column(UTCDateTime, nullable=False)
    kind: Mapped[str] = mapped_column(String(64), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False)
    sender: Mapped[str] = mapped_column(String(320), nullable=False)
    recipients = mapped_column(JSON, nullable=False)  # the envelope's (To, Cc and Bcc)
    subject: Mapped[str] = mapped_column(Text, nullable=False)
    message_id: Mapped[str] = mapped_column(String(255), nullable=False)
    size: Mapped[int] = mapped_column(Integer, nullable=False)
    body: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    # When it may be sent (its creation, then after each temporary failure its back-off).
    next_attempt_at = mapped_column(UTCDateTime, nullable=False)
    # Last hand-off to the queue: the sweep hands a due message again only when this is old.
    queued_at = mapped_column(UTCDateTime, nullable=False)
    # When a worker took it (right before the data was written): still ``sending`` long after,
    # its worker died; it is closed as failed, never sent again.
    attempted_at = mapped_column(UTCDateTime, nullable=True)
    finished_at = mapped_column(UTCDateTime, nullable=True)
    # The server's last answer (code and text), or what went wrong (no answer: code None).
    response_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The message this one sends again ("Resend" in the admin), None for the others.
    resend_of: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # What the kind's composer is given to build a ``composing`` message (``queue_mail``); the
    # envelope, subject and body are empty until a worker has built it.
    context = mapped_column(JSON, nullable=True)
