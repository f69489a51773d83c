"""Fixtures of the webhook tests: a real receiver on 127.0.0.1 and sites with webhooks."""
import hashlib
import hmac
import json

import pytest
from sqlalchemy import select

from storeplatform_events.webhooks.models import Webhook, WebhookDelivery

from .conftest import Evt
from .webhook_receiver import Receiver

WEBHOOK_KEYS = {"id", "name", "url", "delivery_url", "topic", "secret", "status", "failures", "created_at",
                "updated_at"}


class Hooks(Evt):
    def webhook(self, topic, url, **body):
        return self.post("/webhooks", {"name": f"{topic} hook", "url": url, "topic": topic, **body}, status=201).json

    def webhook_row(self, webhook_id):
        with self.site.session() as s:
            w = s.get(Webhook, webhook_id)
            return {"status": w.status, "failures": w.failures}

    def deliveries(self):
        with self.site.session() as s:
            return [{c.name: getattr(d, c.name) for c in WebhookDelivery.__table__.columns}
                    for d in s.execute(select(WebhookDelivery).order_by(WebhookDelivery.id)).scalars()]


def signed_by(received, secret):
    """The receiver's check: HMAC-SHA256 of the raw body with the secret equals the header."""
    expected = hmac.new(secret.encode(), received.body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, received.headers["X-EVT-Signature"])


def payload(received):
    return json.loads(received.body)


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def hooks_site(make_site, same_users_as=None, plugins=(), **settings):
    """A site with webhooks; ``same_users_as``: another Hooks on the same database whose
    credentials this one reuses (a second process of one site with other settings);
    ``plugins``: plugin objects registered beside events."""
    base = {"storeplatform.plugins": "events", "events.webhooks.allow_private_targets": "true",
            "events.webhooks.timeout": "2"}
    base.update(settings)
    site = make_site(plugins=plugins, **base)
    if same_users_as is not None:
        site._users = dict(same_users_as.site._users)
    return Hooks(site)


@pytest.fixture
def wh(make_site):
    """Events with webhooks allowed to reach this machine; Huey in immediate mode."""
    return hooks_site(make_site)


@pytest.fixture
def strict(make_site):
    """Private targets refused, as in production."""
    return hooks_site(make_site, **{"events.webhooks.allow_private_targets": "false"})
