"""The outbox through a message's life: recorded in the transaction of the change that makes it
(one INSERT) and handed to the queue after commit; taken by one worker (pending -> sending) right
before its data is written; its outcome recorded (sent; a temporary failure back to pending with
its back-off; failed); and the sweep, which hands due and lost messages to the queue again,
closes the attempts of workers that died and keeps the log within ``mail.log_size``."""
import logging
from datetime import timedelta
from email import message_from_bytes
from email.policy import SMTP
from email.utils import make_msgid

from sqlalchemy import delete, func, insert, or_, select, update

from storeplatform.core import metrics
from storeplatform.core.db import hooks_of
from storeplatform.core.db.session import site_transaction
from storeplatform.core.db.types import utcnow
from storeplatform.core.options import site_options
from storeplatform.core.plugins import apply_filters
from storeplatform.core.queue import enqueue_after_commit

from .messages import MailError, address, addresses, build_message, check_kind, checked_headers, envelope
from .models import COMPOSING, FAILED, FINISHED, PENDING, SENDING, SENT, WAITING, MailMessage
from .settings import policy_of

log = logging.getLogger("storeplatform.mail")

SEND_TASK = "storeplatform.send_mail"
COMPOSERS = "mail.composers"  # registry key: {kind: composer}
ABANDONED = "abandoned: the worker stopped while sending; it may or may not have reached the server"
UNKNOWN = "no answer after the message was written: it may have been delivered, so it is not sent again"
FROM, FROM_NAME = "mail.from", "mail.from_name"

MESSAGES = metrics.counter("mail_messages", "Mail messages by outcome: sent, retried (a temporary failure, "
                           "tried again later), failed, abandoned (its worker died while sending).", ("outcome",))
for _outcome in ("sent", "retried", "failed", "abandoned"):
    MESSAGES.labels(_outcome)

T = MailMessage.__table__


def site_sender(session):
    """The site's From: the ``mail.from`` option (with ``mail.from_name``, or the site's title),
    or ``noreply@`` the site's host when the owner has set none."""
    options = site_options(session)
    addr = options.get(FROM) or ""
    if not addr:
        host = (options.get("site.url") or "").split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
        named = "." in host and not host.replace(".", "").isdigit()  # a domain name, not an IP address
        addr = f"noreply@{host}" if named else "noreply@localhost.localdomain"
    name = options.get(FROM_NAME) or options.get("site.title") or ""
    return address(FROM, (name, addr))


def send_mail(session, *, to, subject, text, html=None, kind="message", cc=(), bcc=(), reply_to=None,
              attachments=(), inline_images=(), headers=None, context=None):
    """Record a message in ``session``'s transaction and return its id; the queue sends it once
    the transaction commits (nothing is sent if it aborts). Plugins add attachments
    (``storeplatform_mail_attachments``) and change the built message
    (``storeplatform_mail_message``) before it is recorded. MailError (a ValueError) names the
    argument at fault: an address that is not one, a line break in a header, a message over
    ``mail.max_size``. With ``mail.enabled = false`` nothing is recorded: None."""
    kind = check_kind(kind)
    if not policy_of(session.info["registry"]).enabled:
        addresses("to", to), addresses("cc", cc), addresses("bcc", bcc)  # bad input is refused all the same
        return None
    message, bcc_list = build_for_site(session, kind, dict(context or {}), to=to, subject=subject, text=text,
                                       html=html, cc=cc, bcc=bcc, reply_to=reply_to, attachments=attachments,
                                       inline_images=inline_images, headers=headers)
    return record_message(session, message, kind, bcc_list)


def build_for_site(session, kind, context, *, to, subject, text, html=None, cc=(), bcc=(), reply_to=None,
                   attachments=(), inline_images=(), headers=None):
    """The message as the site sends it: its From, the plugins' attachments and filters, every
    header checked; returns (message, the Bcc addresses)."""
    to_list, cc_list, bcc_list = addresses("to", to), addresses("cc", cc), addresses("bcc", bcc)
    if not (to_list or cc_list or bcc_list):
        raise MailError("to", "at least one recipient is needed")
    reply = address("reply_to", reply_to) if reply_to else None
    hooks = hooks_of(session)
    extra = []
    for added in hooks.storeplatform_mail_attachments(session=session, kind=kind, context=context):
        extra.extend(added or ())
    message = build_message(sender=site_sender(session), to=to_list, cc=cc_list, reply_to=reply, subject=subject,
                            text=text, html=html, attachments=(*attachments, *extra), inline_images=inline_images,
                            headers=headers)
    message = apply_filters(hooks.storeplatform_mail_message, message, session=session, kind=kind, context=context)
    checked_headers(message)
    return message, bcc_list


# -- a message a worker composes ---------------------------------------------------------------

def add_mail_composer(config, kind, composer):
    """Config directive: ``composer(session, context)`` builds the messages of ``kind`` that
    ``queue_mail`` records: it returns ``send_mail``'s keyword arguments (``to``, ``subject``,
    ``text``, ``html``, ``attachments``...) or None when there is nothing to send any more."""
    composers = config.registry.setdefault(COMPOSERS, {})
    if kind in composers:
        raise ValueError(f"mail kind {kind!r} has a composer already")
    composers[check_kind(kind)] = composer


def queue_mail(session, kind, context):
    """Record a message of ``kind`` that a worker composes (the kind's composer, given
    ``context``: a JSON-able dict such as ``{"order_id": 12}``) and sends: what costs time to
    make (PDFs, images) is made off the request, from the data as committed. Recorded in
    ``session``'s transaction like ``send_mail``'s (nothing if it aborts, never lost once it
    commits); returns its id."""
    kind = check_kind(kind)
    if kind not in session.info["registry"].get(COMPOSERS, {}):
        raise MailError("kind", f"no composer makes messages of kind {kind!r} (config.add_mail_composer)")
    if not policy_of(session.info["registry"]).enabled:
        return None
    now = utcnow()
    message_id = session.execute(insert(MailMessage).values(
        created_at=now, kind=kind, status=COMPOSING, sender="", recipients=[], subject="", message_id="", size=0,
        body=b"", attempts=0, next_attempt_at=now, queued_at=now, context=dict(context),
    ).returning(MailMessage.id)).scalar_one()
    enqueue_after_commit(session, SEND_TASK, message_id)
    return message_id


def compose(registry, message_id):
    """Build a ``composing`` message with its kind's composer, in a transaction of its own that
    holds the row (a second worker waits, then finds it composed): pending afterwards; deleted
    when the composer has nothing to send; failed, with why, when it cannot be built."""
    with site_transaction(registry) as session:
        claimed = session.execute(update(T).where(T.c.id == message_id, T.c.status == COMPOSING)
                                  .values(queued_at=utcnow()).returning(T.c.kind, T.c.context)).first()
        if claimed is None:
            return
        kind, context = claimed
        composer = registry.get(COMPOSERS, {}).get(kind)
        try:
            if composer is None:
                raise MailError("kind", f"no composer makes messages of kind {kind!r} on this site")
            with session.begin_nested():
                arguments = composer(session, dict(context or {}))
                if arguments is None:
                    session.execute(delete(T).where(T.c.id == message_id))
                    return
                message, bcc = build_for_site(session, kind, dict(context or {}), **arguments)
                data, sender, recipients = _written(session, message, bcc)
        except Exception as exc:  # noqa: BLE001 (any composer's failure is the message's, in the log)
            session.execute(update(T).where(T.c.id == message_id).values(
                status=FAILED, finished_at=utcnow(), response_code=None,
                response=f"could not be composed: {exc}"[:2000]))
            MESSAGES.labels("failed").inc()
            log.error("mail %s (%s) could not be composed: %r", message_id, kind, exc, exc_info=not isinstance(
                exc, MailError), extra={"mail_id": message_id})
            return
        session.execute(update(T).where(T.c.id == message_id).values(
            status=PENDING, sender=sender, recipients=recipients, subject=str(message.get("Subject", ""))[:998],
            message_id=str(message.get("Message-ID", ""))[:255], size=len(data), body=data))


def record_message(session, message, kind, bcc=(), resend_of=None):
    """The INSERT of a built message (``EmailMessage``), and its hand-off after commit."""
    data, sender, recipients = _written(session, message, bcc)
    now = utcnow()
    message_id = session.execute(insert(MailMessage).values(
        created_at=now, kind=kind, status=PENDING, sender=sender, recipients=recipients,
        subject=str(message.get("Subject", ""))[:998], message_id=str(message.get("Message-ID", ""))[:255],
        size=len(data), body=data, attempts=0, next_attempt_at=now, queued_at=now, resend_of=resend_of,
    ).returning(MailMessage.id)).scalar_one()
    enqueue_after_commit(session, SEND_TASK, message_id)
    return message_id


def _written(session, message, bcc):
    """(the message's bytes, the envelope's sender and recipients); MailError beyond
    ``mail.max_size``."""
    policy = policy_of(session.info["registry"])
    try:
        data = message.as_bytes(policy=SMTP)
    except (ValueError, TypeError) as exc:
        raise MailError("message", f"cannot be written: {exc}") from None
    if len(data) > policy.max_size:
        raise MailError("attachments" if message.is_multipart() else "text",
                        f"the message is {len(data):,} bytes, more than the site's limit of "
                        f"{policy.max_size:,} (mail.max_size)")
    sender, recipients = envelope(message, bcc)
    return data, sender, recipients


# -- a worker's steps (short transactions of their own; nothing open while sending) ------------

def read_for_sending(connection, message_id):
    return connection.execute(select(T.c.status, T.c.sender, T.c.recipients, T.c.body, T.c.attempts,
                                     T.c.next_attempt_at, T.c.message_id).where(T.c.id == message_id)).first()


def take(connection, message_id, now):
    """pending -> sending by one worker only, right before the data is written."""
    return connection.execute(update(T).where(T.c.id == message_id, T.c.status == PENDING)
                              .values(status=SENDING, attempted_at=now, attempts=T.c.attempts + 1)).rowcount == 1


def record_sent(connection, message_id, answer):
    done = connection.execute(update(T).where(T.c.id == message_id, T.c.status == SENDING).values(
        status=SENT, finished_at=utcnow(), response_code=answer.code, response=answer.text)).rowcount
    if done:
        MESSAGES.labels("sent").inc()
    return bool(done)


def record_failure(connection, message_id, error, attempts_before, retry_delays):
    """A failed attempt: back to pending with its back-off when it may succeed later and retries
    are left; failed otherwise (a 5xx answer; no answer after the data was written: it may have
    been delivered). Returns the new status, or None when the row was no longer the worker's."""
    now = utcnow()
    attempts = attempts_before + 1
    expected = SENDING if error.taken else PENDING
    unknown = error.taken and error.code is None
    text = f"{error.text} ({UNKNOWN})" if unknown else error.text
    values = {"response_code": error.code, "response": text, "attempts": attempts}
    if error.temporary and not unknown and attempts <= len(retry_delays):
        values.update(status=PENDING, next_attempt_at=now + timedelta(seconds=retry_delays[attempts - 1]),
                      attempted_at=None)
        outcome = "retried"
    else:
        values.update(status=FAILED, finished_at=now)
        outcome = "failed"
    done = connection.execute(update(T).where(T.c.id == message_id, T.c.status == expected).values(**values)).rowcount
    if not done:
        return None
    MESSAGES.labels(outcome).inc()
    status = values["status"]
    (log.warning if status == PENDING else log.error)(
        "mail %s %s: %s %s", message_id, "will be tried again" if status == PENDING else "failed",
        error.code or "-", text, extra={"mail_id": message_id, "response_code": error.code or 0})
    return status


# -- the sweep -------------------------------------------------------------------------------

def requeue_due(session, requeue_after, limit=1000):
    """Hand the waiting messages that are due to the queue (after commit): those whose back-off
    has passed since their last hand-off, and those whose hand-off was lost (older than
    ``requeue_after``; a message still to compose too). A message handed twice is sent once: the take decides."""
    now = utcnow()
    lost = now - timedelta(seconds=requeue_after)
    ids = session.execute(select(MailMessage.id).where(or_(
        (MailMessage.status == PENDING) & (MailMessage.next_attempt_at <= now)
        & or_(MailMessage.queued_at < MailMessage.next_attempt_at, MailMessage.queued_at <= lost),
        (MailMessage.status == COMPOSING) & (MailMessage.queued_at <= lost)))
        .order_by(MailMessage.id).limit(limit)).scalars().all()
    if ids:
        session.execute(update(MailMessage).where(MailMessage.id.in_(ids), MailMessage.status.in_((PENDING, COMPOSING)))
                        .values(queued_at=now).execution_options(synchronize_session=False))
    for message_id in ids:
        enqueue_after_commit(session, SEND_TASK, message_id)
    return ids


def abandon_stuck(session, older_than_seconds):
    """A message still ``sending`` that long after it was taken belongs to a worker that died
    while sending: closed as failed (never sent again: the server may have it); the log shows it
    and the owner may send it again."""
    cutoff = utcnow() - timedelta(seconds=older_than_seconds)
    closed = session.execute(update(MailMessage).where(MailMessage.status == SENDING,
                                                       MailMessage.attempted_at <= cutoff)
                             .values(status=FAILED, finished_at=utcnow(), response=ABANDONED, response_code=None)
                             .returning(MailMessage.id).execution_options(synchronize_session=False)).scalars().all()
    if closed:
        MESSAGES.labels("abandoned").inc(len(closed))
        for message_id in closed:
            log.error("mail %s %s", message_id, ABANDONED, extra={"mail_id": message_id})
    return closed


def prune_log(session, keep):
    """Keep the newest ``keep`` finished messages; waiting ones are work."""
    finished = MailMessage.status.in_(FINISHED)
    oldest_kept = session.execute(select(MailMessage.id).where(finished).order_by(MailMessage.id.desc())
                                  .offset(keep - 1).limit(1)).scalar()
    if oldest_kept is None:
        return 0
    return session.execute(delete(MailMessage).where(finished, MailMessage.id < oldest_kept)
                           .execution_options(synchronize_session=False)).rowcount


# -- the admin's actions ---------------------------------------------------------------------

def retry(session, item):
    """A failed message back to the queue as it is (same bytes, same Message-ID); one that could
    not be composed is composed again."""
    if item.status != FAILED:
        raise MailError("status", f"only a failed message is retried; this one is {item.status}")
    now = utcnow()
    done = session.execute(update(MailMessage).where(MailMessage.id == item.id, MailMessage.status == FAILED)
                           .values(status=PENDING if item.body else COMPOSING, next_attempt_at=now, queued_at=now, finished_at=None,
                                   attempted_at=None, attempts=0).execution_options(synchronize_session=False)
                           ).rowcount
    if done:
        enqueue_after_commit(session, SEND_TASK, item.id)
    return bool(done)


def resend(session, item):
    """A sent (or failed) message recorded again as a new one with a new Message-ID (a receiver
    would drop a second copy of the first one's); returns the new id."""
    if not item.body:
        raise MailError("status", "this message was never composed: retry it instead")
    message = message_from_bytes(item.body, policy=SMTP)
    domain = item.sender.rpartition("@")[2] or None
    del message["Message-ID"]
    message["Message-ID"] = make_msgid(domain=domain)
    bcc = [address("bcc", r) for r in item.recipients if r not in _header_addresses(message)]
    return record_message(session, message, item.kind, bcc, resend_of=item.id)


def _header_addresses(message):
    found = set()
    for header in ("To", "Cc"):
        for value in message.get_all(header) or ():
            found.update(a.addr_spec for a in value.addresses)
    return found


def waiting_figures(session):
    """(number of waiting messages, age in seconds of the oldest due one, 0 when none)."""
    now = utcnow()
    count, oldest = session.execute(select(func.count(), func.min(MailMessage.created_at))
                                    .where(MailMessage.status.in_(WAITING))).one()
    return count, max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0
