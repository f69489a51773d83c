"""The records of a webhook delivery carry the id of the request whose change made it (issue
#26; README "Logs"): the failed delivery's WARNING and the disabled webhook's ERROR are written
by the worker process's recorder thread, a real worker and a real receiver on 127.0.0.1."""
import logging

from storeplatform.testing import queue_url, wait_for

from .webhook_fixtures import hooks_site, receiver  # noqa: F401

WEBHOOK_LOG = "storeplatform_events.webhooks"


def _records(caplog, level):
    return [r for r in caplog.records if r.name == WEBHOOK_LOG and r.levelno == level]


def test_a_failed_deliverys_records_carry_the_request_id_of_the_change(make_site, tmp_path, receiver, caplog):
    caplog.set_level(logging.WARNING, logger=WEBHOOK_LOG)
    site = hooks_site(make_site, **{"huey.url": queue_url(tmp_path), "storeplatform.trusted_proxies": "127.0.0.1"})
    hook = site.webhook("event.updated", receiver.url("/status/500"))
    event = site.event("Concert")
    proxied = {**site.admin, "X-Request-ID": "lb-update-1"}
    answered = site.put(f"/events/{event['id']}", {"title": "Concert, moved"}, headers=proxied, status=200)
    assert answered.headers["X-Request-ID"] == "lb-update-1"
    with site.site.worker(workers=2):
        [warning] = wait_for(lambda: _records(caplog, logging.WARNING), timeout=20)
    assert "failed: status 500" in warning.getMessage()
    assert (warning.webhook_id, warning.topic, warning.response_code) == (hook["id"], "event.updated", 500)
    assert warning.request_id == "lb-update-1"


def test_the_webhook_disabled_by_a_failure_is_logged_with_that_requests_id(make_site, tmp_path, receiver, caplog):
    caplog.set_level(logging.WARNING, logger=WEBHOOK_LOG)
    site = hooks_site(make_site, **{"huey.url": queue_url(tmp_path), "storeplatform.trusted_proxies": "127.0.0.1"})
    hook = site.webhook("event.updated", receiver.url("/status/500"))
    event = site.event("Concert")
    ids = [f"lb-update-{n}" for n in range(1, 6)]  # the fifth failure in a row disables the webhook
    with site.site.worker(workers=1):
        for n, request_id in enumerate(ids, 1):
            site.put(f"/events/{event['id']}", {"title": f"Concert {n}"},
                     headers={**site.admin, "X-Request-ID": request_id}, status=200)
            # One delivery at a time: each is recorded before the next change.
            wait_for(lambda: len(_records(caplog, logging.WARNING)) == n, timeout=20)
        [error] = wait_for(lambda: _records(caplog, logging.ERROR), timeout=20)
    warnings = _records(caplog, logging.WARNING)
    assert [(r.webhook_id, r.request_id) for r in warnings] == [(hook["id"], request_id) for request_id in ids]
    assert "disabled" in error.getMessage() and error.webhook_id == hook["id"]
    assert error.request_id == ids[-1]
