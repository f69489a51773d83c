"""Column types shared by every distribution."""
from datetime import datetime, timezone
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import BigInteger, DateTime, Numeric
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator):
    """Aware UTC datetimes in and out, whatever the database keeps (SQLite keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTCDateTime column")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class Money(TypeDecorator):
    """Decimal amounts with four places, exact on every backend.

    PostgreSQL keeps NUMERIC(18, 4) exactly. SQLite turns any number into a double (15 to 17
    significant digits), so there the column holds the amount in ten-thousandths as a 64-bit
    integer: 98999999999999.9901 is 989999999999999901, exact.
    """

    impl = Numeric(18, 4)
    cache_ok = True
    SCALE = Decimal("0.0001")

    def load_dialect_impl(self, dialect):
        # Plain integers on SQLite: its NUMERIC handling would pass them through a float.
        return dialect.type_descriptor(BigInteger() if dialect.name == "sqlite" else Numeric(18, 4))

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        amount = Decimal(value).quantize(self.SCALE, rounding=ROUND_HALF_UP)
        return int(amount.scaleb(4)) if dialect.name == "sqlite" else amount

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if dialect.name == "sqlite":
            return Decimal(int(value)).scaleb(-4).quantize(self.SCALE)
        return Decimal(str(value)).quantize(self.SCALE)


def utcnow():
    return datetime.now(timezone.utc)
