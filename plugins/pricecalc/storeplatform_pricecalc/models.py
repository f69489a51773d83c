"""The plugin's table: one calculator configuration per product (or variation).

The configuration is kept as JSON beside the product id: /calculate reads it together with
the product in one query, and the values are checked by ``validation.clean`` before
anything is stored.
"""
from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storeplatform.api import Base, UTCDateTime, utcnow


class Calculator(Base):
    __tablename__ = "pricecalc_calculators"
    __table_args__ = {"info": {"generation": "pricecalc"}}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), unique=True)
    calculator_type: Mapped[str] = mapped_column(String(20))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False)
    # Text values as sent (pricing_unit, pricing_label, minimum_price, overage, enabled,
    # fields: {name: {label, unit, min, max, step, input_type, options}}).
    settings = mapped_column(JSON, nullable=False, default=dict)
    variables = mapped_column(JSON, nullable=False, default=list)
    formula: Mapped[str] = mapped_column(Text, default="", nullable=False)
    pricing_rules = mapped_column(JSON, nullable=False, default=list)
    conditions = mapped_column(JSON, nullable=False, default=list)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    modified_at = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow, nullable=False)
