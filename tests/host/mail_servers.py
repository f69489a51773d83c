"""SMTP servers on 127.0.0.1 for the mail tests: a real one (aiosmtpd) that keeps what it
receives, or answers a chosen code at RCPT or DATA; and raw sockets that close the connection at
once or never answer."""
import asyncio
import socket
import threading
from email import message_from_bytes
from email.policy import default

from aiosmtpd.controller import Controller

from storeplatform.testing import free_port


class Keeper:
    """aiosmtpd's handler: keeps each envelope (``received``), or refuses with ``rcpt_answer``
    / ``data_answer`` (an SMTP reply line such as ``451 4.3.0 try later``)."""

    def __init__(self):
        self.received = []
        self.rcpt_answer = None
        self.data_answer = None
        self.delay = 0.0  # seconds before the answer to DATA (kills land while messages are out)
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.rcpt_answer:
            return self.rcpt_answer
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.data_answer:
            return self.data_answer
        with self.lock:
            self.received.append(envelope)
        return "250 2.0.0 Ok: queued as 1234"

    def messages(self):
        with self.lock:
            return [message_from_bytes(e.original_content, policy=default) for e in self.received]


class SmtpServer:
    def __init__(self, **controller_options):
        self.keeper = Keeper()
        self.port = free_port()
        self.controller = Controller(self.keeper, hostname="127.0.0.1", port=self.port, **controller_options)

    def url(self, scheme="smtp+insecure"):
        return f"{scheme}://127.0.0.1:{self.port}"

    def __enter__(self):
        self.controller.start()
        return self

    def __exit__(self, *exc):
        self.controller.stop()


class RawServer:
    """Accepts connections and either closes them at once (``close``) or holds them without a
    word (``hang``) until the server stops."""

    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.held = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def url(self):
        return f"smtp+insecure://127.0.0.1:{self.port}"

    def _serve(self):
        self.sock.settimeout(0.1)
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            if self.behaviour == "close":
                conn.close()
            else:
                self.held.append(conn)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.thread.join(2)
        for conn in self.held:
            conn.close()
        self.sock.close()


def self_signed(folder):
    """(certificate path, key path) of a certificate for 127.0.0.1, signed by itself (the
    client trusts it through ``mail.cafile``)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "smtp-cert.pem", folder / "smtp-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def login_checker(login, password):
    from aiosmtpd.smtp import AuthResult

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = getattr(auth_data, "login", None) == login.encode() and auth_data.password == password.encode()
        return AuthResult(success=ok, handled=False)
    return authenticator
