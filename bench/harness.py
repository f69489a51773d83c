"""What the HTTP benchmarks share: a bare Pyramid JSON view to compare against, serving an
app with waitress on 127.0.0.1, and a client loop measuring requests per second.

Both apps of a comparison are served the same way in the same run, so the ratio says what the
platform costs on top of Pyramid itself.
"""
import contextlib
import json
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
from pyramid.config import Configurator
from waitress.server import create_server

from storeplatform.testing import Site, TestDatabase


@contextlib.contextmanager
def bench_site(plugins, **settings):
    """A Site with ``plugins`` on a fresh database (SQLite, or PostgreSQL when
    STOREPLATFORM_DATABASE_URL names a server), dropped afterwards."""
    database = TestDatabase(Path(tempfile.mkdtemp(prefix="storeplatform-bench-")))
    database.migrate(plugins)
    site = Site(database.settings(**{"storeplatform.plugins": plugins, **settings}))
    try:
        yield site
    finally:
        site.close()
        database.drop()


def bare_json_app(pattern, answer, method="GET"):
    """A Pyramid app with one JSON view at ``pattern`` returning ``answer(request)``."""
    config = Configurator()
    config.add_route("bare", pattern)
    config.add_view(answer, route_name="bare", renderer="json", request_method=method)
    return config.make_wsgi_app()


def serve(app):
    """Serve ``app`` with waitress in a daemon thread; returns (server, base URL)."""
    server = create_server(app, host="127.0.0.1", port=0, threads=8, expose_tracebacks=False)
    threading.Thread(target=server.run, daemon=True).start()
    return server, f"http://127.0.0.1:{server.effective_port}"


def throughput(url, total, clients, method="GET", payload=None, headers=None, warmup=50):
    """Requests per second of ``total`` requests from ``clients`` keep-alive clients; any
    answer but 200 stops the benchmark."""
    data = json.dumps(payload) if payload is not None else None
    headers = dict(headers or {})
    if data is not None:
        headers.setdefault("Content-Type", "application/json")
    per_client = total // clients

    def call(http):
        res = http.request(method, url, data=data, headers=headers)
        if res.status_code != 200:
            raise SystemExit(f"{method} {url}: {res.status_code} {res.text[:200]}")

    def client(_):
        with requests.Session() as http:
            for _ in range(per_client):
                call(http)

    with requests.Session() as http:  # warm-up: connections, caches, first-request work
        for _ in range(warmup):
            call(http)
    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    return per_client * clients / (time.perf_counter() - start)
