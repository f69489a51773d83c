"""Where a message goes: an SMTP server (``smtplib``: STARTTLS or TLS, login, a short time-out on
every step) or, with no server set, an ``.eml`` file in the site's ``var/mail``.

``send(sender, recipients, data, when_ready)`` calls ``when_ready()`` right before the message's
data is written (the SMTP server has accepted the sender and a recipient; the file is about to be
written): the outbox takes the row then. It returns an ``Answer`` or raises ``SendError``."""
import os
import smtplib
import socket
import ssl
import tempfile
from dataclasses import dataclass

from storeplatform.core.private_files import make_private_dirs

ANSWER_MAX = 500  # characters of a server's answer kept


@dataclass(frozen=True)
class Answer:
    code: int | None
    text: str


class SendError(Exception):
    """The message was not sent. ``temporary``: try again later (a 4xx answer, no answer, a
    closed connection, a time-out); otherwise it failed for good (a 5xx answer). ``taken``:
    whether ``when_ready`` had been called (the data may have been written)."""

    def __init__(self, temporary, code, text, taken=False):
        super().__init__(f"{code or '-'} {text}")
        self.temporary, self.code, self.text, self.taken = temporary, code, _cut(text), taken


def _cut(text):
    text = " ".join(str(text).split())
    return text if len(text) <= ANSWER_MAX else text[:ANSWER_MAX - 1] + "…"


def _reply(raw):
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)


class NotReady(Exception):
    """``when_ready`` refused: another worker has the message (nothing is written)."""


class SmtpTransport:
    def __init__(self, policy):
        self.policy = policy

    def _context(self):
        return ssl.create_default_context(cafile=self.policy.cafile or None)

    def _connect(self):
        p = self.policy
        if p.security == "tls":
            return smtplib.SMTP_SSL(p.host, p.port, timeout=p.timeout, context=self._context())
        return smtplib.SMTP(p.host, p.port, timeout=p.timeout)

    def send(self, sender, recipients, data, when_ready):
        p = self.policy
        taken = False
        smtp = None
        try:
            smtp = self._connect()
            smtp.ehlo()
            if p.security == "starttls":
                if not smtp.has_extn("starttls"):
                    raise SendError(False, None, "the server does not offer STARTTLS (mail.url smtp:// requires it)")
                smtp.starttls(context=self._context())
                smtp.ehlo()
            if p.username:
                smtp.login(p.username, p.password)
            code, reply = smtp.mail(sender)
            if code != 250:
                raise SendError(400 <= code < 500, code, f"sender refused: {_reply(reply)}")
            refused = {}
            for recipient in recipients:
                code, reply = smtp.rcpt(recipient)
                if code not in (250, 251):
                    refused[recipient] = (code, _reply(reply))
            if len(refused) == len(recipients):
                temporary = any(400 <= code < 500 for code, _ in refused.values())
                first = next(iter(refused.values()))[0]
                raise SendError(temporary, first, "recipients refused: " + "; ".join(
                    f"{r}: {code} {reply}" for r, (code, reply) in refused.items()))
            when_ready()
            taken = True
            code, reply = smtp.data(data)
            if code != 250:
                raise SendError(400 <= code < 500, code, _reply(reply), taken=True)
            text = _reply(reply)
            if refused:
                text += " (refused: " + "; ".join(f"{r}: {c} {t}" for r, (c, t) in refused.items()) + ")"
            try:
                smtp.quit()
            except (smtplib.SMTPException, OSError):
                pass  # the message was accepted: a failed goodbye changes nothing
            smtp = None
            return Answer(code, _cut(text))
        except SendError as exc:
            exc.taken = exc.taken or taken
            raise
        except NotReady:
            raise
        except smtplib.SMTPResponseException as exc:  # an answer with a code (helo, auth, starttls...)
            code = exc.smtp_code
            raise SendError(400 <= code < 500 or code < 200, code, _reply(exc.smtp_error), taken) from None
        except smtplib.SMTPServerDisconnected as exc:
            if isinstance(exc.__context__, (socket.timeout, TimeoutError)):  # smtplib's reading timed out
                raise SendError(True, None, f"no answer within {p.timeout:g} s (mail.timeout)", taken) from None
            raise SendError(True, None, f"the server closed the connection ({exc or 'no answer'})", taken) from None
        except (socket.timeout, TimeoutError):
            raise SendError(True, None, f"no answer within {p.timeout:g} s (mail.timeout)", taken) from None
        except ssl.SSLError as exc:
            raise SendError(True, None, f"TLS failed: {exc}", taken) from None
        except smtplib.SMTPNotSupportedError as exc:
            raise SendError(False, None, f"not supported by the server: {exc}", taken) from None
        except smtplib.SMTPException as exc:
            raise SendError(True, None, f"SMTP error: {exc}", taken) from None
        except OSError as exc:
            raise SendError(True, None, f"cannot reach {p.host}:{p.port}: {exc.strerror or exc}", taken) from None
        except Exception as exc:  # a bug or a value smtplib cannot write: failed, never retried in a loop
            raise SendError(False, None, f"not sent: {exc.__class__.__name__}: {exc}", taken) from None
        finally:
            if smtp is not None:
                try:
                    smtp.close()
                except OSError:
                    pass


class FileTransport:
    """The embedded default: each message is written whole (the exact bytes an SMTP server would
    get) to ``<directory>/<id>-<Message-ID's first part>.eml``, readable by the owner only."""

    def __init__(self, policy):
        self.directory = policy.directory

    def send(self, sender, recipients, data, when_ready, name="message"):
        try:
            make_private_dirs(self.directory)  # var/ too when it is new: owner-only, as the files
        except OSError as exc:
            raise SendError(True, None, f"cannot make {self.directory}: {exc.strerror or exc}") from None
        when_ready()
        path = os.path.join(self.directory, f"{name}.eml")
        try:
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)  # whole or not at all
        except OSError as exc:
            raise SendError(True, None, f"cannot write {path}: {exc.strerror or exc}", taken=True) from None
        return Answer(None, f"written to {path}")


def transport_of(policy):
    return SmtpTransport(policy) if policy.transport == "smtp" else FileTransport(policy)
