"""The HTTP client of deliveries (one per worker thread): its connections carry the thread's
next deliveries, are not reused once they have rested, and nothing else passes from one
delivery to the next (a receiver's cookies)."""
import time

import pytest
from storeplatform_events.webhooks import connections

from . import webhook_fixtures
from .webhook_fixtures import hooks_site, signed_by
from .webhook_receiver import Receiver

wh = webhook_fixtures.wh  # a site with webhooks to this machine, Huey in immediate mode (a fixture)

POLICIES = {
    "private targets allowed": {"events.webhooks.allow_private_targets": "true"},
    # The production rule: each address resolved, checked and pinned (the receiver's trusted).
    "addresses pinned": {"events.webhooks.allow_private_targets": "false",
                         "events.webhooks.trusted_networks": "127.0.0.1"},
}


@pytest.fixture
def keep_alive():
    """A receiver that keeps connections open and sets a cookie with every answer."""
    receiver = Receiver(keep_alive=True, cookie="session=s3cret; Path=/")
    yield receiver
    receiver.close()


@pytest.mark.in_process
@pytest.mark.parametrize("policy", POLICIES)
def test_deliveries_of_a_thread_share_its_connection_and_nothing_else(make_site, keep_alive, policy):
    site = hooks_site(make_site, **POLICIES[policy])  # Huey in immediate mode: one thread sends
    hook = site.webhook("event.created", keep_alive.url())
    for i in range(5):
        site.event(f"E{i}")
    posts = keep_alive.posts()
    assert len(posts) == 5 and all(signed_by(p, hook["secret"]) for p in posts)
    assert len({p.client for p in posts}) == 1  # one connection carried the five
    assert not any("Cookie" in p.headers for p in posts)  # a cookie lives for one delivery
    assert {d["status"] for d in site.deliveries()} == {"delivered"}


@pytest.mark.in_process
def test_a_connection_that_rested_is_not_reused(wh, keep_alive, monkeypatch):
    # Long enough that two requests in a row stay within it on a loaded machine (0.05 s did not).
    monkeypatch.setattr(connections, "IDLE_LIMIT", 0.5)
    wh.webhook("event.created", keep_alive.url())
    wh.event("First")
    wh.event("Right after")
    time.sleep(1.0)
    wh.event("After a rest")
    first, right_after, after_rest = keep_alive.posts()
    assert first.client == right_after.client != after_rest.client
    assert {d["status"] for d in wh.deliveries()} == {"delivered"}


def test_cookies_still_follow_the_redirects_of_one_delivery(wh):
    """Within one delivery a cookie set by a redirecting hop is sent to the next, as requests
    does; the next delivery starts without it."""
    receiver = Receiver(cookie="hop=1; Path=/")
    try:
        wh.webhook("event.created", receiver.url("/redirect/1"))
        wh.event("Hop")
        wh.event("Hop again")
        hops = receiver.posts()
        assert [r.path for r in hops] == ["/redirect/1", "/redirect/0"] * 2
        assert [r.headers.get("Cookie") for r in hops] == [None, "hop=1"] * 2
    finally:
        receiver.close()
