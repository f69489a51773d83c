"""The ini keys of mail (``mail.*``), parsed once when the site starts (a bad value stops it)
and kept as ``settings["storeplatform.parsed"]["mail"]`` (a ``MailPolicy``).

``mail.url`` chooses the transport:

- empty (the default): no SMTP server; every message is kept as an ``.eml`` file in
  ``mail.directory`` (``var/mail`` beside the ini);
- ``smtp://[user[:password]@]host[:port]``: SMTP with STARTTLS required (port 587 by default);
- ``smtps://...``: SMTP over TLS from the first byte (port 465 by default);
- ``smtp+insecure://host[:port]``: SMTP without TLS (port 25 by default), for a relay on the
  same machine or network only.

The password may be in the URL (percent-encoded), or in ``mail.password``; the environment
overrides both (``STOREPLATFORM_MAIL_URL``, ``STOREPLATFORM_MAIL_PASSWORD``)."""
import math
import os
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from storeplatform.core.settings import SettingsSection

SCHEMES = {"smtp": ("starttls", 587), "smtps": ("tls", 465), "smtp+insecure": ("none", 25)}
DEFAULTS = {
    "mail.enabled": "true",
    "mail.url": "",
    "mail.username": "",
    "mail.password": "",
    "mail.cafile": "",
    "mail.directory": "%(here)s/var/mail",
    "mail.templates": "",
    "mail.timeout": "10",
    "mail.max_size": "10485760",
    "mail.retry_delays": "60 300 900 3600 14400",
    "mail.requeue_after": "300",
    "mail.log_size": "500",
}
ENVIRON = {"STOREPLATFORM_MAIL_URL": "mail.url", "STOREPLATFORM_MAIL_PASSWORD": "mail.password"}
MAX_SIZE_LIMIT = 100 * 1024 * 1024  # what a row of the outbox may hold at most, whatever the ini says


@dataclass(frozen=True)
class MailPolicy:
    """``transport``: ``files`` or ``smtp``; ``security``: ``starttls``, ``tls`` or ``none``;
    ``enabled``: False records no message at all (a staging copy of a live site, the test suite);
    ``timeout``: seconds of each network step (connect, each reply); ``max_size``: bytes of a
    whole message; ``retry_delays``: seconds before each retry after a temporary failure (their
    number is the number of retries); ``requeue_after``: seconds after which the sweep hands a
    waiting message to the queue again; ``log_size``: finished messages kept in the log."""

    transport: str
    host: str
    enabled: bool
    port: int
    security: str
    username: str
    password: str
    cafile: str
    directory: str
    templates: str
    timeout: float
    max_size: int
    retry_delays: tuple
    requeue_after: float
    log_size: int

    def describe(self):
        """Where mail goes, for the start-up summary and the admin (no password)."""
        if not self.enabled:
            return "off: no message is recorded or sent (mail.enabled = false)"
        if self.transport == "files":
            return f"kept as .eml files in {self.directory} (no SMTP server set: mail.url)"
        how = {"starttls": "STARTTLS", "tls": "TLS", "none": "no TLS"}[self.security]
        login = f", login {self.username}" if self.username else ""
        return f"sent through {self.host}:{self.port} ({how}{login})"


def _number(settings, key, kind, low, high=math.inf):
    text = str(settings.get(key, DEFAULTS[key])).strip()
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not (low <= value <= high) or (kind is float and not math.isfinite(value)):
        raise ValueError(f"{key} must be a number from {low} to {high}, not {text!r}")
    return value


def mail_policy(settings):
    url = str(settings.get("mail.url", "")).strip()
    username, password = str(settings.get("mail.username", "")).strip(), str(settings.get("mail.password", ""))
    host, port, security, transport = "", 0, "none", "files"
    if url:
        parts = urlsplit(url)
        if parts.scheme not in SCHEMES:
            raise ValueError("mail.url must start with smtp://, smtps:// or smtp+insecure://, "
                             f"not {url.split(':')[0]!r}")
        security, default_port = SCHEMES[parts.scheme]
        try:
            port = parts.port or default_port
        except ValueError:
            raise ValueError("mail.url has a port that is not a number from 1 to 65535") from None
        host = parts.hostname or ""
        if not host:
            raise ValueError("mail.url must name the SMTP server's host (smtp://host:587)")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError("mail.url takes no path, query or fragment: smtp://user:password@host:port")
        username = unquote(parts.username) if parts.username else username
        password = password or (unquote(parts.password) if parts.password else "")
        transport = "smtp"
    directory = str(settings.get("mail.directory", "")).strip()
    if transport == "files" and not directory:
        raise ValueError("mail.directory must name a folder when mail.url is empty")
    templates = str(settings.get("mail.templates", "")).strip()
    if templates and not os.path.isdir(templates):
        raise ValueError(f"mail.templates must be a folder, not {templates!r}")
    delays_text = str(settings.get("mail.retry_delays", "")).strip()
    try:
        # "none": no retry (an empty value is the default's).
        delays = () if delays_text.lower() == "none" else tuple(float(x) for x in delays_text.replace(",", " ").split())
    except ValueError:
        delays = (-1.0,)
    if any(not (0 <= d < math.inf) for d in delays) or len(delays) > 20:
        raise ValueError("mail.retry_delays must be at most 20 numbers of seconds, not negative (or none)")
    enabled_text = str(settings.get("mail.enabled", "true")).strip().lower()
    if enabled_text not in ("true", "false"):
        raise ValueError(f"mail.enabled must be true or false, not {enabled_text!r}")
    return MailPolicy(
        transport=transport, host=host, enabled=enabled_text == "true", port=port, security=security, username=username, password=password,
        cafile=str(settings.get("mail.cafile", "")).strip(), directory=directory, templates=templates,
        timeout=_number(settings, "mail.timeout", float, 0.01, 300),
        max_size=_number(settings, "mail.max_size", int, 1024, MAX_SIZE_LIMIT),
        retry_delays=delays,
        requeue_after=_number(settings, "mail.requeue_after", float, 0, 86400),
        log_size=_number(settings, "mail.log_size", int, 10, 100_000),
    )


SETTINGS = SettingsSection("mail", mail_policy, defaults=DEFAULTS, environ=ENVIRON)


def policy_of(registry):
    return registry.settings["storeplatform.parsed"]["mail"]
