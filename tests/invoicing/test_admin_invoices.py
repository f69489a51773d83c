"""The admin's invoices page through its pages (WebTest): orders with their documents, the status
filter, the download, bulk regeneration by the CLI's job (its progress read by the page), the
capability gate and hostile input: never a 500, nothing saved by a refused form."""
import pytest
from sqlalchemy import func, select, update

from admin.helpers import assert_page, login, token
from storeplatform.api import Order
from storeplatform.testing import queue_url, wait_for
from storeplatform_invoicing.models import Job, JobItem

from .conftest import pdf_text

HUGE = "9" * 30


class Desk:
    """The invoices page of a shop, for a logged-in shop manager."""

    def __init__(self, shop):
        self.shop = shop
        self.app = shop.app
        login(shop.site, "clerk", "shop_manager")
        self.token = token(self.app.get("/admin/invoices"))

    def page(self, expect=200, **params):
        return self.app.get("/admin/invoices", params=params, status=expect)

    def regenerate(self, order_ids, force_type="", status=303, query="", **extra):
        body = [("csrf_token", self.token), ("force_type", force_type)] + [("order_id", str(i)) for i in order_ids]
        body += list(extra.items())
        return self.app.post("/admin/invoices/regenerate" + query, body, status=status)

    def progress(self, job_id, status=200):
        return self.app.get(f"/admin/invoices/jobs/{job_id}", status=status)


@pytest.fixture
def desk(shop):
    return Desk(shop)


def jobs_and_items(shop):
    with shop.session() as s:
        return (s.execute(select(func.count()).select_from(Job)).scalar(),
                s.execute(select(func.count()).select_from(JobItem)).scalar())


def test_orders_with_their_documents_and_the_download(desk):
    shop = desk.shop
    paid = shop.order("completed")
    shop.regen(paid["id"])  # the invoice, rendered now
    shop.regen(paid["id"], {"force_type": "packing-slip"})
    bare = shop.order("pending")
    page = assert_page(desk.page(), 200, "Invoices")
    row = page.html.find(id=f"order-{paid['id']}")
    docs = {d["data-type"]: d for d in row.select(".inv-doc")}
    assert set(docs) == {"invoice", "packing-slip"}
    meta = shop.meta(paid["id"]).json  # the most recent document through REST
    invoice = docs["invoice"]
    assert invoice.select_one(".inv-doc-number").text
    assert "KB" in invoice.select_one(".inv-doc-size").text and invoice.select_one(".inv-doc-date").text
    assert page.html.find(id=f"order-{bare['id']}").find(string="none")
    # The download is the document's PDF, with the REST route's headers.
    link = docs["packing-slip"].select_one("a.inv-doc-download")["href"]
    pdf = desk.app.get(link)
    assert pdf.content_type == "application/pdf" and pdf.body.startswith(b"%PDF")
    assert pdf.headers["Content-Disposition"] == f'attachment; filename="invoice-{meta["display_number"]}.pdf"'
    assert int(pdf.headers["Content-Length"]) == len(pdf.body) == meta["file_size"]
    assert "Packing slip" in pdf_text(pdf.body) or "PACKING" in pdf_text(pdf.body).upper()


def test_totals_are_in_the_store_s_money_format_with_the_order_s_currency(desk):
    """The format of every admin page that shows money (the host's ``format_money`` through the
    plugin API): the store's separators, decimals and symbol's place, the order's own symbol."""
    shop = desk.shop
    for key, value in {"store.currency": "EUR", "store.currency_position": "right_space",
                       "store.thousand_separator": ".", "store.decimal_separator": ","}.items():
        shop.site.set_option(key, value)
    lamp, cable, _ = shop.products()
    order = shop.order("completed")  # 39.90 + 3 × 7.25
    big = shop.order("completed", lines=[(lamp, 30), (cable, 3)])
    page = assert_page(desk.page(), 200, "Invoices")
    assert page.html.find(id=f"order-{order['id']}").select_one(".inv-total").text == "61,65 €"
    assert page.html.find(id=f"order-{big['id']}").select_one(".inv-total").text == "1.218,75 €"
    with shop.session() as s:
        s.execute(update(Order).where(Order.id == order["id"]).values(currency="PLN"))
    page = desk.page()
    assert page.html.find(id=f"order-{order['id']}").select_one(".inv-total").text == "61,65 zł"


def test_the_status_filter_and_pages(desk):
    shop = desk.shop
    done = [shop.order("completed") for _ in range(2)]
    waiting = shop.order("on-hold")
    page = desk.page(status="on-hold")
    ids = [int(tr["id"].split("-")[1]) for tr in page.html.select("tr[id^=order-]")]
    assert ids == [waiting["id"]]
    assert "1 order with status on-hold." in page.text
    everything = desk.page()
    ids = [int(tr["id"].split("-")[1]) for tr in everything.html.select("tr[id^=order-]")]
    assert ids == [waiting["id"], done[1]["id"], done[0]["id"]]  # newest first
    assert desk.page(page="2").html.select("tr[id^=order-]") == []


@pytest.mark.parametrize("params, message", [
    ({"status": "shipped"}, "Unknown status"),
    ({"page": "0"}, "The page must be a whole number from 1."),
    ({"page": "x"}, "The page must be a whole number from 1."),
    ({"page": HUGE}, "The page must be a whole number from 1."),
    ({"page": "\u00b2"}, "The page must be a whole number from 1."),
    ({"page": "\u0662"}, "The page must be a whole number from 1."),
])
def test_bad_filters_are_a_clear_400(desk, params, message):
    assert_page(desk.page(expect=400, **params), 400, message)


def test_bulk_regeneration_makes_a_job_and_the_page_watches_it(desk):
    shop = desk.shop
    orders = [shop.order("completed") for _ in range(3)]
    res = desk.regenerate([o["id"] for o in orders])
    job_id = int(res.location.split("job=")[1].split("&")[0])
    page = assert_page(res.follow(), 200, "Regenerating 3 orders in the background.")
    assert page.html.find(id="inv-job")["data-progress-url"] == f"http://localhost/admin/invoices/jobs/{job_id}"
    # memory:// runs the job's tasks right after the commit: the job is done.
    assert desk.progress(job_id).json == {"job_id": job_id, "total": 3, "done": 3, "failed": 0, "percent": 100,
                                          "finished": True, "errors": []}
    assert {d[0] for d in shop.documents()} == {o["id"] for o in orders}


def test_cancelled_orders_need_a_type_as_in_the_cli(desk):
    shop = desk.shop
    good = shop.order("completed")
    cancelled = shop.order("cancelled")
    res = desk.regenerate([good["id"], cancelled["id"]])
    assert "1 cancelled or failed order was left out" in res.follow().text
    res = desk.regenerate([cancelled["id"]], status=400)
    assert_page(res, 400, "The selected orders are cancelled or failed")
    assert jobs_and_items(shop) == (1, 1)
    res = desk.regenerate([cancelled["id"]], force_type="credit-note")
    job_id = int(res.location.split("job=")[1])
    assert desk.progress(job_id).json["done"] == 1
    assert (cancelled["id"], "credit-note") in {(d[0], d[1]) for d in shop.documents()}


def test_a_job_with_a_worker_shows_progress_from_another_process(make_shop, tmp_path):
    """The job's progress is read from the database: a real queue, a worker, and the page's
    endpoint answering before, during and after."""
    shop = make_shop(**{"huey.url": queue_url(tmp_path)})
    desk = Desk(shop)
    orders = [shop.order("completed") for _ in range(3)]
    res = desk.regenerate([o["id"] for o in orders])
    job_id = int(res.location.split("job=")[1])
    before = desk.progress(job_id).json
    assert (before["total"], before["done"], before["finished"]) == (3, 0, False)
    with shop.worker(workers=1):
        wait_for(lambda: desk.progress(job_id).json["finished"])
    assert desk.progress(job_id).json["percent"] == 100


@pytest.mark.parametrize("ids, force_type, message", [
    ([], "", "Select the orders to regenerate."),
    (["abc"], "", "Not an order number: &#39;abc&#39;."),
    ([HUGE], "", "Not an order number"),
    (["0"], "", "Not an order number: &#39;0&#39;."),
    (["999999"], "", "No order with number 999999"),
    ([None], "bill", "Unknown document type &#39;bill&#39;."),
])
def test_bad_selections_are_refused_and_nothing_is_saved(desk, ids, force_type, message):
    good = desk.shop.order("pending")  # no document yet
    ids = [good["id"] if i is None else i for i in ids]
    res = desk.regenerate(ids, force_type=force_type, status=400)
    assert_page(res, 400, message)
    assert jobs_and_items(desk.shop) == (0, 0)
    assert desk.shop.documents() == []


def test_one_missing_order_among_good_ones_saves_nothing(desk):
    good = desk.shop.order("completed")
    assert_page(desk.regenerate([good["id"], 424242], status=400), 400, "No order with number 424242")
    assert jobs_and_items(desk.shop) == (0, 0)


def test_too_many_orders_at_once(desk):
    assert_page(desk.regenerate(range(1, 502), status=400), 400, "Select at most 500 orders at a time.")


def test_the_form_token_is_needed(desk):
    good = desk.shop.order("completed")
    for token_value in (None, "", "f" * 20):
        body = [("order_id", str(good["id"]))] + ([] if token_value is None else [("csrf_token", token_value)])
        assert_page(desk.app.post("/admin/invoices/regenerate", body, status=403), 403, "did not come from this site")
    assert jobs_and_items(desk.shop) == (0, 0)


def test_nul_and_bytes_that_are_not_utf8(desk):
    good = desk.shop.order("completed")
    body = f"csrf_token={desk.token}&order_id={good['id']}&force_type=%00".encode()
    assert_page(desk.app.post("/admin/invoices/regenerate", body, content_type="application/x-www-form-urlencoded",
                              status=400), 400, "NUL")
    body = f"csrf_token={desk.token}&order_id={good['id']}&force_type=%FF".encode()
    assert_page(desk.app.post("/admin/invoices/regenerate", body, content_type="application/x-www-form-urlencoded",
                              status=400), 400, "UTF-8")
    assert_page(desk.app.get("/admin/invoices?status=%FF", status=400), 400)
    assert jobs_and_items(desk.shop) == (0, 0)


@pytest.mark.parametrize("job_id", ["0", "424242", HUGE])
def test_unknown_jobs_and_documents(desk, job_id):
    assert desk.progress(job_id, status=404).json == {"message": "There is no such job."}
    assert_page(desk.app.get(f"/admin/invoices/documents/{job_id}/pdf", status=404), 404)
    page = desk.page(job=job_id)
    assert page.html.find(id="inv-job") is None


def test_pages_need_a_login_and_manage_shop(make_shop):
    shop = make_shop()
    res = shop.app.get("/admin/invoices", status=303)
    assert res.location == "http://localhost/admin/login?next=/admin/invoices"
    login(shop.site, "writer", "editor")
    assert_page(shop.app.get("/admin/invoices", status=403), 403, "may not use this page")
    assert_page(shop.app.get("/admin/invoices/jobs/1", status=403), 403)
    assert_page(shop.app.post("/admin/invoices/regenerate", {"order_id": "1"}, status=403), 403)


def test_the_page_works_while_the_rest_api_is_off(make_shop):
    shop = make_shop(rest=False)
    desk = Desk(shop)
    order = shop.order("completed")
    job_id = int(desk.regenerate([order["id"]]).location.split("job=")[1])
    assert desk.progress(job_id).json["finished"] is True
    link = desk.page().html.select_one("a.inv-doc-download")["href"]
    assert desk.app.get(link).body.startswith(b"%PDF")
