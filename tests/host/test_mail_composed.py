"""Messages a worker composes (#41): ``queue_mail`` records the message's kind and context in the
change's transaction; the worker calls the kind's composer (``config.add_mail_composer``) with
the data as committed, builds the message as ``send_mail`` does and sends it to a real SMTP
server on 127.0.0.1. A composer with nothing to send drops it; one that fails fails the message
with the reason, and Retry composes it again; a message whose hand-off was lost is composed by
the worker the sweep hands it to."""
import pytest
from sqlalchemy import func, select

from storeplatform.api import Attachment, MailError, hookimpl, queue_mail
from storeplatform.components.mail.models import MailMessage
from storeplatform.components.mail.tasks import SWEEP_TASK
from storeplatform.testing import admin_login, admin_token, queue_url, wait_for

from .mail_servers import SmtpServer

PDF = b"%PDF-1.4\n" + bytes(range(256))


class Receipts:
    """A plugin whose receipts are composed by the worker."""

    def __init__(self):
        self.broken = True
        self.calls = []

    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_mail_composer("test.receipt", self.compose)

    def compose(self, session, context):
        self.calls.append(context)
        if context.get("gone"):
            return None
        if context.get("fragile") and self.broken:
            raise RuntimeError("the printer is out of paper")
        return {"to": ("Ann Buyer", "ann@example.com"), "subject": f"Receipt #{context['order']}",
                "text": f"Order {context['order']}.\n", "html": f"<p>Order <b>{context['order']}</b>.</p>",
                "attachments": [Attachment(f"receipt-{context['order']}.pdf", PDF, "application/pdf")]}


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


def site_with(make_site, tmp_path, smtp, plugin, **settings):
    return make_site(plugins=(plugin,), **{"mail.url": smtp.url(), "mail.directory": str(tmp_path / "mail"),
                                           "mail.timeout": "2", "mail.retry_delays": "none",
                                           "mail.requeue_after": "0", **settings})


def rows(site):
    with site.session() as s:
        return [dict(r._mapping) for r in s.execute(select(MailMessage.__table__).order_by(MailMessage.id))]


def queue(site, context):
    with site.session() as s:
        return queue_mail(s, "test.receipt", context)


def test_a_queued_message_is_composed_by_the_worker_and_sent(make_site, tmp_path, smtp):
    plugin = Receipts()
    site = site_with(make_site, tmp_path, smtp, plugin)
    message_id = queue(site, {"order": 12})
    [parsed] = smtp.keeper.messages()
    assert parsed["Subject"] == "Receipt #12" and parsed["To"] == "Ann Buyer <ann@example.com>"
    assert parsed.get_body(("html",)).get_content() == "<p>Order <b>12</b>.</p>\r\n"
    [attached] = list(parsed.iter_attachments())
    assert (attached.get_filename(), attached.get_content()) == ("receipt-12.pdf", PDF)
    [row] = rows(site)
    assert (row["id"], row["status"], row["kind"], row["subject"], row["context"]) == (
        message_id, "sent", "test.receipt", "Receipt #12", {"order": 12})
    assert row["recipients"] == ["ann@example.com"] and row["message_id"] == parsed["Message-ID"]

    with pytest.raises(RuntimeError):
        with site.session() as s:
            queue_mail(s, "test.receipt", {"order": 13})
            raise RuntimeError("the change fails")
    assert len(rows(site)) == 1 and plugin.calls == [{"order": 12}]


def test_nothing_to_send_drops_it_and_an_unknown_kind_never_queues(make_site, tmp_path, smtp):
    site = site_with(make_site, tmp_path, smtp, Receipts())
    queue(site, {"order": 1, "gone": True})
    assert rows(site) == [] and smtp.keeper.received == []
    with site.session() as s, pytest.raises(MailError) as refused:
        queue_mail(s, "test.nobody_makes_it", {})
    assert refused.value.field == "kind"
    with site.session() as s, pytest.raises(MailError):
        queue_mail(s, "Not A Kind", {})


def test_a_composer_that_fails_fails_the_message_and_retry_composes_it_again(make_site, tmp_path, smtp):
    plugin = Receipts()
    site = site_with(make_site, tmp_path, smtp, plugin)
    message_id = queue(site, {"order": 7, "fragile": True})
    [row] = rows(site)
    assert row["status"] == "failed" and row["response"] == "could not be composed: the printer is out of paper"
    assert row["body"] == b"" and smtp.keeper.received == []
    admin_login(site, "boss", "administrator")
    page = site.app.get(f"/admin/mail/{message_id}")
    assert "could not be composed" in page.text
    site.app.post(f"/admin/mail/{message_id}/resend", {"csrf_token": admin_token(page)}, status=400)
    plugin.broken = False
    site.app.post(f"/admin/mail/{message_id}/retry", {"csrf_token": admin_token(page)}, status=303)
    [row] = rows(site)
    assert (row["status"], row["subject"]) == ("sent", "Receipt #7")
    assert [m["Subject"] for m in smtp.keeper.messages()] == ["Receipt #7"]


def test_a_lost_hand_off_is_composed_by_the_worker_the_sweep_gives_it_to(make_site, tmp_path, smtp):
    plugin = Receipts()
    site = site_with(make_site, tmp_path, smtp, plugin, **{"huey.url": queue_url(tmp_path)})
    message_id = queue(site, {"order": 21})
    # The hand-off is lost (the queue emptied before any worker took it).
    site.registry["queue.huey"].flush()
    assert [r["status"] for r in rows(site)] == ["composing"]
    site.run_task(SWEEP_TASK)  # requeue_after 0: handed over again
    with site.worker(workers=2):
        wait_for(lambda: [r["status"] for r in rows(site)] == ["sent"], timeout=20)
    assert [m["Subject"] for m in smtp.keeper.messages()] == ["Receipt #21"]
    with site.session() as s:
        assert s.execute(select(func.count()).select_from(MailMessage).where(MailMessage.id == message_id)).scalar() == 1
