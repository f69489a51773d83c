#!/usr/bin/env python3
"""A webhook receiver for storeplatform's events plugin that verifies each delivery's signature.

Standard library only (Python 3.8+). Run it where the site can reach it, with the webhook's
secret (shown when the webhook is created: ``POST {rest_root}/events/v1/webhooks``, or in the
admin's Webhooks page):

    WEBHOOK_SECRET='the webhook secret' python3 webhook_receiver.py --port 8000

and give the site ``http://<this host>:8000/`` as the webhook's URL. Each delivery whose
signature is right is answered 204 and printed as one JSON line on stdout; any other request is
answered 401 (wrong or missing signature) or 400 (not JSON) and said on stderr.

The signature: ``X-EVT-Signature`` is the lower-case hex HMAC-SHA256 of the raw request body
(the exact bytes, before any JSON parsing), keyed with the webhook's secret (UTF-8), without a
prefix. Compare it in constant time. The ``X-EVT-Timestamp``, ``X-EVT-Delivery``,
``X-EVT-Topic`` and ``X-EVT-Webhook-ID`` headers are not signed: trust the same values inside
the signed body (``timestamp``, ``topic``, ``webhook_id``) instead.
"""
import argparse
import hashlib
import hmac
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A delivery is a small JSON envelope; refuse anything much larger before reading it.
MAX_BODY = 1024 * 1024


def expected_signature(secret, body):
    """What the site sends in X-EVT-Signature for ``body`` (bytes)."""
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def signature_is_valid(secret, body, header):
    """True when ``header`` is the signature of ``body``; constant time, so that the time a
    refusal takes tells an attacker nothing about how much of a forged signature was right."""
    if not header:
        return False
    return hmac.compare_digest(expected_signature(secret, body), header.strip().lower())


def make_handler(secret, out=sys.stdout, err=sys.stderr):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if length < 0 or length > MAX_BODY:
                return self.answer(400, "bad or too large Content-Length")
            body = self.rfile.read(length)  # the raw bytes: the signature covers exactly these
            if not signature_is_valid(secret, body, self.headers.get("X-EVT-Signature")):
                return self.answer(401, "refused: the X-EVT-Signature does not match the body")
            try:
                envelope = json.loads(body)
            except ValueError:
                return self.answer(400, "refused: the body is not JSON")
            # From here on the envelope is the site's: its topic, webhook id and timestamp are signed.
            print(json.dumps({"delivery": self.headers.get("X-EVT-Delivery"), "topic": envelope.get("topic"),
                              "webhook_id": envelope.get("webhook_id"), "timestamp": envelope.get("timestamp"),
                              "data": envelope.get("data")}, ensure_ascii=False), file=out, flush=True)
            self.answer(204)

        def answer(self, status, message=None):
            if message:
                print(f"{self.client_address[0]} {message}", file=err, flush=True)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):  # one line per delivery is printed above; no access log
            pass

    return Handler


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (0: any free port)")
    parser.add_argument("--secret", default=os.environ.get("WEBHOOK_SECRET"),
                        help="the webhook's secret (default: the WEBHOOK_SECRET environment variable)")
    args = parser.parse_args(argv)
    if not args.secret:
        parser.error("give the webhook's secret with --secret or WEBHOOK_SECRET")
    server = ThreadingHTTPServer((args.host, args.port), make_handler(args.secret))
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}/", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
