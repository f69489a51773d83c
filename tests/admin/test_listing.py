"""The admin's list machinery (storeplatform.components.admin.listing, through the plugin API only, as a
plugin's list page uses it): the query read at the boundary (bad input is a 400 page, never a
500), the pager (links that keep the filters, a page past the last shown as the last, the same
statements whatever the number of rows), and the CSV export (exact bytes, formulas defused,
times in the site time zone, constant memory over 200,000 rows on the served app)."""
import gc
import sys
import threading
import time
import urllib.request
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import insert, select

from storeplatform.api import (AdminPage, Product, admin_view, count_rows, csv_response, export_filename, hookimpl,
                               list_query, page_of, site_timezone)
from storeplatform.api.advanced import csv_cell, text_contains
from storeplatform.testing import count_queries, reset_peak_memory, resident_memory, served_over_http

from .helpers import assert_page, login

THINGS = AdminPage("things", "Things", "/things", "manage_shop", order=15)
STATUSES = ("publish", "draft")


def _stmt(query, *columns):
    conditions = []
    if query.search:
        conditions.append(text_contains(Product.name, query.search))
    if query.status:
        conditions.append(Product.status == query.status)
    return select(*columns).where(*conditions).order_by(Product.id.desc())


@admin_view(THINGS, template="admin_test/listing_things.jinja2")
def list_things(request):
    query = list_query(request, statuses=STATUSES, per_page=20)
    p = page_of(request, query, _stmt(query, Product.id, Product.name, Product.regular_price),
                keys=_stmt(query, Product.id))
    return {"title": "Things", "p": p, "query": query}


@admin_view(THINGS, path="/export.csv")
def export_things(request):
    query = list_query(request, statuses=STATUSES)
    return csv_response(request, export_filename("things", site_timezone(request.db)),
                        ["id", "name", "price", "created"],
                        _stmt(query, Product.id, Product.name, Product.regular_price, Product.created_at),
                        money=("price",))


class ThingsPlugin:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_admin_templates(str(Path(__file__).resolve().parent / "templates"))
        config.add_admin_views(sys.modules[__name__])


def things_site(make_site, **settings):
    site = make_site(plugins=[ThingsPlugin()], **settings)
    login(site, "boss", role="administrator")
    return site


def add_products(site, n, start=0, **fields):
    with site.session() as s:
        s.execute(insert(Product), [
            {"name": f"Thing {start + i:06d}", "sku": f"T{start + i}", "type": "simple", "status": "publish",
             "regular_price": Decimal("9.5"), "meta": {}, **fields} for i in range(n)])


@pytest.mark.parametrize("query, problem", [
    ("page=0", "page must be a whole number"),
    ("page=abc", "page must be a whole number"),
    ("page=-1", "page must be a whole number"),
    ("page=99999999999999999999999999", "page must be a whole number"),
    ("page=%EF%BC%91", "page must be a whole number"),  # a full-width digit one
    ("per_page=5000", "per_page must be a whole number"),
    ("status=nope", "status must be one of publish, draft"),
    ("from=2026-13-01", "from must be a date"),
    ("to=yesterday", "to must be a date"),
    ("from=2026-02-01&to=2026-01-01", "from must not be after to"),
    ("search=%FF", "not valid UTF-8"),
    ("search=a%00b", "NUL characters"),
])
def test_bad_queries_are_a_400_page(make_site, query, problem):
    site = things_site(make_site)
    assert_page(site.app.get("/admin/things?" + query, status=400), 400, problem)


def test_a_bad_query_names_every_problem(make_site):
    site = things_site(make_site)
    res = assert_page(site.app.get("/admin/things?page=x&status=y&from=z", status=400), 400)
    assert "page must" in res.text and "status must" in res.text and "from must" in res.text


def test_pages_keep_the_filters_and_a_page_past_the_last_is_the_last(make_site):
    site = things_site(make_site)
    add_products(site, 45)
    add_products(site, 3, start=100, status="draft")
    first = assert_page(site.app.get("/admin/things"), 200, "1–20 of 48 things.")
    assert len(first.html.select("#things tr")) == 20
    assert first.html.select_one("#things tr")["data-id"]  # newest first
    assert "Page 1 of 3" in first.text and not first.html.select("a[rel=prev]")
    last = assert_page(site.app.get("/admin/things?page=3"), 200, "41–48 of 48 things.")
    assert len(last.html.select("#things tr")) == 8 and not last.html.select("a[rel=next]")
    assert site.app.get("/admin/things?page=999").html.select_one(".list-total").text == "41–48 of 48 things."
    found = assert_page(site.app.get("/admin/things?search=thing%2000&status=publish"), 200, "1–20 of 45 things found.")
    following = found.html.select_one("a[rel=next]")["href"]
    assert "search=thing+00" in following and "status=publish" in following and "page=2" in following
    second = site.app.get(following)
    assert second.html.select_one(".list-total").text == "21–40 of 45 things found."
    assert "page=1" not in second.html.select_one("a[rel=prev]")["href"]
    drafts = site.app.get("/admin/things?status=draft")
    assert [td.text for td in drafts.html.select("#things tr td:first-child")] == [
        "Thing 000102", "Thing 000101", "Thing 000100"]
    assert site.app.get("/admin/things?search=100%25").html.select_one(".list-total").text == "0 things found."
    assert site.app.get("/admin/things?search=_").html.select_one(".list-total").text == "0 things found."


def test_a_page_costs_the_same_statements_with_3_or_30_rows(make_site):
    site = things_site(make_site)
    add_products(site, 3)
    site.app.get("/admin/things")
    with count_queries(site.engine) as few:
        site.app.get("/admin/things")
    add_products(site, 27, start=3)
    with count_queries(site.engine) as many:
        site.app.get("/admin/things?page=2")
    assert few() == many()


def test_csv_cells():
    paris = site_tz = __import__("zoneinfo").ZoneInfo("Europe/Paris")
    assert csv_cell(Decimal("12.5000"), paris) == "12.5000"
    assert csv_cell(Decimal("-3.0000"), paris) == "-3.0000"
    assert csv_cell(-3, site_tz) == "-3"
    assert csv_cell(datetime(2026, 7, 1, 22, 30, tzinfo=timezone.utc), paris) == "2026-07-02 00:30:00"
    assert csv_cell(None, paris) == "" and csv_cell(True, paris) == "yes"
    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert csv_cell(text, paris) == "'" + text
    assert csv_cell("a=b", paris) == "a=b"


def test_the_export_is_exact_csv_of_the_filtered_rows(make_site):
    site = things_site(make_site)
    site.set_option("site.timezone", "Europe/Paris")
    created = datetime(2026, 7, 1, 22, 30, tzinfo=timezone.utc)
    with site.session() as s:
        s.execute(insert(Product), [
            {"id": 1, "name": "Plain", "status": "publish", "regular_price": Decimal("12.5"), "meta": {},
             "created_at": created, "modified_at": created},
            {"id": 2, "name": '=HYPERLINK("http://x.example")', "status": "publish", "regular_price": None,
             "meta": {}, "created_at": created, "modified_at": created},
            {"id": 3, "name": "Comma, \"quoted\"\nand a line", "status": "draft", "regular_price": Decimal("0.0001"),
             "meta": {}, "created_at": created, "modified_at": created}])
    res = site.app.get("/admin/things/export.csv?status=publish")
    assert res.status_int == 200
    assert res.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert res.headers["Content-Disposition"].startswith('attachment; filename="things-20')
    # A UTF-8 byte order mark first (Excel), money with the store's two decimals.
    assert res.body == (b"\xef\xbb\xbfid,name,price,created\r\n"
                        b"2,\"'=HYPERLINK(\"\"http://x.example\"\")\",,2026-07-02 00:30:00\r\n"
                        b"1,Plain,12.50,2026-07-02 00:30:00\r\n")
    every = site.app.get("/admin/things/export.csv").body.decode("utf-8-sig")
    assert every.startswith('id,name,price,created\r\n3,"Comma, ""quoted""\nand a line",0.00,2026-07-02 00:30:00\r\n')
    assert_page(site.app.get("/admin/things/export.csv?status=gone", status=400), 400, "status must")


def test_the_export_starts_with_a_utf8_bom_and_writes_money_with_the_store_s_decimals(make_site):
    """Excel on Windows reads a CSV without a byte order mark in the system's code page: the BOM
    keeps "Zoë Łukasz" whole. Money is a plain decimal with the store's decimals, half-up."""
    site = things_site(make_site)
    created = datetime(2026, 7, 1, 10, 0, tzinfo=timezone.utc)
    with site.session() as s:
        s.execute(insert(Product), [
            {"id": 1, "name": "Zoë Łukasz", "status": "publish", "regular_price": Decimal("61.6500"), "meta": {},
             "created_at": created, "modified_at": created},
            {"id": 2, "name": "Ωμέγα, Дмитрий", "status": "publish", "regular_price": Decimal("-3.0050"),
             "meta": {}, "created_at": created, "modified_at": created}])
    body = site.app.get("/admin/things/export.csv").body
    assert body[:3] == b"\xef\xbb\xbf" and body.count(b"\xef\xbb\xbf") == 1
    assert body.decode("utf-8-sig") == (
        "id,name,price,created\r\n"
        '2,"Ωμέγα, Дмитрий",-3.01,2026-07-01 10:00:00\r\n'
        "1,Zoë Łukasz,61.65,2026-07-01 10:00:00\r\n")
    site.set_option("store.decimals", 0)
    assert site.app.get("/admin/things/export.csv").body.decode("utf-8-sig").splitlines()[1:] == [
        '2,"Ωμέγα, Дмитрий",-3,2026-07-01 10:00:00', "1,Zoë Łukasz,62,2026-07-01 10:00:00"]
    site.set_option("store.decimals", 3)
    assert site.app.get("/admin/things/export.csv").body.decode("utf-8-sig").splitlines()[2] == (
        "1,Zoë Łukasz,61.650,2026-07-01 10:00:00")


def test_the_page_links_the_export_of_its_rows(make_site):
    site = things_site(make_site)
    page = site.app.get("/admin/things?search=x&status=draft&page=1")
    link = page.html.select_one("a[download]")["href"]
    assert link.endswith("/admin/things/export.csv?search=x&status=draft")


def _insert_many(site, n):
    """``n`` products made by the database itself (one statement), not by Python."""
    postgresql = site.engine.dialect.name == "postgresql"
    numbers = ("SELECT g AS i FROM generate_series(1, :n) g" if postgresql else
               "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < :n) SELECT i FROM s")
    price = "CAST(i AS NUMERIC(18, 4)) / 100" if postgresql else "i * 100"
    now = "now()" if postgresql else "'2026-01-01 10:00:00'"
    with site.engine.begin() as conn:
        conn.exec_driver_sql("SELECT 1")
        conn.execute(__import__("sqlalchemy").text(
            f"INSERT INTO products (name, sku, type, status, regular_price, meta, created_at, modified_at) "
            f"SELECT 'Generated thing number ' || i, 'G' || i, 'simple', 'publish', {price}, '{{}}', {now}, {now} "
            f"FROM ({numbers}) AS numbers"), {"n": n})


def test_a_large_export_streams_in_constant_memory(make_site):
    """60,000 rows (some 3.6 MB of CSV, 60 MB as Python rows) through the served app, read by
    a client that throws them away: the process's peak resident memory (server thread
    included) grows by a few MB at most. (The peak is reset through /proc/self/clear_refs;
    tracemalloc would measure the same, four times slower.)"""
    site = things_site(make_site)
    rows = 60_000  # enough to tell a stream (a few MB) from rows held whole (60 MB); the scale bench streams 1,000,000
    _insert_many(site, rows)
    cookie = "; ".join(f"{c.name}={c.value}" for c in site.app.cookiejar)
    with served_over_http(site.wsgi, threads="2", ident="storeplatform-test") as base_url:
        request = urllib.request.Request(base_url + "/admin/things/export.csv", headers={"Cookie": cookie})
        urllib.request.urlopen(base_url + "/admin/login").read()  # the server's thread, warm
        gc.collect()
        reset_peak_memory()
        before, _ = resident_memory()
        lines = size = 0
        with urllib.request.urlopen(request, timeout=600) as answer:
            assert answer.headers["Content-Type"] == "text/csv; charset=utf-8"
            while chunk := answer.read(65536):
                size += len(chunk)
                lines += chunk.count(b"\n")
        _, peak = resident_memory()
    assert lines == rows + 1
    assert size > 2_400_000
    assert peak - before < 20_000_000, f"the export grew the process by {peak - before} bytes for {size} of CSV"


def test_a_client_that_leaves_gives_the_connection_back(make_site):
    """The server closes the body of a client that went away (WSGI's ``close``): the export's
    connection goes back to the pool then, its transaction ended, with most rows unread."""
    from webob import Request

    site = things_site(make_site)
    _insert_many(site, 20_000)
    cookie = "; ".join(f"{c.name}={c.value}" for c in site.app.cookiejar)
    pool = site.engine.pool

    def call(path):
        started = []
        body = site.wsgi(Request.blank(path, headers={"Cookie": cookie}).environ,
                         lambda status, headers, exc_info=None: started.append(status))
        return started, body

    started, body = call("/admin/things")
    b"".join(body)
    idle = pool.checkedout()
    started, body = call("/admin/things/export.csv")
    chunks = iter(body)
    assert next(chunks) == b"\xef\xbb\xbfid,name,price,created\r\n" and started == ["200 OK"]
    assert next(chunks).count(b"\n") == 1000
    assert pool.checkedout() == idle + 1  # the export's own connection, beside the thread's
    body.close()
    assert pool.checkedout() == idle
    started, body = call("/admin/things?page=2")
    assert b"21\xe2\x80\x9340 of 20000 things." in b"".join(body)


def test_the_export_reads_one_snapshot_and_blocks_no_writer(make_site):
    """Rows written while an export is being sent are not in it (one snapshot: REPEATABLE READ on
    PostgreSQL, a read transaction of the WAL on SQLite), and the writer does not wait for it
    (on SQLite the engine's transactions take the write lock: the export gave it back)."""
    from webob import Request

    site = things_site(make_site)
    _insert_many(site, 5_000)
    cookie = "; ".join(f"{c.name}={c.value}" for c in site.app.cookiejar)
    body = site.wsgi(Request.blank("/admin/things/export.csv", headers={"Cookie": cookie}).environ,
                     lambda status, headers, exc_info=None: None)
    chunks = iter(body)
    received = [next(chunks), next(chunks)]  # the header, then the first 1,000 rows
    started = time.monotonic()
    add_products(site, 10, start=900_000)
    with site.session() as s:
        s.execute(Product.__table__.delete().where(Product.name == "Generated thing number 4000"))
    assert time.monotonic() - started < 5
    received.extend(chunks)
    body.close()
    lines = b"".join(received).decode().splitlines()
    assert len(lines) == 5_001
    assert not any("Thing 9000" in line for line in lines)
    assert sum(",Generated thing number 4000," in line for line in lines) == 1
