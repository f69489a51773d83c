"""Refunds: money given back on a paid order, for the whole of it or line by line, with a reason.

A refund is checked against what is left to give back (of the order's total, and of each line's
units and money), then recorded with a line in the order's history, announced with
``storeplatform_order_refunded``, and a refund of all that was left moves the order to
``refunded`` through ``set_order_status`` (so its own action follows): all in the caller's
transaction, so that a refused or failing refund leaves nothing behind. REST and the admin's
order page both refund through ``refund_order``."""
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select

from storeplatform.core.db import hooks_of
from storeplatform.core.errors import InvalidParams
from storeplatform.core.options import site_options
from storeplatform.core.plugins import call_action
from storeplatform.core.values import id_in_range
from .errors import ORDER_NOT_REFUNDABLE
from .models import Order, Refund, RefundLine
from .money import amount_text
from .order_notes import NOTE_MAX, acting_user, add_order_note
from .orders import PAID_STATUSES, set_order_status

REASON_MAX = 1000
ZERO = Decimal(0)


@dataclass(frozen=True)
class LineLeft:
    """What is left to give back of one line of an order: units and money."""
    quantity: int
    money: Decimal


@dataclass(frozen=True)
class Left:
    """What is left to give back of an order: its money, and of each line (by line id)."""
    amount: Decimal
    lines: dict


def refunds_select(order_id):
    """The refunds of an order, newest first (each with its lines)."""
    return select(Refund).where(Refund.order_id == order_id).order_by(Refund.id.desc())


def refunds_of(session, order_id):
    return session.execute(refunds_select(order_id)).scalars().all()


def refund_of(session, order, refund_id):
    """The refund ``refund_id`` of ``order``, or None (a refund of another order is none of it)."""
    row = session.get(Refund, refund_id) if id_in_range(refund_id) else None
    return row if row is not None and row.order_id == order.id else None


def left_to_refund(order, refunds):
    """What ``refunds`` (all of the order's) leave to give back of ``order``."""
    units, money = {}, {}
    for refund in refunds:
        for line in refund.line_items:
            units[line.order_item_id] = units.get(line.order_item_id, 0) + line.quantity
            money[line.order_item_id] = money.get(line.order_item_id, ZERO) + line.refund_total
    lines = {item.id: LineLeft(item.quantity - units.get(item.id, 0), item.total - money.get(item.id, ZERO))
             for item in order.line_items}
    return Left(order.total - sum((refund.amount for refund in refunds), ZERO), lines)


def whole_refund_lines(order, left):
    """The lines of a refund of all that is left of ``order``: every unit left, and each line's
    money left as far as the order's money left goes (money given back on the order alone, by
    an earlier refund of an amount, is no line's)."""
    lines, money = [], left.amount
    for item in order.line_items:
        line = left.lines[item.id]
        refund_total = min(line.money, money)
        money -= refund_total
        if line.quantity > 0 or refund_total > 0:
            lines.append({"id": item.id, "quantity": line.quantity, "refund_total": refund_total})
    return lines


def refund_problems(order, left, amount, lines):
    """What is wrong with refunding ``amount`` and ``lines`` (each ``{id, quantity,
    refund_total}``, refund_total worked out) of ``order`` when ``left`` is left: ``{field:
    message}``, named as REST's body names them."""
    problems = {}
    seen = set()
    for index, line in enumerate(lines):
        field = f"line_items.{index}"
        left_of_line = left.lines.get(line["id"])
        if left_of_line is None:
            problems[f"{field}.id"] = f"line {line['id']} is not a line of order {order.id}"
            continue
        if line["id"] in seen:
            problems[f"{field}.id"] = f"line {line['id']} is named twice: give each line once"
            continue
        seen.add(line["id"])
        if line["quantity"] == 0 and line["refund_total"] == 0:
            problems[f"{field}.quantity"] = "give a quantity or a refund_total to give back of this line"
        if line["quantity"] > left_of_line.quantity:
            problems[f"{field}.quantity"] = (f"only {left_of_line.quantity} of this line "
                                             f"{'is' if left_of_line.quantity == 1 else 'are'} left to refund")
        if line["refund_total"] > left_of_line.money:
            problems[f"{field}.refund_total"] = \
                f"only {amount_text(left_of_line.money)} of this line's total is left to refund"
    if amount <= 0:
        problems["amount"] = "must be more than 0"
    elif amount > left.amount:
        problems["amount"] = f"only {amount_text(left.amount)} of this order is left to refund"
    else:
        given = sum((line["refund_total"] for line in lines), ZERO)
        if given > amount:
            problems["amount"] = f"must be at least the lines' refund_total together ({amount_text(given)})"
    return problems


def _lines_worked_out(order, line_items):
    """The lines as given, a missing refund_total being the units' price."""
    prices = {item.id: item.unit_price for item in order.line_items}
    lines = []
    for line in line_items:
        quantity = line.get("quantity") or 0
        refund_total = line.get("refund_total")
        if refund_total is None:
            refund_total = prices.get(line["id"], ZERO) * quantity
        lines.append({"id": line["id"], "quantity": quantity, "refund_total": refund_total})
    return lines


def _lock(session, order):
    """The order's row, locked until the transaction ends (two refunds at once would each see
    the other's money as still to give back), and read afresh."""
    return session.execute(select(Order).where(Order.id == order.id).with_for_update()
                           .execution_options(populate_existing=True)).scalar_one()


@dataclass(frozen=True)
class RefundPlan:
    """A refund as ``refund_order`` makes it: the amount, the reason and the lines (``{id,
    quantity, refund_total}``, refund_total worked out), and what was left before it."""
    amount: Decimal
    reason: str
    lines: list
    left: Left

    @property
    def whole(self):
        """Whether it gives back all that was left (the order is then refunded)."""
        return self.amount == self.left.amount


def plan_refund(session, order, *, amount=None, reason="", line_items=()):
    """The refund of ``amount`` (a Decimal; default: the lines' refund_total together) of
    ``order`` with ``reason`` and ``line_items`` (``[{id, quantity, refund_total}]``: the
    order's line ids, the units given back, default 0, and their money, default the units'
    price), checked against what is left: a ``RefundPlan``; nothing is written. Raises
    ``ORDER_NOT_REFUNDABLE`` (409) unless the order is paid, and ``InvalidParams`` naming every
    field that asks for what cannot be given back."""
    if order.status not in PAID_STATUSES:
        raise ORDER_NOT_REFUNDABLE()
    reason = (reason or "").strip()
    lines = _lines_worked_out(order, line_items)
    if amount is None and not lines:
        raise InvalidParams({"amount": "give the amount to give back, or line_items"})
    derived = amount is None
    if derived:
        amount = sum((line["refund_total"] for line in lines), ZERO)
    left = left_to_refund(order, refunds_of(session, order.id))
    problems = refund_problems(order, left, amount, lines)
    if derived and len(problems) > 1:
        problems.pop("amount", None)  # an amount nobody sent: the lines' problems say why
    if len(reason) > REASON_MAX:
        problems["reason"] = f"must be at most {REASON_MAX} characters long"
    if problems:
        raise InvalidParams(problems)
    return RefundPlan(amount, reason, lines, left)


def refund_order(session, order, *, amount=None, reason="", line_items=()):
    """Give back what ``plan_refund`` checks (same arguments, same errors), in the session's
    transaction: the ``Refund`` and its lines, a line in the order's history,
    ``storeplatform_order_refunded``, and, when all that was left is given back, the order's
    move to ``refunded`` (``set_order_status``: its action follows). Returns the ``Refund``."""
    order = _lock(session, order)
    plan = plan_refund(session, order, amount=amount, reason=reason, line_items=line_items)
    actor = acting_user(session)
    refund = Refund(order_id=order.id, amount=plan.amount, reason=plan.reason,
                    refunded_by=actor.id if actor else None)
    refund.line_items = [RefundLine(order_item_id=line["id"], quantity=line["quantity"],
                                    refund_total=line["refund_total"]) for line in plan.lines]
    session.add(refund)
    session.flush()
    add_order_note(session, order, refund_note(session, order, refund), user=actor)
    call_action(hooks_of(session).storeplatform_order_refunded, order=order, refund=refund)
    if plan.whole:
        set_order_status(session, order, "refunded")
    return refund


def refund_note(session, order, refund):
    """The history's line of a refund: "Refunded 12.50 USD (1 × Gala ticket). Reason: ..." """
    decimals = site_options(session)["store.decimals"]
    names = {item.id: item.name for item in order.line_items}
    units = [f"{line.quantity} × {names[line.order_item_id]}" for line in refund.line_items if line.quantity]
    text = f"Refunded {amount_text(refund.amount, decimals)} {order.currency}"
    text += f" ({', '.join(units)})." if units else "."
    text += f" Reason: {refund.reason}" if refund.reason else ""
    # Hundreds of lines with long names: the history keeps what a note holds.
    return text if len(text) <= NOTE_MAX else text[:NOTE_MAX - 1] + "…"
