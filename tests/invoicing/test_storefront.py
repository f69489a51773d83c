"""The storefront download link at the site root: key check, one error for wrong order or
key, and the per-address rate limit shared by every process."""
import pytest

from storeplatform.testing import assert_error

from .conftest import pdf_text


def fresh_window():
    """Start a rate-limit test with time left in the current window (no split counts)."""
    import time

    from storeplatform_invoicing.storefront import WINDOW_SECONDS

    left = WINDOW_SECONDS - time.time() % WINDOW_SECONDS
    if left < 8:
        time.sleep(left + 0.05)


def link_of(shop, order):
    return shop.meta(order["id"]).json["pdf_url"].replace("http://localhost", "")


def test_download_by_link(shop):
    order = shop.order("completed")
    meta = shop.meta(order["id"]).json
    res = shop.app.get(link_of(shop, order))
    assert res.headers["Content-Type"] == "application/pdf"
    assert res.headers["Content-Disposition"] == f'attachment; filename="invoice-{meta["display_number"]}.pdf"'
    assert int(res.headers["Content-Length"]) == len(res.body) == meta["file_size"]
    assert meta["display_number"] in pdf_text(res.body)


def test_link_works_while_the_rest_api_is_off(make_shop):
    shop = make_shop()
    order = shop.order("completed")
    link = link_of(shop, order)
    shop.set_option("invoicing.rest_api_enabled", False)
    assert shop.app.get(link).body.startswith(b"%PDF-")


def test_wrong_key_or_order_give_the_same_error(shop):
    order = shop.order("completed")
    other = shop.order("completed")
    bodies = []
    for query in (f"invoicing_download={order['id']}&key=wrong",
                  f"invoicing_download={order['id']}&key={other['order_key']}",
                  f"invoicing_download={order['id']}",
                  f"invoicing_download=99999&key={order['order_key']}",
                  "invoicing_download=abc&key=x",
                  f"invoicing_download={2**31}&key=x",
                  f"invoicing_download={10**30}&key=x",
                  f"invoicing_download=-{order['id']}&key={order['order_key']}",
                  "invoicing_download=&key=x"):
        bodies.append(assert_error(shop.app.get("/?" + query, status=404), 404, "invoicing_invalid_link"))
    assert all(b == bodies[0] for b in bodies)


def test_order_without_document_yet(shop):
    order = shop.order("pending")
    res = shop.app.get(f"/?invoicing_download={order['id']}&key={order['order_key']}", status=404)
    assert_error(res, 404, "invoicing_document_not_found")


def test_site_root_without_the_parameter_is_not_ours(shop):
    # The site's landing page answers it (#31), not the storefront link's errors.
    res = shop.app.get("/?key=abc")
    assert res.status_int == 200 and "rest_index" in res.json


@pytest.mark.in_process
def test_rate_limit_per_address(shop):
    shop.set_option("invoicing.download_rate_limit", 3)
    fresh_window()
    order = shop.order("completed")
    link = link_of(shop, order)
    for _ in range(2):
        shop.app.get(link)
    shop.app.get("/?invoicing_download=1&key=nope", status=404)  # failures count too
    res = shop.app.get(link, status=429)
    body = assert_error(res, 429, "invoicing_too_many_requests")
    assert 1 <= int(res.headers["Retry-After"]) <= 60 and body["data"]["retry_after"] == int(res.headers["Retry-After"])
    # Another address has its own budget.
    assert shop.app.get(link, extra_environ={"REMOTE_ADDR": "10.0.0.9"}).status_int == 200


def test_rate_limit_is_shared_by_processes(make_site, shop):
    """Two apps with their own engines and registries (as two server processes) count
    against the same limit, kept in the database."""
    from .conftest import Shop

    shop.set_option("invoicing.download_rate_limit", 4)
    order = shop.order("completed")
    link = link_of(shop, order)
    fresh_window()
    other = Shop(make_site(**{"storeplatform.plugins": "invoicing"}))
    assert other.engine is not shop.engine
    for app in (shop.app, other.app, shop.app, other.app):
        app.get(link)
    assert_error(other.app.get(link, status=429), 429, "invoicing_too_many_requests")
    assert_error(shop.app.get(link, status=429), 429, "invoicing_too_many_requests")


@pytest.mark.in_process
def test_forwarded_address_counts_only_behind_a_trusted_proxy(make_shop):
    shop = make_shop(**{"storeplatform.trusted_proxies": "127.0.0.1"})
    shop.set_option("invoicing.download_rate_limit", 1)
    order = shop.order("completed")
    link = link_of(shop, order)
    fresh_window()
    shop.app.get(link, headers={"X-Forwarded-For": "203.0.113.5"})
    shop.app.get(link, headers={"X-Forwarded-For": "203.0.113.6"})
    assert_error(shop.app.get(link, headers={"X-Forwarded-For": "203.0.113.5"}, status=429), 429,
                 "invoicing_too_many_requests")
    # From an untrusted peer the header is ignored: the peer's own address counts.
    stranger = {"REMOTE_ADDR": "198.51.100.7"}
    shop.app.get(link, headers={"X-Forwarded-For": "203.0.113.7"}, extra_environ=stranger)
    assert_error(shop.app.get(link, headers={"X-Forwarded-For": "203.0.113.8"}, extra_environ=stranger,
                              status=429), 429, "invoicing_too_many_requests")


def test_old_windows_are_purged(shop):
    import time

    from sqlalchemy import func, select

    from storeplatform_invoicing.models import RateWindow
    from storeplatform_invoicing.storefront import count_attempt

    with shop.session() as s:
        count_attempt(s, "192.0.2.1", now=time.time() - 3600)
    with shop.session() as s:
        count_attempt(s, "192.0.2.1")
    shop.run_task("invoicing.purge_rate_windows")
    with shop.session() as s:
        assert s.execute(select(func.count()).select_from(RateWindow)).scalar_one() == 1


@pytest.mark.parametrize("prefix,expected", [
    ("ÜBER", "attachment; filename=\"invoice-_BER-{year}-00001.pdf\"; filename*=UTF-8''invoice-%C3%9CBER-{year}-00001.pdf"),
    ('A"B', 'attachment; filename="invoice-A_B-{year}-00001.pdf"; filename*=UTF-8\'\'invoice-A%22B-{year}-00001.pdf'),
])
def test_unusual_prefixes_make_safe_file_names(shop, prefix, expected):
    from datetime import datetime

    shop.set_option("invoicing.prefix_invoice", prefix)
    order = shop.order("completed")
    res = shop.app.get(link_of(shop, order))
    assert res.headers["Content-Disposition"] == expected.format(year=datetime.now().year)
