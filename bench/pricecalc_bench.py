"""Throughput of POST {rest_root}/pricecalc/v1/calculate against a bare Pyramid JSON view.

Both apps are served the same way in the same run: waitress on 127.0.0.1 (own thread each),
hit over HTTP keep-alive by the same client loop, sequentially and with concurrent clients.
The site runs on a fresh SQLite database (or on PostgreSQL when STOREPLATFORM_DATABASE_URL
names one), with an area calculator with tiers, overage and a surcharge.

    .venv/bin/python bench/pricecalc_bench.py [--requests 2000] [--clients 4]
"""
import argparse
import json
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path

import requests
from pyramid.config import Configurator
from waitress.server import create_server

from storeplatform.store.models import Product
from storeplatform.testing import Site, TestDatabase, count_queries

CALCULATOR = {
    "calculator_type": "area",
    "settings": {"pricing_unit": "sq ft", "overage": "10", "minimum_price": "25"},
    "pricing_rules": [{"range_start": "0", "range_end": "100", "price": "5.99"},
                      {"range_start": "100", "range_end": "500", "price": "5.49", "sale_price": "4.99"},
                      {"range_start": "500", "range_end": None, "price": "4.79"}],
    "conditions": [{"field": "width", "operator": ">", "threshold": "10", "type": "percentage", "value": "15",
                    "label": "Wide cut"}],
}


def bare_app():
    def view(request):
        body = request.json_body
        return {"success": True, "product_id": body["product_id"], "total_price": 658.68}

    config = Configurator()
    config.add_route("calc", "/calculate")
    config.add_view(view, route_name="calc", renderer="json", request_method="POST")
    return config.make_wsgi_app()


def serve(app):
    server = create_server(app, host="127.0.0.1", port=0, threads=8, expose_tracebacks=False)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.effective_port}"


def run(url, payload, total, clients):
    data = json.dumps(payload)
    headers = {"Content-Type": "application/json"}
    per_client = total // clients

    def client(_):
        with requests.Session() as http:
            for _ in range(per_client):
                res = http.post(url, data=data, headers=headers)
                if res.status_code != 200:
                    raise SystemExit(f"{url}: {res.status_code} {res.text[:200]}")

    with requests.Session() as http:  # warm-up: connections, caches, first-request work
        for _ in range(50):
            http.post(url, data=data, headers=headers)
    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    elapsed = time.perf_counter() - start
    return per_client * clients / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="pricecalc-bench-"))
    database = TestDatabase(tmp)
    database.migrate("pricecalc")
    site = Site(database.settings(**{"storeplatform.plugins": "pricecalc"}))
    try:
        with site.session() as s:
            product = Product(name="Bench flooring", regular_price=Decimal("5.99"), meta={})
            s.add(product)
            s.flush()
            product_id = product.id
        site.app.post_json(f"/api/pricecalc/v1/products/{product_id}/calculator", CALCULATOR,
                           headers=site.headers_for("shop_manager"))
        payload = {"product_id": product_id, "measurements": {"length": 12, "width": 11}}
        result = site.app.post_json("/api/pricecalc/v1/calculate", payload).json
        with count_queries(site.engine) as n:
            site.app.post_json("/api/pricecalc/v1/calculate", payload)
        queries = n()

        plugin_server, plugin_url = serve(site.wsgi)
        bare_server, bare_url = serve(bare_app())
        print(f"database: {site.engine.dialect.name}; POST /calculate -> total_price {result['total_price']}, "
              f"{queries} SQL queries per request")
        print(f"{'clients':>8} {'bare req/s':>12} {'calculate req/s':>16} {'ratio':>7}")
        for clients in (1, args.clients):
            bare = run(bare_url + "/calculate", payload, args.requests, clients)
            calc = run(plugin_url + "/api/pricecalc/v1/calculate", payload, args.requests, clients)
            print(f"{clients:>8} {bare:>12.0f} {calc:>16.0f} {calc / bare:>7.2f}")
        # The servers' daemon threads end with the process; closing them while a handler
        # thread still answers makes waitress print a harmless but noisy traceback.
        del plugin_server, bare_server
    finally:
        site.close()
        database.drop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
