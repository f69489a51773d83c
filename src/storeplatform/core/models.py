"""The kernel's tables: the site options and the counts of failed credential guesses."""
from sqlalchemy import JSON, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .db.meta import Base


class LoginAttempts(Base):
    """Failed credential guesses per throttle key (a login and address, or an address) and
    time window, shared by every process of the site (auth/throttle.py)."""

    __tablename__ = "login_attempts"
    __table_args__ = {"info": {"generation": "throttle"}}

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    window_start: Mapped[int] = mapped_column(Integer, primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0, nullable=False)


class Option(Base):
    __tablename__ = "options"
    __table_args__ = {"info": {"generation": "options"}}

    key: Mapped[str] = mapped_column(String(191), primary_key=True)
    value = mapped_column(JSON, nullable=True)
