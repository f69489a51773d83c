"""Throughput of POST {rest_root}/pricecalc/v1/calculate against a bare Pyramid JSON view.

Both apps are served the same way in the same run: waitress on 127.0.0.1 (own thread each),
hit over HTTP keep-alive by the same client loop, sequentially and with concurrent clients.
The site runs on a fresh SQLite database (or on PostgreSQL when STOREPLATFORM_DATABASE_URL
names one), with an area calculator with tiers, overage and a surcharge.

    .venv/bin/python bench/pricecalc_bench.py [--requests 2000] [--clients 4]
"""
import argparse
import sys
from decimal import Decimal


from harness import bare_json_app, bench_site, serve, throughput
from storeplatform.components.shop.models import Product
from storeplatform.testing import count_queries

CALCULATOR = {
    "calculator_type": "area",
    "settings": {"pricing_unit": "sq ft", "overage": "10", "minimum_price": "25"},
    "pricing_rules": [{"range_start": "0", "range_end": "100", "price": "5.99"},
                      {"range_start": "100", "range_end": "500", "price": "5.49", "sale_price": "4.99"},
                      {"range_start": "500", "range_end": None, "price": "4.79"}],
    "conditions": [{"field": "width", "operator": ">", "threshold": "10", "type": "percentage", "value": "15",
                    "label": "Wide cut"}],
}


def bare_calculate(request):
    body = request.json_body
    return {"success": True, "product_id": body["product_id"], "total_price": 658.68}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    with bench_site("pricecalc") as site:
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
        bare_server, bare_url = serve(bare_json_app("/calculate", bare_calculate, method="POST"))
        print(f"database: {site.engine.dialect.name}; POST /calculate -> total_price {result['total_price']}, "
              f"{queries} SQL queries per request")
        print(f"{'clients':>8} {'bare req/s':>12} {'calculate req/s':>16} {'ratio':>7}")
        for clients in (1, args.clients):
            bare = throughput(bare_url + "/calculate", args.requests, clients, "POST", payload)
            calc = throughput(plugin_url + "/api/pricecalc/v1/calculate", args.requests, clients, "POST", payload)
            print(f"{clients:>8} {bare:>12.0f} {calc:>16.0f} {calc / bare:>7.2f}")
        # The servers' daemon threads end with the process; closing them while a handler
        # thread still answers makes waitress print a harmless but noisy traceback.
        del plugin_server, bare_server
    return 0


if __name__ == "__main__":
    sys.exit(main())
