"""Data the dashboard's tests arrange: orders with their creation time, events with tickets sold
through events/v1 and store/v1 and check-ins at given times, webhooks and deliveries, documents."""
import secrets
from datetime import datetime, time, timezone
from decimal import Decimal

from sqlalchemy import update

from storeplatform.components.shop.models import Order


def add_order(site, total, at, status="processing", currency="USD"):
    with site.session() as s:
        order = Order(status=status, order_key=secrets.token_hex(8), currency=currency, billing={},
                      total=Decimal(total), created_at=at, modified_at=at)
        s.add(order)
        s.flush()
        return order.id


def local(day, hour, minute, tz, second=0):
    return datetime.combine(day, time(hour, minute, second), tzinfo=tz).astimezone(timezone.utc)


class Events:
    """Events, tickets and check-ins through events/v1 and store/v1; times set in the rows."""

    def __init__(self, site):
        from events.conftest import Evt

        self.site = site
        self.evt = Evt(site)

    def event(self, title, start, end=None, capacity=0, **body):
        return self.evt.event(title, start_date=start.isoformat(), end_date=(end or start).isoformat(),
                              capacity=capacity, **body)["id"]

    def sell(self, event_id, quantity):
        return self.evt.tickets(event_id, quantity)

    def check_in(self, tickets, *times, status="checked_in"):
        from storeplatform_events.models import Attendee

        with self.site.session() as s:
            for ticket, at in zip(tickets, times):
                s.execute(update(Attendee).where(Attendee.id == ticket["id"]).values(status=status, checked_in_at=at))

    def cancel(self, ticket):
        from storeplatform_events.models import Attendee

        with self.site.session() as s:
            s.execute(update(Attendee).where(Attendee.id == ticket["id"]).values(status="cancelled"))


def add_webhook(site, name, status="active", failures=0):
    from storeplatform_events.webhooks.models import Webhook

    with site.session() as s:
        hook = Webhook(name=name, url="https://receiver.example/hook", topic="attendee.checked_in",
                       secret="s" * 32, status=status, failures=failures)
        s.add(hook)
        s.flush()
        return hook.id


def add_delivery(site, webhook_id, status, at, code=None, error=None):
    import uuid

    from storeplatform_events.webhooks.models import WebhookDelivery

    with site.session() as s:
        delivery = WebhookDelivery(uuid=str(uuid.uuid4()), webhook_id=webhook_id, topic="attendee.checked_in",
                                   body="{}", timestamp=at.strftime("%Y-%m-%dT%H:%M:%S"), status=status,
                                   finished_at=at, response_code=code, error=error)
        s.add(delivery)
        s.flush()
        return delivery.id


def add_document(site, order_id, document_type, number, created_at, generated=False):
    from storeplatform_invoicing.models import Document

    with site.session() as s:
        s.add(Document(order_id=order_id, document_type=document_type, year=created_at.year, invoice_number=number,
                       display_number=f"INV-{number}", created_at=created_at,
                       generated_at=created_at if generated else None))
