"""A real HTTP receiver for webhook tests: a ThreadingHTTPServer on a loopback address that
records each request's raw body and headers and answers as its path asks.

Paths: ``/status/<code>`` answers that code; ``/redirect/<n>`` redirects (307, the POST is
kept) n times before a 200; ``/slow/<seconds>`` waits before answering;
``/slowhop/<n>/<seconds>`` waits before each of n redirects; ``/to?url=<url>`` redirects to
another URL; anything else answers ``default_status``.
"""
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Received:
    method: str
    path: str
    headers: dict
    body: bytes
    client: tuple = ()  # (address, port): one per connection


class Receiver:
    """``keep_alive``: answer over persistent connections (else one request per connection);
    ``cookie``: a Set-Cookie header for every answer."""

    def __init__(self, host="127.0.0.1", keep_alive=False, cookie=None):
        self.requests = []
        self.default_status = 200
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self._handle()

            def do_POST(self):
                self._handle()

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with receiver._lock:
                    receiver.requests.append(Received(self.command, self.path, dict(self.headers.items()), body,
                                                      self.client_address))
                parts = urlsplit(self.path)
                segments = parts.path.strip("/").split("/")
                status, location = receiver.default_status, None
                if segments[0] == "status":
                    status = int(segments[1])
                elif segments[0] == "redirect":
                    left = int(segments[1])
                    if left > 0:
                        status, location = 307, f"/redirect/{left - 1}"
                elif segments[0] == "slow":
                    time.sleep(float(segments[1]))
                elif segments[0] == "slowhop":  # /slowhop/<n>/<seconds>: wait, then redirect
                    time.sleep(float(segments[2]))
                    left = int(segments[1])
                    if left > 0:
                        status, location = 307, f"/slowhop/{left - 1}/{segments[2]}"
                elif segments[0] == "to":
                    status, location = 307, parse_qs(parts.query)["url"][0]
                try:
                    self.send_response(status)
                    if location:
                        self.send_header("Location", location)
                    self.send_header("Content-Length", "2")
                    if cookie:
                        self.send_header("Set-Cookie", cookie)
                    if not keep_alive:
                        # One request per connection: the sender opens a new one each time.
                        self.send_header("Connection", "close")
                        self.close_connection = True
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:
                    pass  # the sender gave up (time-out)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass  # a sender that gave up (time-out) is part of the tests

        self.server = Server((host, 0), Handler)
        self.host = host
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def url(self, path="/hook"):
        return f"http://{self.host}:{self.port}{path}"

    def posts(self, prefix="/"):
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path.startswith(prefix)]

    def clear(self):
        with self._lock:
            self.requests.clear()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
