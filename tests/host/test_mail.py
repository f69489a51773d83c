"""The mail service (#41): a message is recorded in the transaction of the change that makes it
and sent by the queue after commit: over SMTP to a real server on 127.0.0.1 (aiosmtpd), or, with
no server set, as an ``.eml`` file under the site's var/mail. Read back: the headers, both parts,
an attachment and an inline image. Bad input never queues; a server that refuses (4xx retried,
5xx failed), closes the connection or hangs costs a worker seconds; the log in the admin; the
plugin API (send_mail, render_mail, the two hooks); the metrics."""
import time
from email import message_from_bytes
from email.policy import default

import pytest
from sqlalchemy import func, select

from storeplatform.api import Attachment, InlineImage, MailError, render_mail, send_mail
from storeplatform.components.mail.models import MailMessage
from storeplatform.components.mail.outbox import SEND_TASK
from storeplatform.components.mail.tasks import SWEEP_TASK
from storeplatform.core.settings import SettingsError
from storeplatform.core.startup import ready_summary
from storeplatform.testing import admin_login, admin_token, assert_admin_page, assert_error

from .mail_servers import RawServer, SmtpServer, login_checker, self_signed

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
PDF = b"%PDF-1.4\n" + bytes(range(256)) * 4


def mail_site(make_site, tmp_path, **settings):
    return make_site(**{"mail.directory": str(tmp_path / "mail"), "mail.timeout": "1",
                        "mail.retry_delays": "0 0", "mail.requeue_after": "0", **settings})


def rows(site):
    with site.session() as s:
        return [dict(r._mapping) for r in s.execute(select(MailMessage.__table__).order_by(MailMessage.id))]


def count(site):
    with site.session() as s:
        return s.execute(select(func.count()).select_from(MailMessage)).scalar_one()


def send(site, **kwargs):
    kwargs.setdefault("to", "Ann Buyer <ann@example.com>")
    kwargs.setdefault("subject", "Your order")
    kwargs.setdefault("text", "Thank you.\n")
    with site.session() as s:
        return send_mail(s, **kwargs)


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


# -- the embedded default: .eml files ------------------------------------------------------------

def test_with_no_server_each_committed_message_is_an_eml_file_and_a_rolled_back_one_is_nothing(
        make_site, tmp_path):
    site = mail_site(make_site, tmp_path)
    site.set_option("mail.from", "shop@example.com")
    message_id = send(site, html="<p>Thank <b>you</b>.</p>")
    [row] = rows(site)
    assert (row["id"], row["status"], row["attempts"], row["recipients"]) == (message_id, "sent", 1,
                                                                              ["ann@example.com"])
    [path] = (tmp_path / "mail").glob("*.eml")
    assert row["response"] == f"written to {path}" and path.read_bytes() == row["body"]
    assert (path.stat().st_mode & 0o777) == 0o600 and ((tmp_path / "mail").stat().st_mode & 0o777) == 0o700
    parsed = message_from_bytes(path.read_bytes(), policy=default)
    assert parsed["From"] == "Storeplatform Demo Store <shop@example.com>"
    assert parsed["Message-ID"] == row["message_id"] and parsed["Message-ID"].endswith("@example.com>")
    assert parsed.get_body(("plain",)).get_content() == "Thank you.\r\n"  # CRLF: as sent

    with pytest.raises(RuntimeError):
        with site.session() as s:
            send_mail(s, to="bob@example.com", subject="Never", text="rolled back")
            raise RuntimeError("the change fails")
    assert count(site) == 1 and len(list((tmp_path / "mail").glob("*.eml"))) == 1


def test_the_start_up_block_and_the_admin_say_where_mail_goes(make_site, tmp_path, smtp):
    site = mail_site(make_site, tmp_path)
    lines = ready_summary(site.registry, "http://127.0.0.1:6543", None)
    assert (f"  mail:      not sent: kept as .eml files in {tmp_path / 'mail'} (set mail.url to send through an "
            "SMTP server)") in lines
    default = make_site(**{"mail.enabled": "true"})
    assert ("  mail:      not sent: kept as .eml files in var/mail/ (set mail.url to send through an SMTP server)"
            in ready_summary(default.registry, "http://127.0.0.1:6543", None))
    off = make_site(**{"mail.enabled": "false"})
    assert "  mail:      off: no message is recorded or sent (mail.enabled = false)" in ready_summary(
        off.registry, "http://127.0.0.1:6543", None)
    with off.session() as s:
        assert send_mail(s, to="ann@example.com", subject="Never", text="Off.\n") is None
        with pytest.raises(MailError):
            send_mail(s, to="not an address", subject="Never", text="Off.\n")
    assert count(off) == 0
    admin_login(site, "boss", "administrator")
    page = assert_admin_page(site.app.get("/admin/mail"), 200, "kept as .eml files")
    assert "No message yet" in page.text
    relay = mail_site(make_site, tmp_path, **{"mail.url": "smtp://mailer:s3cret@relay.example.com"})
    lines = ready_summary(relay.registry, "http://127.0.0.1:6543", None)
    assert "  mail:      sent through relay.example.com:587 (STARTTLS, login mailer)" in lines
    assert not any("s3cret" in line for line in lines)


# -- SMTP: a real server ---------------------------------------------------------------------------

def test_a_message_reaches_a_real_smtp_server_whole(make_site, tmp_path, smtp):
    site = mail_site(make_site, tmp_path, **{"mail.url": smtp.url()})
    site.set_option("mail.from", "shop@example.com")
    site.set_option("mail.from_name", "The Shop")
    message_id = send(site, to=["Ann Buyer <ann@example.com>", ("Bob", "bob@example.com")], cc="carl@example.com",
                      bcc=["dora@example.com"], reply_to="help@example.com", subject="Your order n° 12",
                      text="Thank you, Ann.\n", html='<p>Thank you, <b>Ann</b>.<img src="cid:logo"></p>',
                      inline_images=[InlineImage("logo", PNG)], attachments=[Attachment("invoice-12.pdf", PDF,
                                                                                         "application/pdf")])
    [envelope] = smtp.keeper.received
    assert envelope.mail_from == "shop@example.com"
    assert envelope.rcpt_tos == ["ann@example.com", "bob@example.com", "carl@example.com", "dora@example.com"]
    [parsed] = smtp.keeper.messages()
    assert parsed["From"] == "The Shop <shop@example.com>"
    assert parsed["To"] == "Ann Buyer <ann@example.com>, Bob <bob@example.com>"
    assert (parsed["Cc"], parsed["Reply-To"], parsed["Bcc"]) == ("carl@example.com", "help@example.com", None)
    assert parsed["Subject"] == "Your order n° 12"
    assert parsed.get_body(("plain",)).get_content() == "Thank you, Ann.\r\n"
    html = parsed.get_body(("html",))
    assert html.get_content() == '<p>Thank you, <b>Ann</b>.<img src="cid:logo"></p>\r\n'
    [image] = [p for p in parsed.walk() if p["Content-ID"] == "<logo>"]
    assert image.get_content_type() == "image/png" and image.get_content() == PNG
    [attached] = list(parsed.iter_attachments())
    assert (attached.get_filename(), attached.get_content_type(), attached.get_content()) == (
        "invoice-12.pdf", "application/pdf", PDF)
    [row] = rows(site)
    assert (row["id"], row["status"], row["response_code"], row["attempts"]) == (message_id, "sent", 250, 1)
    assert row["response"] == "2.0.0 Ok: queued as 1234"
    assert row["message_id"] == parsed["Message-ID"]
    assert envelope.original_content.replace(b"\r\n", b"\n") == row["body"].replace(b"\r\n", b"\n")


def test_starttls_and_login_are_used_when_the_url_asks(make_site, tmp_path):
    import ssl

    cert, key = self_signed(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    with SmtpServer(tls_context=context, require_starttls=True, auth_require_tls=True,
                    authenticator=login_checker("mailer", "pass word/1")) as server:
        site = mail_site(make_site, tmp_path, **{"mail.url": f"smtp://mailer:pass%20word%2F1@127.0.0.1:{server.port}",
                                                 "mail.cafile": str(cert)})
        send(site)
        [row] = rows(site)
        assert (row["status"], row["response_code"]) == ("sent", 250) and len(server.keeper.received) == 1
        # A wrong password is the server's 535: failed for good, its answer in the log.
        wrong = mail_site(make_site, tmp_path, **{"mail.url": f"smtp://mailer:wrong@127.0.0.1:{server.port}",
                                                  "mail.cafile": str(cert)})
        send(wrong)
        row = rows(wrong)[-1]
        assert (row["status"], row["response_code"]) == ("failed", 535) and len(server.keeper.received) == 1
        # A certificate the site does not trust: not sent, retried (the owner may fix the CA).
        untrusting = mail_site(make_site, tmp_path, **{"mail.url": f"smtp://mailer:x@127.0.0.1:{server.port}"})
        send(untrusting)
        row = rows(untrusting)[-1]
        assert row["status"] == "pending" and row["response"].startswith("TLS failed")


def test_smtps_is_tls_from_the_first_byte(make_site, tmp_path):
    import ssl

    cert, key = self_signed(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    with SmtpServer(ssl_context=context) as server:
        site = mail_site(make_site, tmp_path, **{"mail.url": f"smtps://127.0.0.1:{server.port}",
                                                 "mail.cafile": str(cert)})
        send(site)
        assert [r["status"] for r in rows(site)] == ["sent"] and len(server.keeper.received) == 1


def test_smtp_refuses_to_go_without_starttls(make_site, tmp_path):
    """smtp:// requires STARTTLS: a server that does not offer it is refused for good (nothing
    is sent in clear), and the log says why."""
    with SmtpServer() as plain:
        site = mail_site(make_site, tmp_path, **{"mail.url": plain.url("smtp")})
        send(site)
        [row] = rows(site)
        assert row["status"] == "failed" and "does not offer STARTTLS" in row["response"]
        assert plain.keeper.received == []


# -- bad input never queues ------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, field", [
    ({"to": "not an address"}, "to"),
    ({"to": "ann@localhost"}, "to"),
    ({"to": ["ann@example.com", "bob@"]}, "to"),
    ({"cc": "x@@example.com"}, "cc"),
    ({"reply_to": "help"}, "reply_to"),
    ({"to": []}, "to"),
    ({"subject": "Hello\r\nBcc: victim@example.com"}, "subject"),
    ({"subject": "Hello\nX-Evil: 1"}, "subject"),
    ({"to": "Ann\r\nBcc: victim@example.com <ann@example.com>"}, "to"),
    ({"to": ("Ann\n", "ann@example.com")}, "to"),
    ({"headers": {"X-Order": "1\r\nBcc: victim@example.com"}}, "headers[X-Order]"),
    ({"headers": {"Bcc": "victim@example.com"}}, "headers"),
    ({"attachments": [Attachment("a\r\nb.pdf", b"x")]}, "attachments"),
    ({"attachments": [Attachment("a.pdf", b"x", "text/plain\r\nX-Evil: 1")]}, "attachments"),
    ({"kind": "Not A Kind"}, "kind"),
])
def test_a_bad_address_or_header_is_refused_where_it_was_given_and_nothing_is_recorded(
        make_site, tmp_path, kwargs, field):
    site = mail_site(make_site, tmp_path)
    with pytest.raises(MailError) as caught:
        send(site, **kwargs)
    assert caught.value.field == field and str(caught.value).startswith(f"{field}: ")
    assert isinstance(caught.value, ValueError)
    assert count(site) == 0 and not (tmp_path / "mail").exists()


def test_a_message_over_the_owners_size_limit_is_refused(make_site, tmp_path):
    site = mail_site(make_site, tmp_path, **{"mail.max_size": "65536"})
    with pytest.raises(MailError) as caught:
        send(site, attachments=[Attachment("big.bin", b"x" * 60_000)])
    assert caught.value.field == "attachments" and "more than the site's limit of 65,536 (mail.max_size)" in str(
        caught.value)
    assert count(site) == 0
    send(site, attachments=[Attachment("small.bin", b"x" * 10_000)])
    assert [r["status"] for r in rows(site)] == ["sent"]


@pytest.mark.parametrize("settings, message", [
    ({"mail.url": "http://example.com"}, "mail.url must start with smtp://"),
    ({"mail.url": "smtp://"}, "mail.url must name the SMTP server's host"),
    ({"mail.url": "smtp://host:99999"}, "port"),
    ({"mail.timeout": "0"}, "mail.timeout must be a number"),
    ({"mail.timeout": "soon"}, "mail.timeout must be a number"),
    ({"mail.max_size": "1000000000000"}, "mail.max_size must be a number"),
    ({"mail.retry_delays": "60 -1"}, "mail.retry_delays"),
])
def test_a_bad_mail_setting_stops_the_site_naming_it(make_site, tmp_path, settings, message):
    with pytest.raises(SettingsError) as caught:
        mail_site(make_site, tmp_path, **settings)
    assert message in str(caught.value)


def test_the_environment_overrides_the_url_and_the_password(database, tmp_path):
    from storeplatform import make_config

    config = make_config(environ={"STOREPLATFORM_MAIL_URL": "smtps://user:from%40url@mx.example.com",
                                  "STOREPLATFORM_MAIL_PASSWORD": "from-env"},
                         **database.settings(**{"mail.url": "smtp://other.example.com"}))
    try:
        policy = config.registry.settings["storeplatform.parsed"]["mail"]
        assert (policy.transport, policy.host, policy.port, policy.security, policy.username, policy.password) == (
            "smtp", "mx.example.com", 465, "tls", "user", "from-env")
    finally:
        config.registry["db.engine"].dispose()


# -- servers that refuse, close or hang ------------------------------------------------------------

def test_a_4xx_answer_is_retried_with_back_off_then_failed(make_site, tmp_path, smtp):
    site = mail_site(make_site, tmp_path, **{"mail.url": smtp.url()})
    smtp.keeper.data_answer = "451 4.3.0 Try again later"
    send(site)
    [row] = rows(site)
    assert (row["status"], row["attempts"], row["response_code"], row["response"]) == (
        "pending", 1, 451, "4.3.0 Try again later")
    site.run_task(SWEEP_TASK)  # due (back-off 0): sent again, refused again
    assert [(r["status"], r["attempts"]) for r in rows(site)] == [("pending", 2)]
    site.run_task(SWEEP_TASK)  # the retries (two) are spent: failed
    [row] = rows(site)
    assert (row["status"], row["attempts"], row["response_code"]) == ("failed", 3, 451)
    site.run_task(SWEEP_TASK)  # never retried forever
    assert rows(site)[0]["attempts"] == 3 and smtp.keeper.received == []


def test_a_4xx_then_an_accepting_server_sends_it_once(make_site, tmp_path, smtp):
    site = mail_site(make_site, tmp_path, **{"mail.url": smtp.url()})
    smtp.keeper.rcpt_answer = "450 4.2.1 Mailbox busy"
    send(site)
    assert rows(site)[0]["status"] == "pending"
    smtp.keeper.rcpt_answer = None
    site.run_task(SWEEP_TASK)
    site.run_task(SWEEP_TASK)
    [row] = rows(site)
    assert (row["status"], row["attempts"]) == ("sent", 2) and len(smtp.keeper.received) == 1


def test_the_back_off_waits_before_the_next_attempt(make_site, tmp_path, smtp):
    site = mail_site(make_site, tmp_path, **{"mail.url": smtp.url(), "mail.retry_delays": "600"})
    smtp.keeper.data_answer = "421 4.7.0 Too many connections"
    send(site)
    site.run_task(SWEEP_TASK)
    site.enqueue(SEND_TASK, rows(site)[0]["id"])  # even handed over again: not before its time
    [row] = rows(site)
    assert (row["status"], row["attempts"]) == ("pending", 1)
    assert (row["next_attempt_at"] - row["created_at"]).total_seconds() >= 599


@pytest.mark.parametrize("where", ["rcpt", "data"])
def test_a_5xx_answer_fails_at_once_and_is_never_retried(make_site, tmp_path, smtp, where):
    site = mail_site(make_site, tmp_path, **{"mail.url": smtp.url()})
    setattr(smtp.keeper, f"{where}_answer", "550 5.1.1 No such user here")
    send(site)
    site.run_task(SWEEP_TASK)
    [row] = rows(site)
    assert (row["status"], row["attempts"], row["response_code"]) == ("failed", 1, 550)
    assert "No such user here" in row["response"]


def test_a_server_that_closes_the_connection_or_is_down_is_retried(make_site, tmp_path):
    with RawServer("close") as server:
        site = mail_site(make_site, tmp_path, **{"mail.url": server.url()})
        send(site)
        [row] = rows(site)
        assert (row["status"], row["response_code"]) == ("pending", None)
        assert "closed the connection" in row["response"]
    down = mail_site(make_site, tmp_path, **{"mail.url": server.url(), "mail.retry_delays": "none"})
    send(down)
    row = rows(down)[-1]
    assert row["status"] == "failed" and "cannot reach 127.0.0.1" in row["response"]


def test_a_server_that_hangs_costs_the_worker_the_time_out_not_minutes(make_site, tmp_path):
    with RawServer("hang") as server:
        site = mail_site(make_site, tmp_path, **{"mail.url": server.url(), "mail.timeout": "0.5"})
        began = time.monotonic()
        send(site)
        took = time.monotonic() - began
    [row] = rows(site)
    assert (row["status"], row["response"]) == ("pending", "no answer within 0.5 s (mail.timeout)")
    assert took < 3, took


# -- the plugin API: a message in a request's transaction, hooks, templates ------------------------

def test_a_plugin_sends_in_the_requests_transaction_and_shapes_the_message(make_site, tmp_path, smtp):
    site = mail_site(make_site, tmp_path, **{"mail.url": smtp.url(), "storeplatform.plugins": "thirdparty_mail"})
    res = site.app.post_json("/api/store/v1/thirdparty/notify", {"to": "ann@example.com"})
    [parsed] = smtp.keeper.messages()
    assert res.json["id"] == rows(site)[0]["id"]
    assert parsed["X-Thirdparty"] == "thirdparty.notify"  # storeplatform_mail_message
    [note] = list(parsed.iter_attachments())  # storeplatform_mail_attachments
    assert (note.get_filename(), note.get_content()) == ("note.txt", "attached by the thirdparty plugin\n")
    assert parsed.get_body(("plain",)).get_content().startswith("This is a test message from Third party.")
    assert "<strong>Third party</strong>" in parsed.get_body(("html",)).get_content()
    # A bad address given to a REST view: the one error body, naming the field.
    res = site.app.post_json("/api/store/v1/thirdparty/notify", {"to": "nobody"}, status=400)
    assert_error(res, 400, "rest_invalid_param", params={"to": "'nobody' is not an e-mail address such as "
                                                               "ann@example.com"})
    # A request that fails after recording a message sends nothing.
    site.app.post_json("/api/store/v1/thirdparty/notify", {"to": "bob@example.com", "fail": True}, status=500)
    assert len(smtp.keeper.received) == 1 and count(site) == 1


def test_a_filter_that_injects_a_header_is_refused(make_site, tmp_path):
    from storeplatform.api import hookimpl

    class Injector:
        @hookimpl
        def storeplatform_mail_message(self, message):
            message._headers.append(("X-Evil", "1\r\nBcc: victim@example.com"))

    site = mail_site(make_site, tmp_path, plugins=[Injector()])
    with pytest.raises(MailError) as caught:
        send(site)
    assert caught.value.field == "x-evil" and count(site) == 0


def test_a_site_overrides_a_template_from_its_folder(make_site, tmp_path):
    folder = tmp_path / "mail-templates"
    folder.mkdir()
    (folder / "test.txt").write_text("Ours: {{ site_title }}\n")
    site = mail_site(make_site, tmp_path, **{"mail.templates": str(folder)})
    with site.session() as s:
        assert render_mail(s, "test", {"site_title": "A & B"}) == ("Ours: A & B\n", None)
    plain = mail_site(make_site, tmp_path)
    with plain.session() as s:
        text, html = render_mail(s, "test", {"site_title": "A & B"})
    assert "A & B" in text and "<strong>A &amp; B</strong>" in html


# -- the admin's mail log, the metrics -------------------------------------------------------------

def test_the_mail_log_shows_each_message_and_its_answer_with_retry_and_resend(make_site, tmp_path, smtp):
    site = mail_site(make_site, tmp_path, **{"mail.url": smtp.url(), "mail.retry_delays": "none"})
    smtp.keeper.rcpt_answer = "550 5.1.1 No such user"
    failed = send(site, to="gone@example.com", subject="Lost")
    smtp.keeper.rcpt_answer = None
    sent = send(site, subject="Found <script>alert(1)</script>", text="Thank you. <img src=x onerror=alert(2)>",
                attachments=[Attachment("a.pdf", PDF, "application/pdf")])
    admin_login(site, "boss", "administrator")
    page = assert_admin_page(site.app.get("/admin/mail"), 200, "550 5.1.1 No such user")
    assert "gone@example.com" in page.text and "Found" in page.text
    only = assert_admin_page(site.app.get("/admin/mail", params={"status": "failed"}), 200, "Lost")
    assert "Found" not in only.text
    assert_admin_page(site.app.get("/admin/mail", params={"status": "lost"}, status=400), 400)
    one = assert_admin_page(site.app.get(f"/admin/mail/{sent}"), 200, "a.pdf (application/pdf")
    assert "Thank you." in one.text and 'id="mail-retry"' not in one.text
    assert "<script>alert(1)" not in one.text + page.text and "<img src=x" not in one.text  # shown as text
    eml = site.app.get(f"/admin/mail/{sent}/eml")
    assert eml.content_type == "message/rfc822" and eml.body == rows(site)[1]["body"]
    token = admin_token(one)

    site.app.post(f"/admin/mail/{failed}/retry", {"csrf_token": token}, status=303)
    assert rows(site)[0]["status"] == "sent" and len(smtp.keeper.received) == 2
    res = site.app.post(f"/admin/mail/{sent}/resend", {"csrf_token": token}, status=303)
    again = rows(site)[2]
    assert (again["resend_of"], again["status"]) == (sent, "sent")
    assert again["message_id"] != rows(site)[1]["message_id"] and res.location.endswith(f"/admin/mail/{again['id']}")
    assert_admin_page(site.app.get("/admin/mail/999999", status=404), 404)

    site.app.reset()  # logged out
    admin_login(site, "manager", "shop_manager")
    assert_admin_page(site.app.get("/admin/mail", status=403), 403)


def test_the_log_keeps_the_newest_finished_messages(make_site, tmp_path):
    site = mail_site(make_site, tmp_path, **{"mail.log_size": "10"})
    for n in range(13):
        send(site, subject=f"n{n}")
    site.run_task(SWEEP_TASK)
    assert [r["subject"] for r in rows(site)] == [f"n{n}" for n in range(3, 13)]


def test_the_metrics_count_sent_and_failed_and_the_waiting_age(make_site, tmp_path, smtp):
    from prometheus_client.parser import text_string_to_metric_families

    site = mail_site(make_site, tmp_path, **{"mail.url": smtp.url(), "mail.retry_delays": "600",
                                             "storeplatform.metrics": "true",
                                             "storeplatform.metrics_allow": "127.0.0.1/32"})

    def samples():
        text = site.app.get("/metrics").text
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text) for s in family.samples}

    before = samples()
    send(site)
    smtp.keeper.data_answer = "452 4.3.1 Insufficient storage"
    send(site)
    after = samples()
    sent = ("storeplatform_mail_messages_total", (("outcome", "sent"),))
    retried = ("storeplatform_mail_messages_total", (("outcome", "retried"),))
    assert after[sent] - before.get(sent, 0) == 1 and after[retried] - before.get(retried, 0) == 1
    assert after[("storeplatform_mail_waiting", ())] == 1
    assert after[("storeplatform_mail_queue_age_seconds", ())] >= 0


def test_the_cli_records_a_test_message(cli):
    ok = cli("mail", "test", "ann@example.com")
    assert ok.stdout.startswith("message ") and "kept as .eml files in" in ok.stdout
    [row] = rows(cli.site)
    assert (row["kind"], row["recipients"], row["status"]) == ("test", ["ann@example.com"], "sent")
    bad = cli("mail", "test", "ann@", ok=False)
    assert bad.returncode == 1 and "to: 'ann@' is not an e-mail address" in bad.stderr


def test_names_and_domains_beyond_ascii_and_a_message_to_bcc_only(make_site, tmp_path, smtp):
    site = mail_site(make_site, tmp_path, **{"mail.url": smtp.url()})
    send(site, to="Jürgen Müller <jurgen@bücher.example>", subject="Grüße")
    send(site, to=[], bcc=["hidden@example.com"], subject="Hidden")
    first, second = smtp.keeper.received
    assert first.rcpt_tos == ["jurgen@xn--bcher-kva.example"] and second.rcpt_tos == ["hidden@example.com"]
    parsed, hidden = smtp.keeper.messages()
    assert (parsed["To"], parsed["Subject"]) == ("Jürgen Müller <jurgen@xn--bcher-kva.example>", "Grüße")
    assert hidden["To"] is None and hidden["Bcc"] is None


def test_recording_a_message_is_one_insert_in_the_callers_transaction(make_site, tmp_path):
    from storeplatform.api import site_options
    from storeplatform.testing import statements_run

    site = mail_site(make_site, tmp_path, **{"storeplatform.plugins": "thirdparty_mail"})
    with site.session() as s:
        site_options(s)  # read once per transaction, as a request that sends mail has
        with statements_run(site.engine) as seen:
            send_mail(s, to="ann@example.com", subject="One", text="statement", kind="thirdparty.notify")
        assert len(seen) == 1 and seen[0].startswith("INSERT INTO mail_outbox"), seen
        assert s.execute(select(MailMessage.status)).scalars().all() == ["pending"]  # this transaction's own
    assert [r["status"] for r in rows(site)] == ["sent"]  # sent after commit
