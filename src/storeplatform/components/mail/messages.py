"""Building a message with the standard library's ``email`` package: a plain text part with an
optional HTML alternative (its inline images beside it), attachments; every address checked as
the site's ``email`` option kind checks one, every header refused when it holds a line break.
A bad value raises ``MailError`` (a ValueError) naming the field."""
import re
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid

from storeplatform.core.db.types import utcnow
from storeplatform.core.options import OptionError, OptionSpec, coerce

KIND = re.compile(r"[a-z][a-z0-9_.:-]{0,63}")
_NAMED = re.compile(r"^\s*(.*?)\s*<([^<>]*)>\s*$", re.S)
_TYPE = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$")
_CID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
SUBJECT_MAX = 998  # a header line's limit (RFC 5322)
RECIPIENTS_MAX = 100


class MailError(ValueError):
    """A message that cannot be recorded: a bad address, a header with a line break, a message
    over the owner's size limit. ``field``: the argument at fault (``to``, ``subject``...)."""

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Attachment:
    """A file attached to a message: its name, bytes and MIME type."""

    filename: str
    data: bytes
    content_type: str = "application/octet-stream"


@dataclass(frozen=True)
class InlineImage:
    """An image the HTML part shows with ``<img src="cid:<cid>">``."""

    cid: str
    data: bytes
    content_type: str = "image/png"


def no_line_break(field, value):
    """``value`` as text, refused when it holds CR, LF or another line break (header injection)."""
    text = value if isinstance(value, str) else str(value)
    if any(c in text for c in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00"):
        raise MailError(field, "must not contain a line break (CR/LF) or NUL")
    return text


def address(field, value):
    """An ``email.headerregistry.Address`` of ``"addr"``, ``"Name <addr>"`` or ``(name, addr)``;
    MailError naming ``field`` otherwise."""
    if isinstance(value, Address):
        name, addr = value.display_name, value.addr_spec
    elif isinstance(value, tuple) and len(value) == 2:
        name, addr = value
    elif isinstance(value, str):
        match = _NAMED.match(value)
        name, addr = (match.group(1), match.group(2)) if match else ("", value)
    else:
        raise MailError(field, f"must be an e-mail address, not {type(value).__name__}")
    name = no_line_break(field, name or "").strip().strip('"')
    addr = no_line_break(field, addr or "").strip()
    try:
        checked = coerce(OptionSpec(field, "email", "", "mail", field), addr)
    except OptionError:
        checked = ""
    if not checked:
        raise MailError(field, f"{addr[:80]!r} is not an e-mail address such as ann@example.com")
    local, _, domain = checked.rpartition("@")
    try:
        # An internationalized domain as the DNS and SMTP know it (IDNA): the envelope is ASCII.
        domain = domain.encode("idna").decode("ascii")
        return Address(display_name=name, username=local, domain=domain)
    except (ValueError, IndexError, UnicodeError) as exc:
        raise MailError(field, f"{addr[:80]!r} is not an e-mail address ({exc})") from None


def addresses(field, value):
    """A list of addresses (one address, or an iterable of them)."""
    if value is None:
        return []
    # ("Ann", "ann@example.com") is one address (a name has no @); ("a@x.com", "b@x.com") two.
    pair = isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and "@" not in value[0]
    items = [value] if isinstance(value, (str, Address)) or pair else list(value)
    if len(items) > RECIPIENTS_MAX:
        raise MailError(field, f"at most {RECIPIENTS_MAX} addresses")
    return [address(field, item) for item in items]


def _content_type(field, value):
    text = no_line_break(field, value).strip().lower()
    if not _TYPE.match(text):
        raise MailError(field, f"{text[:80]!r} is not a MIME type such as application/pdf")
    return text.split("/", 1)


def _data(field, value):
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise MailError(field, "must be bytes")
    return bytes(value)


def check_kind(kind):
    if not isinstance(kind, str) or not KIND.fullmatch(kind):
        raise MailError("kind", f"must match [a-z][a-z0-9_.:-]* (at most 64 characters), not {kind!r}")
    return kind


def build_message(*, sender, to, subject, text, html=None, cc=(), reply_to=None, attachments=(),
                  inline_images=(), headers=None):
    """An ``EmailMessage`` (policy SMTP: CRLF lines) with Date and a Message-ID of the sender's
    domain (never the machine's name, which asks the DNS)."""
    subject = no_line_break("subject", subject)
    if len(subject) > SUBJECT_MAX:
        raise MailError("subject", f"at most {SUBJECT_MAX} characters")
    if not isinstance(text, str):
        raise MailError("text", "must be text")
    if html is not None and not isinstance(html, str):
        raise MailError("html", "must be text or None")
    if inline_images and html is None:
        raise MailError("inline_images", "need an html part that shows them")
    msg = EmailMessage(policy=SMTP)
    msg["From"] = sender
    if to:
        msg["To"] = to
    if cc:
        msg["Cc"] = cc
    if reply_to:
        msg["Reply-To"] = reply_to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(utcnow())
    msg["Message-ID"] = make_msgid(domain=sender.domain)
    for name, value in (headers or {}).items():
        name = no_line_break("headers", name)
        if not re.fullmatch(r"X-[A-Za-z0-9-]{1,60}", name):
            raise MailError("headers", f"{name[:70]!r}: only X- headers may be added")
        msg[name] = no_line_break(f"headers[{name}]", value)
    msg.set_content(text)
    if html is not None:
        msg.add_alternative(html, subtype="html")
        html_part = msg.get_payload()[1]
        for image in inline_images:
            if not isinstance(image, InlineImage) or not _CID.match(image.cid):
                raise MailError("inline_images", "each must be an InlineImage with a cid of letters, digits, . _ -")
            maintype, subtype = _content_type("inline_images", image.content_type)
            if maintype != "image":
                raise MailError("inline_images", f"{image.cid}: {maintype}/{subtype} is not an image type")
            html_part.add_related(_data("inline_images", image.data), maintype, subtype, cid=f"<{image.cid}>",
                                  disposition="inline")
    for item in attachments:
        if not isinstance(item, Attachment):
            raise MailError("attachments", "each must be an Attachment(filename, data, content_type)")
        filename = no_line_break("attachments", item.filename).strip()
        if not filename or "/" in filename or "\\" in filename or len(filename) > 200:
            raise MailError("attachments", f"{filename[:80]!r} is not a file name (1 to 200 characters, no slash)")
        maintype, subtype = _content_type("attachments", item.content_type)
        msg.add_attachment(_data("attachments", item.data), maintype=maintype, subtype=subtype, filename=filename)
    return msg


def envelope(message, bcc=()):
    """(sender, recipients) of a built message: From, then To, Cc and ``bcc`` (addr-specs, each
    once, in order)."""
    sender = message["From"].addresses[0].addr_spec
    seen = []
    for header in ("To", "Cc"):
        for value in message.get_all(header) or ():
            for item in value.addresses:
                if item.addr_spec not in seen:
                    seen.append(item.addr_spec)
    for item in bcc:
        if item.addr_spec not in seen:
            seen.append(item.addr_spec)
    return sender, seen


def checked_headers(message):
    """Every header of ``message`` (a filter may have changed them) refused when it holds a
    line break that is not a fold (a line break followed by a space or a tab), or a NUL."""
    for name, value in message.raw_items():
        text = str(value) if hasattr(value, "name") else value
        if "\x00" in text or _UNFOLDED.search(text) or (hasattr(value, "name") and ("\r" in text or "\n" in text)):
            raise MailError(name.lower(), "must not contain a line break (CR/LF) or NUL")


_UNFOLDED = re.compile(r"(\r\n|\r|\n)(?![ \t])")
