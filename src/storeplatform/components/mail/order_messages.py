"""The order messages the host sends the buyer (#41), as WooCommerce's "Processing order" and
"Completed order": "order received" when an order becomes ``processing`` (paid) and "order
completed" when it becomes ``completed`` (the shop's ``storeplatform_order_status_changed``).

Each is recorded with ``queue_mail`` in the transaction of the status change (nothing for a
change rolled back) to the order's billing e-mail address (nothing without one), and composed by
the worker from the order as committed: the template pairs ``order_received`` and
``order_completed`` (a site overrides them from ``mail.templates``) with the order's number,
date (the site's time zone), lines and totals in the store's money format, the billing name and
address, and the store's name and address. Plugins attach files through
``storeplatform_mail_attachments`` (the invoicing plugin: the order's invoice). The options
``mail.order_received`` and ``mail.order_completed`` switch each message off; the demo data's
orders get none (``QUIET``)."""
from decimal import Decimal

from sqlalchemy.orm import object_session

from storeplatform.core.db import get_by_id
from storeplatform.core.hookspecs import hookimpl
from storeplatform.core.options import OptionSpec, site_options, site_timezone

from storeplatform.components.shop.models import Order
from storeplatform.components.shop.money import currency_format, format_money

from .account_messages import store_values
from .messages import MailError, address
from .outbox import queue_mail
from .templating import render_mail

# status -> (message kind, its switch, template pair)
MESSAGES = {
    "processing": ("store.order_received", "mail.order_received", "order_received"),
    "completed": ("store.order_completed", "mail.order_completed", "order_completed"),
}
# session.info key: a transaction whose orders get no order messages (the demo data's: its
# buyers' addresses are made up; ``storeplatform demo`` sets it).
QUIET = "mail.no_order_messages"
SUBJECTS = {"order_received": "Your {store} order #{number} has been received",
            "order_completed": "Your {store} order #{number} is now complete"}


@hookimpl
def storeplatform_site_options():
    return [
        OptionSpec("mail.order_received", "bool", True, "mail", "Send “order received” messages",
                   description="To the buyer's billing address when an order is paid (its status becomes "
                               "Processing): the order's lines, totals and addresses."),
        OptionSpec("mail.order_completed", "bool", True, "mail", "Send “order completed” messages",
                   description="To the buyer's billing address when an order's status becomes Completed."),
    ]


def billing_email(order):
    return ((order.billing or {}).get("email") or "").strip()


def recipient(order):
    """The buyer as the message's To: ``(billing name, billing e-mail)``; None when the order
    has no billing e-mail address, or one that is not an address (nothing is sent then)."""
    email = billing_email(order)
    if not email:
        return None
    name = " ".join(billing_name(order.billing or {}).split())[:200]  # no line break in a header
    try:
        address("to", (name, email))
    except MailError:
        return None
    return (name, email)


@hookimpl
def storeplatform_order_status_changed(order, old_status, new_status):
    found = MESSAGES.get(new_status)
    if found is None or recipient(order) is None:
        return
    kind, switch, _ = found
    session = object_session(order)
    if session.info.get(QUIET) or not site_options(session)[switch]:
        return
    queue_mail(session, kind, {"order_id": order.id})


def billing_name(billing):
    return " ".join(p for p in (billing.get("first_name", ""), billing.get("last_name", "")) if p)


def billing_address(billing):
    """The billing address's lines as a letter shows them (empty ones left out)."""
    city = " ".join(p for p in (billing.get("postcode", ""), billing.get("city", "")) if p)
    lines = [billing_name(billing), billing.get("company", ""), billing.get("address_1", ""),
             billing.get("address_2", ""), city, billing.get("state", ""), billing.get("country", "")]
    return [line for line in lines if line]


def order_values(session, order):
    """What the order templates show: the order, its lines and totals as the store formats
    money (the order's own currency's symbol when it is not the store's), the billing details
    and the store's name and address."""
    fmt = currency_format(session)

    def money(value):
        return format_money(value, fmt, currency=order.currency)

    billing = dict(order.billing or {})
    created = order.created_at.astimezone(site_timezone(session))
    subtotal = sum((line.total for line in order.line_items), Decimal(0))
    values = store_values(session)
    values.update(
        order_number=order.number, order_id=order.id, order_status=order.status,
        order_date=created.strftime("%Y-%m-%d %H:%M"), timezone=created.tzname() or str(created.tzinfo),
        lines=[{"name": line.name, "quantity": line.quantity, "unit_price": money(line.unit_price),
                "total": money(line.total)} for line in order.line_items],
        subtotal=money(subtotal), total=money(order.total), currency=order.currency,
        billing_name=billing_name(billing), billing_address=billing_address(billing),
        billing_email=billing_email(order), billing_phone=billing.get("phone", ""),
    )
    return values


def composer(template):
    """The composer of one order message: None when the order is gone or has no billing
    address any more."""

    def compose(session, context):
        order = get_by_id(session, Order, context.get("order_id"))
        to = recipient(order) if order is not None else None
        if to is None:
            return None
        values = order_values(session, order)
        text, html = render_mail(session, template, values)
        subject = SUBJECTS[template].format(store=" ".join(values["store_name"].split()), number=order.number)
        return {"to": to, "subject": subject, "text": text, "html": html}

    return compose


def add_order_composers(config):
    """The composers of the order messages (the mail component's includeme)."""
    for kind, _, template in MESSAGES.values():
        config.add_mail_composer(kind, composer(template))
