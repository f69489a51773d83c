"""Sales per day: paid orders and their revenue per local day of the site, for the admin's
dashboard (and any report that wants the same figures). Nothing here knows about HTTP."""
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone
from decimal import Decimal

from sqlalchemy import BigInteger, Integer, cast, func, select, type_coerce

from storeplatform.core.cache import cached
from storeplatform.core.db.types import Money
from .models import Order
from .orders import PAID_STATUSES

# Every time zone in use is a whole number of quarter hours from UTC (Nepal +05:45, Chatham
# +12:45): a quarter hour of UTC lies within one local day wherever the site is, so the database
# groups by quarter hours (the same SQL on every backend and zone) and Python gives each its day.
QUARTER = 900


@dataclass(frozen=True)
class DaySales:
    day: object  # datetime.date, local to the site
    orders: int
    revenue: Decimal


def epoch_quarter(column, dialect_name):
    """The quarter hour of UTC (seconds since 1970 // 900) of a ``UTCDateTime`` column."""
    if dialect_name == "sqlite":
        # SQLite keeps the UTC time as text without a zone: strftime('%s') reads it as UTC.
        return cast(func.strftime("%s", column), Integer) // QUARTER
    return cast(func.floor(func.extract("epoch", column) / QUARTER), BigInteger)


def local_day_bounds(first_day, last_day, tz):
    """[start, end) in UTC of the local days ``first_day``..``last_day`` (both included)."""
    start = datetime.combine(first_day, time(0), tzinfo=tz).astimezone(timezone.utc)
    end = datetime.combine(last_day + timedelta(days=1), time(0), tzinfo=tz).astimezone(timezone.utc)
    return start, end


def period_totals(days):
    """(orders, revenue) of the ``DaySales`` of a period (``daily_sales``), revenue exact."""
    return sum(d.orders for d in days), sum((d.revenue for d in days), start=days[0].revenue * 0)


@cached
def daily_sales(session, first_day, last_day, tz, currency):
    """(DaySales, ...) of every local day from ``first_day`` to ``last_day`` (both included, days
    without an order too): the paid orders (``PAID_STATUSES``, by their creation time) in
    ``currency`` and the sum of their totals, exact. One statement, over the range of the orders'
    creation index. Kept by the host's cache until an order or a product changes (the ``store``
    generation) or the site's date moves on."""
    start, end = local_day_bounds(first_day, last_day, tz)
    quarter = epoch_quarter(Order.created_at, session.get_bind().dialect.name).label("quarter")
    rows = session.execute(
        select(quarter, func.count(), type_coerce(func.sum(Order.total), Money))
        .where(Order.created_at >= start, Order.created_at < end, Order.status.in_(PAID_STATUSES),
               Order.currency == currency)
        .group_by(quarter)).all()
    orders, revenue = {}, {}
    for q, count, total in rows:
        day = datetime.fromtimestamp(int(q) * QUARTER, timezone.utc).astimezone(tz).date()
        orders[day] = orders.get(day, 0) + count
        revenue[day] = revenue.get(day, Decimal(0)) + (total or Decimal(0))
    days = []
    day = first_day
    while day <= last_day:
        days.append(DaySales(day, orders.get(day, 0), revenue.get(day, Decimal("0.0000"))))
        day += timedelta(days=1)
    return tuple(days)
