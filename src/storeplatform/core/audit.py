"""Reporting administrative changes to the audit log (#40): any layer (the kernel's options, the
shop's accounts and credentials, a plugin through ``storeplatform.api``) calls
``audit(session_or_request, kind, action, subject, details)``; the kernel adds who made the
change and from where (the request's user and client address; ``cli`` or ``system`` outside a
request) and hands the event to whoever records it (``storeplatform_audit_event``: the audit
component), inside the caller's transaction, so that a change rolled back leaves no entry and a
failure to record it fails the change.

Nothing here imports the component that records: the kernel knows the hook only."""
import contextvars
import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from .db import hooks_of, request_of
from .db.types import utcnow
from .plugins import call_action

# Who acts where no request does: the command line sets "cli" for its run; tasks, a worker and
# scripts' own transactions are the "system".
actor_outside_request = contextvars.ContextVar("storeplatform_audit_actor", default="system")
ANONYMOUS = "anonymous"

HIDDEN = "[hidden]"
SUBJECT_MAX = 191
TEXT_MAX = 300  # characters of one text value of the details
ITEMS_MAX = 40  # entries of one mapping or list of the details
DEPTH_MAX = 4
_NAME = re.compile(r"[a-z][a-z0-9_.:-]{0,63}")
# A key of the details, or the last part of an option's key, ending in one of these words (or
# pairs of words) names a secret: its value is never recorded (``password``, ``smtp_password``,
# ``consumer_secret``, ``api_key``; not ``app_passwords_revoked``, a count).
SECRET_WORDS = ("password", "passwd", "passphrase", "secret", "token", "apikey", "credential", "credentials")
SECRET_PAIRS = frozenset({"api_key", "private_key", "secret_key", "access_key", "signing_key"})
_WORDS = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
SECRET_OPTION_TYPES = ("secret", "password")


@dataclass(frozen=True)
class AuditEvent:
    """One administrative change as the kernel hands it to ``storeplatform_audit_event``.

    ``kind``: what part of the site (``users``, ``credentials``, ``settings``, ``webhooks``,
    ``plugin:<name>``...); ``action``: what was done (``created``, ``role_changed``...);
    ``subject``: what was changed, as text (a login, an option's key); ``details``: a small
    JSON-ready mapping, secrets hidden; ``actor_id``/``actor_login``: the user as they were
    (``actor_id`` None for ``cli``, ``system`` or ``anonymous``); ``address``: the client's
    (after ``storeplatform.trusted_proxies``), None outside a request; ``at``: UTC."""

    kind: str
    action: str
    subject: str
    details: dict
    actor_id: int | None
    actor_login: str
    address: str | None
    at: datetime


def audit(session_or_request, kind, action, subject="", details=None):
    """Report an administrative change made in the transaction of ``session_or_request`` (a
    session, or a request: its ``request.db``); returns the ``AuditEvent``. ``kind`` and
    ``action`` are short names (``[a-z][a-z0-9_.:-]*``, at most 64 characters); a plugin names
    the kind of its own changes ``plugin:<its name>`` (the events plugin's are ``webhooks``,
    a kind the host's own pages know). The values of
    detail keys that name a secret (password, secret, token...) are replaced by ``[hidden]``;
    long texts and collections are cut."""
    session, request = _session_and_request(session_or_request)
    for name, value in (("kind", kind), ("action", action)):
        if not isinstance(value, str) or not _NAME.fullmatch(value):
            raise ValueError(f"audit: {name} must match [a-z][a-z0-9_.:-]* (at most 64 characters), not {value!r}")
    details = {} if details is None else details if isinstance(details, dict) else {"value": details}
    actor_id, actor_login, address = _actor(request)
    event = AuditEvent(kind=kind, action=action, subject=_text(subject, SUBJECT_MAX), details=_clean(details, 0),
                       actor_id=actor_id, actor_login=actor_login, address=address, at=utcnow())
    call_action(hooks_of(session).storeplatform_audit_event, session=session, event=event)
    return event


def option_changed(session, spec, old, new):
    """The audit entry of a site option set to a different value (``set_option``): its key, the
    old and the new value, both ``[hidden]`` for a secret option."""
    if is_secret_option(spec):
        old = new = HIDDEN
    audit(session, "settings", "changed", spec.key, {"old": old, "new": new})


def is_secret_option(spec):
    """An option whose value is a secret: of a secret type, marked ``secret``, or named after a
    secret (``payments.api_key``, ``mail.password``)."""
    return (spec.type in SECRET_OPTION_TYPES or bool(getattr(spec, "secret", False))
            or is_secret_name(spec.key.rpartition(".")[2]))


def is_secret_name(name):
    """``smtp_password``, ``smtpPassword``, ``webhook.secret``, ``api_key``: yes; ``token_count``,
    ``app_passwords_revoked``: no (their last word is not a secret's)."""
    words = [word for word in _WORDS.split(_CAMEL.sub(r"\1_\2", str(name)).lower()) if word]
    return bool(words) and (words[-1].endswith(SECRET_WORDS) or "_".join(words[-2:]) in SECRET_PAIRS)


def _session_and_request(session_or_request):
    db = getattr(session_or_request, "db", None)
    if db is not None and hasattr(session_or_request, "registry"):  # a request
        return db, session_or_request
    return session_or_request, request_of(session_or_request)


def _actor(request):
    """(user id, login, address) of whoever makes the change."""
    if request is None:
        return None, actor_outside_request.get(), None
    identity = request.identity
    address = request.client_address
    if identity is None:
        return None, ANONYMOUS, address
    user = identity.user
    return getattr(user, "id", None), str(getattr(user, "login", None) or getattr(user, "id", "?")), address


def _text(value, limit):
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _clean(value, depth):
    """``value`` as small JSON: secrets hidden, texts and collections cut, other values as text."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return _text(value, TEXT_MAX)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if depth >= DEPTH_MAX:
        return _text(repr(value), TEXT_MAX)
    if isinstance(value, dict):
        items = list(value.items())
        cleaned = {str(k)[:64]: HIDDEN if is_secret_name(k) else _clean(v, depth + 1) for k, v in items[:ITEMS_MAX]}
        if len(items) > ITEMS_MAX:
            cleaned["…"] = f"{len(items) - ITEMS_MAX} more"
        return cleaned
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
        cleaned = [_clean(item, depth + 1) for item in items[:ITEMS_MAX]]
        if len(items) > ITEMS_MAX:
            cleaned.append(f"… {len(items) - ITEMS_MAX} more")
        return cleaned
    return _text(str(value), TEXT_MAX)
