"""The admin's Mail log (``manage_mail``: administrators): every message recorded, newest first,
filtered by status (waiting, sending, sent, failed), with the server's answer; a message's page
(its headers, text part and attachments, the ``.eml`` to download) with Retry (a failed message,
the same bytes) and Resend (a new message, a new Message-ID)."""
from email import message_from_bytes
from email.policy import SMTP

from pyramid.httpexceptions import HTTPNotFound
from pyramid.response import Response
from sqlalchemy import select

from storeplatform.components.admin.guard import admin_redirect
from storeplatform.components.admin.listing import list_query, page_of
from storeplatform.components.admin.pages import AdminPage, admin_view
from storeplatform.core.db import get_by_id
from storeplatform.core.options import site_timezone
from storeplatform.core.values import id_in_range

from .hooks import CAPABILITY
from .models import FAILED, PENDING, SENT, STATUSES, MailMessage
from .outbox import MailError, resend, retry, waiting_figures
from .settings import policy_of

MAIL = AdminPage("mail", "Mail log", "/mail", CAPABILITY, order=94, section="Site")
ONE = r"/{id:\d+}"
SHOWN_TEXT = 20_000  # characters of a message's text part shown on its page


@admin_view(MAIL, template="mail/log.jinja2")
def mail_log(request):
    query = list_query(request, statuses=STATUSES, dates=False)
    stmt = select(MailMessage).order_by(MailMessage.id.desc())
    if query.status:
        stmt = stmt.where(MailMessage.status == query.status)
    p = page_of(request, query, stmt)
    waiting, oldest = waiting_figures(request.db)
    return {"title": "Mail log", "p": p, "query": query, "tz": site_timezone(request.db), "statuses": STATUSES,
            "where": policy_of(request.registry).describe(), "waiting": waiting, "oldest": int(oldest),
            "keep": policy_of(request.registry).log_size}


def _load(request):
    message_id = int(request.matchdict["id"])
    item = get_by_id(request.db, MailMessage, message_id) if id_in_range(message_id) else None
    if item is None:
        raise HTTPNotFound("There is no such message (the log keeps the newest finished ones).")
    return item


def _parts(item):
    """(text part, [(filename, type, size)]) of a stored message."""
    message = message_from_bytes(item.body, policy=SMTP)
    body = message.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""
    files = [(part.get_filename() or "", part.get_content_type(), len(part.get_payload(decode=True) or b""))
             for part in message.iter_attachments()]
    headers = [(name, str(value)) for name, value in message.items()]
    return headers, text[:SHOWN_TEXT], len(text) > SHOWN_TEXT, files, message.get_body(("html",)) is not None


@admin_view(MAIL, path=ONE, template="mail/message.jinja2")
def message_page(request):
    item = _load(request)
    headers, text, cut, files, has_html = _parts(item)
    return {"title": f"Message {item.id}", "m": item, "tz": site_timezone(request.db), "headers": headers,
            "text": text, "cut": cut, "files": files, "has_html": has_html, "FAILED": FAILED, "SENT": SENT,
            "PENDING": PENDING}


@admin_view(MAIL, path=ONE + "/eml")
def message_file(request):
    item = _load(request)
    return Response(body=item.body, content_type="message/rfc822",
                    content_disposition=f'attachment; filename="message-{item.id}.eml"')


@admin_view(MAIL, path=ONE + "/retry", request_method="POST")
def retry_message(request):
    item = _load(request)
    try:
        retry(request.db, item)
    except MailError as exc:
        return admin_redirect(request, f"/mail/{item.id}", notice=f"Not retried: {exc.message}.")
    return admin_redirect(request, f"/mail/{item.id}", notice="Message queued again; the worker sends it.")


@admin_view(MAIL, path=ONE + "/resend", request_method="POST")
def resend_message(request):
    item = _load(request)
    new_id = resend(request.db, item)
    return admin_redirect(request, f"/mail/{new_id}", notice=f"Message {item.id} recorded again as {new_id}; "
                                                             "the worker sends it.")
