"""Tables of the invoicing plugin: documents (with their PDF bytes), number counters,
bulk jobs and the download rate-limit windows; and the INSERT that creates a counter or a
window on first use (each database spells ON CONFLICT with its own construct)."""
from sqlalchemy import (Boolean, ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint, text)
from sqlalchemy.orm import Mapped, deferred, mapped_column

from storeplatform.api import Base, UTCDateTime, utcnow

DOCUMENT_TYPES = ("invoice", "receipt", "credit-note", "packing-slip")


def upsert_insert(session):
    """The ``insert`` of the session's database, which has ``on_conflict_do_nothing`` and
    ``on_conflict_do_update`` (counters and rate windows are created by their first use)."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    elif dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    else:  # pragma: no cover - only the two supported backends
        raise RuntimeError(f"unsupported database {dialect}")
    return insert


class Document(Base):
    """One document per (order, type). The number is taken when the row is inserted; the PDF
    arrives later (``generated_at`` stays NULL until then). The bytes live in the database so
    that every web and worker process can serve them."""

    __tablename__ = "invoicing_documents"
    __table_args__ = (
        UniqueConstraint("order_id", "document_type", name="uq_invoicing_documents_order_type"),
        UniqueConstraint("document_type", "year", "invoice_number", name="uq_invoicing_documents_number"),
        Index("ix_invoicing_documents_order_generated", "order_id", "generated_at"),
        # The documents still waiting for their PDF, oldest first (the dashboard, the sweep): a
        # partial index, as small as the queue.
        Index("ix_invoicing_documents_waiting", "created_at", "id",
              postgresql_where=text("generated_at IS NULL"), sqlite_where=text("generated_at IS NULL")),
        {"info": {"generation": "invoicing"}})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id", ondelete="CASCADE"))
    document_type: Mapped[str] = mapped_column(String(20))
    year: Mapped[int] = mapped_column(Integer)
    invoice_number: Mapped[int] = mapped_column(Integer)
    display_number: Mapped[str] = mapped_column(String(80))
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    generated_at = mapped_column(UTCDateTime, nullable=True)
    file_size: Mapped[int] = mapped_column(Integer, default=0)
    # Deferred: metadata requests never load the bytes.
    pdf = deferred(mapped_column(LargeBinary, nullable=True))


class Counter(Base):
    """The last number given per (document type, year), incremented atomically in the
    transaction that inserts the document: a rollback gives the number back."""

    __tablename__ = "invoicing_counters"

    document_type: Mapped[str] = mapped_column(String(20), primary_key=True)
    year: Mapped[int] = mapped_column(Integer, primary_key=True)
    last_number: Mapped[int] = mapped_column(Integer, default=0)


class Job(Base):
    """A bulk regeneration started by the CLI or the admin; its items are the record of the work."""

    __tablename__ = "invoicing_jobs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    force_type: Mapped[str | None] = mapped_column(String(20), nullable=True)
    total: Mapped[int] = mapped_column(Integer, default=0)


class JobItem(Base):
    """One order of a job. ``queued_at``: when its task was last handed to the queue (the sweep
    hands it over again when it is still not done long after)."""

    __tablename__ = "invoicing_job_items"
    __table_args__ = (Index("ix_invoicing_job_items_job_done", "job_id", "done"),
                      Index("ix_invoicing_job_items_done_queued", "done", "queued_at"))

    job_id: Mapped[int] = mapped_column(ForeignKey("invoicing_jobs.id", ondelete="CASCADE"), primary_key=True)
    order_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    done: Mapped[bool] = mapped_column(Boolean, default=False)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    queued_at = mapped_column(UTCDateTime, nullable=True)


class RateWindow(Base):
    """Storefront download attempts per client address and fixed time window, shared by
    every process through the database."""

    __tablename__ = "invoicing_rate_windows"

    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    window_start: Mapped[int] = mapped_column(Integer, primary_key=True)
    hits: Mapped[int] = mapped_column(Integer, default=0)
