"""Work off the request path with a real queue and worker: automatic documents after an
order's status changes, and bulk regeneration from the command line."""
from sqlalchemy import select

from storeplatform.testing import assert_error, queue_url, wait_for

from .conftest import run_cli, write_ini


def test_status_change_numbers_now_and_renders_in_the_worker(make_shop, tmp_path):
    shop = make_shop(**{"huey.url": queue_url(tmp_path)})
    order = shop.order("pending")
    shop.set_status(order["id"], "completed")
    # The number is taken in the status change's transaction; the PDF waits for a worker.
    [(order_id, doc_type, number, display, generated)] = shop.documents()
    assert (order_id, doc_type, number, generated) == (order["id"], "invoice", 1, None)
    assert_error(shop.meta(order["id"], status=404), 404, "invoicing_document_not_found")
    with shop.worker(workers=1):
        wait_for(lambda: shop.documents()[0][4] is not None)
    meta = shop.meta(order["id"]).json
    assert meta["display_number"] == display and meta["file_size"] > 1000


def test_sweep_renders_documents_whose_hand_off_was_lost(shop):
    from datetime import timedelta

    from sqlalchemy import update

    from storeplatform.api import utcnow
    from storeplatform_invoicing.models import Document

    order = shop.order("pending")
    shop.regen(order["id"])
    with shop.session() as s:  # as if the process died between commit and enqueue
        s.execute(update(Document).values(generated_at=None, pdf=None, file_size=0,
                                          created_at=utcnow() - timedelta(minutes=10)))
    assert_error(shop.meta(order["id"], status=404), 404, "invoicing_document_not_found")
    shop.run_task("invoicing.sweep_pending")  # memory:// queue: the render runs after commit
    assert shop.meta(order["id"]).json["invoice_number"] == 1


def _job_items(shop):
    from storeplatform_invoicing.models import JobItem

    with shop.session() as s:
        return s.execute(select(JobItem.job_id, JobItem.order_id, JobItem.done, JobItem.error)
                         .order_by(JobItem.job_id, JobItem.order_id)).all()


def test_bulk_regenerate_with_a_worker(make_shop, tmp_path):
    shop = make_shop(**{"huey.url": queue_url(tmp_path)})
    orders = [shop.order("pending") for _ in range(12)]
    cancelled = shop.order("cancelled")
    shop.set_status(orders[0]["id"], "processing")  # its render task waits in the queue too
    ini = write_ini(tmp_path / "site.ini", shop.site)
    with shop.worker(workers=2):
        proc = run_cli(ini, "invoicing", "regenerate")
        assert proc.returncode == 0, proc.stderr
        assert "[" + "#" * 30 + "] 12/12 (100%)" in proc.stderr
        assert "skipping 1 cancelled or failed orders" in proc.stderr
        assert proc.stdout.strip() == "job 1: 12 of 12 orders regenerated, 0 failed"
        docs = shop.documents()
        assert sorted(d[2] for d in docs) == list(range(1, 13))
        assert all(d[4] is not None for d in docs)
        assert cancelled["id"] not in {d[0] for d in docs}
        first_numbers = {d[0]: d[3] for d in docs}
        # Safe to run again: every document keeps its number.
        proc = run_cli(ini, "invoicing", "regenerate", "--status", "pending")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "job 2: 11 of 11 orders regenerated, 0 failed"
        assert {d[0]: d[3] for d in shop.documents()} == first_numbers
    assert shop.queued() == 0


def test_bulk_by_ids_force_type_and_no_wait(make_shop, tmp_path):
    shop = make_shop(**{"huey.url": queue_url(tmp_path)})
    first = shop.order("pending")
    second = shop.order("cancelled")
    shop.order("pending")
    ini = write_ini(tmp_path / "site.ini", shop.site)
    proc = run_cli(ini, "invoicing", "regenerate", "--force-type", "packing-slip", "--no-wait",
                   str(first["id"]), str(second["id"]))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "job 1: 2 orders enqueued"
    assert shop.documents() == []  # nothing done until a worker runs
    with shop.worker(workers=1):
        wait_for(lambda: all(item.done for item in _job_items(shop)))
    assert sorted((d[0], d[1], d[2]) for d in shop.documents()) == [
        (first["id"], "packing-slip", 1), (second["id"], "packing-slip", 2)]


def test_bulk_records_orders_that_disappeared(make_shop, tmp_path):
    shop = make_shop(**{"huey.url": queue_url(tmp_path)})
    keep = shop.order("pending")
    gone = shop.order("pending")
    ini = write_ini(tmp_path / "site.ini", shop.site)
    proc = run_cli(ini, "invoicing", "regenerate", "--no-wait")
    assert proc.returncode == 0, proc.stderr
    shop.app.delete(f"/api/store/v1/orders/{gone['id']}", headers=shop.headers_for("administrator"))
    with shop.worker(workers=1):
        wait_for(lambda: all(item.done for item in _job_items(shop)))
    assert [(i.order_id, i.error) for i in _job_items(shop)] == [
        (keep["id"], None), (gone["id"], "the order no longer exists")]
    assert [d[0] for d in shop.documents()] == [keep["id"]]


def test_bulk_bad_input_is_one_clear_line(shop, tmp_path):
    ini = write_ini(tmp_path / "site.ini", shop.site)
    order = shop.order("pending")
    for args, needle in ((["abc"], "ORDER_ID must be a positive integer"),
                         (["--status", "shipped"], "unknown status 'shipped'"),
                         (["--force-type", "bill"], "invalid choice"),
                         ([str(order["id"]), "999"], "no order with id 999"),
                         ([str(2**31)], f"no order with id {2**31}")):
        proc = run_cli(ini, "invoicing", "regenerate", *args)
        assert proc.returncode != 0
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], proc.stderr
    assert shop.documents() == []


def test_unreachable_queue_is_one_clear_line(shop, tmp_path):
    shop.order("pending")
    ini = write_ini(tmp_path / "site.ini", shop.site)
    text = ini.read_text().replace(f"huey.url = {shop.settings['huey.url']}",
                                   "huey.url = redis://127.0.0.1:9/0")
    ini.write_text(text)
    for extra in ([], ["--no-wait"]):
        proc = run_cli(ini, "invoicing", "regenerate", *extra)
        assert proc.returncode == 1
        last = proc.stderr.strip().splitlines()[-1]
        assert "could not send the tasks" in last and "0 of 1 were sent" in last, proc.stderr
    assert shop.documents() == []


def test_the_job_sweep_hands_lost_items_over_again_once(shop):
    from datetime import timedelta

    from sqlalchemy import update

    from storeplatform.api import utcnow
    from storeplatform_invoicing.models import JobItem

    orders = [shop.order("on-hold") for _ in range(3)]
    shop.run_task("invoicing.sweep_jobs")  # nothing to do: no job yet
    assert _job_items(shop) == []
    # A job whose hand-off was lost: items committed, no task ever sent (as if the process died).
    from storeplatform_invoicing.jobs import create_job

    with shop.session() as s:
        job_id = create_job(s, [o["id"] for o in orders])
        s.execute(update(JobItem).where(JobItem.order_id != orders[2]["id"])
                  .values(queued_at=utcnow() - timedelta(hours=1)))
    items = _job_items(shop)
    assert [row[2] for row in items] == [False, False, False]
    shop.run_task("invoicing.sweep_jobs")  # memory:// queue: the re-sent tasks run after commit
    items = _job_items(shop)
    # The two stale items are done; the one handed off just now is left to its own task.
    assert [(row[1], row[2], row[3]) for row in items] == [(orders[0]["id"], True, None),
                                                           (orders[1]["id"], True, None),
                                                           (orders[2]["id"], False, None)]
    assert sorted(d[0] for d in shop.documents()) == [orders[0]["id"], orders[1]["id"]]
    # A task handed over twice finds its item done and leaves the document alone.
    before = shop.documents()
    shop.run_task("invoicing.regenerate_order", job_id, orders[0]["id"])
    assert shop.documents() == before
