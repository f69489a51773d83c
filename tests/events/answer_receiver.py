"""A receiver on 127.0.0.1 whose answers the test chooses: a status, headers and a body (sent
with a Content-Length, chunked, or compressed), to see what the delivery log keeps of a
response. It records what it was sent, as ``webhook_receiver.Receiver`` does."""
import gzip
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .webhook_receiver import Received


class AnswerReceiver:
    def __init__(self):
        """``answer``: (status, body, how): how is length (Content-Length), chunked, gzip, or
        stall (the body as one chunk, then 5 seconds of nothing before its end)."""
        self.requests = []
        self.answer = (200, b"ok", "length")  # (status, body, how: length | chunked | gzip)
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with receiver._lock:
                    receiver.requests.append(Received(self.command, self.path, dict(self.headers.items()), body,
                                                      self.client_address))
                    status, answer, how = receiver.answer
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "text/plain; charset=utf-8")
                    self.send_header("Connection", "close")
                    self.close_connection = True
                    if how == "gzip":
                        answer = gzip.compress(answer)
                        self.send_header("Content-Encoding", "gzip")
                    if how == "stall":  # the first chunk, then nothing for a while
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(answer), answer))
                        self.wfile.flush()
                        time.sleep(5)
                        self.wfile.write(b"0\r\n\r\n")
                    elif how == "chunked":
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        for start in range(0, len(answer), 1000):
                            piece = answer[start:start + 1000]
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        self.wfile.write(b"0\r\n\r\n")
                    else:
                        self.send_header("Content-Length", str(len(answer)))
                        self.end_headers()
                        self.wfile.write(answer)
                except OSError:
                    pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def url(self, path="/hook"):
        return f"http://127.0.0.1:{self.port}{path}"

    def posts(self):
        with self._lock:
            return list(self.requests)

    def close(self):
        self.server.shutdown()
        self.server.server_close()
