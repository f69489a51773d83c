"""The audit log's table: one row per administrative change (who, what, when, from where)."""
from sqlalchemy import JSON, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from storeplatform.core.db.meta import Base
from storeplatform.core.db.types import UTCDateTime


class AuditEntry(Base):
    """An entry, as it was when the change was made: the actor's id and login are copied, not
    referenced (a deleted user's changes stay named), and no generation counts the table (nothing
    reading it is kept by the host's cache).

    The lists read the newest first (by id), all of them or by the user who acted, by kind, by
    time range: an index for each, and ``created_at`` for the pruning by age."""

    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_log_created_at", "created_at"),
        Index("ix_audit_log_actor_login_id", "actor_login", "id"),
        Index("ix_audit_log_actor_id_id", "actor_id", "id"),
        Index("ix_audit_log_kind_id", "kind", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at = mapped_column(UTCDateTime, nullable=False)
    # The user's id when a user acted; None for the command line ("cli"), the site itself
    # ("system") or an anonymous request.
    actor_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    actor_login: Mapped[str] = mapped_column(String(191), nullable=False)
    address: Mapped[str | None] = mapped_column(String(64), nullable=True)
    kind: Mapped[str] = mapped_column(String(64), nullable=False)
    action: Mapped[str] = mapped_column(String(64), nullable=False)
    subject: Mapped[str] = mapped_column(String(191), nullable=False, default="")
    details = mapped_column(JSON, nullable=False)
