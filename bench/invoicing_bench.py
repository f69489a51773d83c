"""Invoicing: PDF generation time of an order with 20 line items, and GET metadata (SQL
queries per request, throughput against a bare Pyramid JSON view served the same way).

The site runs on a fresh SQLite database (or PostgreSQL when STOREPLATFORM_DATABASE_URL names
one). Both apps are served by waitress on 127.0.0.1 in this process and hit over HTTP
keep-alive by the same client loop.

    .venv/bin/python bench/invoicing_bench.py [--pdfs 40] [--requests 1000] [--clients 4]
"""
import argparse
import statistics
import sys
import time
from decimal import Decimal


from harness import bare_json_app, bench_site, serve, throughput
from storeplatform.components.shop.models import Order, Product
from storeplatform.testing import count_queries

API = "/api/invoicing/v1"


def bare_metadata(request):
    return {"order_id": int(request.matchdict["id"]), "document_type": "invoice", "invoice_number": 1,
            "display_number": "INV-2026-00001", "generated_date": "2026-01-01T00:00:00+00:00",
            "file_size": 45000, "pdf_url": "http://x/?invoicing_download=1&key=k",
            "regenerate_url": "http://x/api/invoicing/v1/documents/1/regenerate"}


def make_order(site, items):
    with site.session() as s:
        products = [Product(name=f"Produit n°{i} — Ωμέγα / Дмитрий", regular_price=Decimal(f"{i}.95"), meta={})
                    for i in range(1, items + 1)]
        s.add_all(products)
        s.flush()
        ids = [p.id for p in products]
    res = site.app.post_json("/api/store/v1/orders", {
        "line_items": [{"product_id": pid, "quantity": 2} for pid in ids], "status": "completed",
        "billing": {"first_name": "Zoë", "last_name": "Łukasz", "city": "Kraków", "country": "PL"},
    }, headers=site.headers_for("administrator"), status=201)
    return res.json["id"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdfs", type=int, default=40)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    with bench_site("invoicing") as site:
        site.set_option("invoicing.rest_api_enabled", True)
        big = make_order(site, 20)
        small = make_order(site, 2)

        from storeplatform.core.db.types import utcnow
        from storeplatform_invoicing.models import Document
        from storeplatform_invoicing.pdf import render_pdf

        times = []
        with site.session() as s:
            order = s.get(Order, big)
            document = s.query(Document).filter_by(order_id=big).one()
            render_pdf(s, order, document, utcnow())  # fonts loaded once per process
            for _ in range(args.pdfs):
                start = time.perf_counter()
                data = render_pdf(s, order, document, utcnow())
                times.append(time.perf_counter() - start)
        times.sort()
        print(f"database: {site.engine.dialect.name}")
        print(f"PDF, 20 line items: median {statistics.median(times) * 1000:.1f} ms, "
              f"p90 {times[int(len(times) * 0.9) - 1] * 1000:.1f} ms, {len(data)} bytes ({args.pdfs} runs)")

        headers = site.headers_for("shop_manager")
        regen = []
        for _ in range(10):
            start = time.perf_counter()
            site.app.post(f"{API}/documents/{big}/regenerate", headers=headers)
            regen.append(time.perf_counter() - start)
        print(f"POST regenerate (render + store, through the app): median {statistics.median(regen) * 1000:.1f} ms")

        counts = {}
        for label, order_id in (("2 items", small), ("20 items", big)):
            site.app.get(f"{API}/documents/{order_id}", headers=headers)
            with count_queries(site.engine) as n:
                site.app.get(f"{API}/documents/{order_id}", headers=headers)
            counts[label] = n()
        print("GET metadata SQL queries per request: " + ", ".join(f"{k}: {v}" for k, v in counts.items()))

        plugin_server, plugin_url = serve(site.wsgi)
        bare_server, bare_url = serve(bare_json_app("/documents/{id}", bare_metadata))
        print(f"{'clients':>8} {'bare req/s':>12} {'metadata req/s':>15} {'ratio':>7}")
        for clients in (1, args.clients):
            bare = throughput(f"{bare_url}/documents/{big}", args.requests, clients, warmup=30)
            meta = throughput(f"{plugin_url}{API}/documents/{big}", args.requests, clients, headers=headers, warmup=30)
            print(f"{clients:>8} {bare:>12.0f} {meta:>15.0f} {meta / bare:>7.2f}")
        del plugin_server, bare_server
    return 0


if __name__ == "__main__":
    sys.exit(main())
