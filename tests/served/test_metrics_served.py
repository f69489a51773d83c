"""The site's metrics through the real servers (issue #29): config/production.ini under gunicorn
with 4 sync worker processes and a standalone ``storeplatform worker`` beside them, on a fresh
database and queue of the run's backend. Requests sent from many connections (so that every
web process answers some) are counted once each in one scrape, whichever process answers it:
the numbers add up across processes. A task the standalone worker ran (an invoice rendered
after an order was paid) shows in the same scrape, with the domain counters of the processes
that did the work. The scrape is refused to an address the ini does not allow, without the
token, even with a forged X-Forwarded-For; the token or an allowed address opens it.

Issue #38 (metrics as a component): a scrape a second after the traffic sees every worker's
counts (each process writes its batches every second, the forked workers too); the pools'
gauges of ``process="web"`` and ``process="worker"`` are each their own processes' size;
every series of docs/operations.md's table exists, at 0, before anything happened."""
import http.client
import json
import re
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from storeplatform.components.observability.metrics import FLUSH_SECONDS
from storeplatform.core.db.pool import connections_needed
from .helpers import API, BIN, PRODUCTION_INI, ROOT, Served, backend, prepare_site, processes, scaled, start_server, \
    wait_ready

TOKEN = "metrics-token-0123456789abcdef"
ALLOWED = "127.0.0.2"  # the scraper's address here; the clients connect from 127.0.0.1
WORKERS = 4
TASK_WORKERS = 2  # storeplatform worker --workers
# Families that count what happens: before any traffic (but the readiness probe and the
# refused scrapes) they are at 0.
COUNT_EVENTS = {"db_pool_waits_total", "db_pool_timeouts_total", "metrics_scrape_errors_total",
                "events_webhook_deliveries_total", "events_webhook_delivery_seconds", "events_webhooks_disabled_total",
                "events_checkins_total", "events_tickets_issued_total", "invoicing_pdfs_rendered_total",
                "invoicing_pdf_render_seconds", "pricecalc_calculations_total"}


def request(port, method, path, headers=None, body=None, source="127.0.0.1"):
    """One request on a connection of its own (from ``source``): (status, headers, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=scaled(30), source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        res = conn.getresponse()
        return res.status, res.headers, res.read()
    finally:
        conn.close()


def scrape(port, **kwargs):
    status, headers, body = request(port, "GET", "/metrics", **kwargs)
    assert status == 200, (status, body[:300])
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4"), headers["Content-Type"]
    return body.decode()


def samples(text):
    """{(sample name, sorted labels): value} of a scrape."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(found, name, **labels):
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def site_ini(tmp_path):
    """config/production.ini, with the scraper's address allowed and not the clients'."""
    text = PRODUCTION_INI.read_text()
    text, count = re.subn(r"^storeplatform\.metrics_allow = .*$", f"storeplatform.metrics_allow = {ALLOWED}", text,
                          flags=re.M)
    assert count == 1 and "storeplatform.metrics = true" in text
    ini = tmp_path / "production.ini"
    ini.write_text(text)
    return ini


def documented():
    """{name: type} of the metrics in docs/operations.md's table (without storeplatform_)."""
    text = (ROOT / "docs" / "operations.md").read_text()
    table = text[text.index("### The metrics"):text.index("### The dashboard")]
    found = dict(re.findall(r"^\| `(\w+)` \| (counter|gauge|histogram) \|", table, flags=re.M))
    assert len(found) >= 20 and "db_pool_waits_total" in found, found
    return found


def check_every_series_from_the_start(found):
    """Every family of the table has its series in a scrape before any traffic, those that
    count what happens at 0; the series of the label values known in advance exist."""
    missing, moved = [], []
    for name, kind in sorted(documented().items()):
        sample = f"storeplatform_{name}" + ("_count" if kind == "histogram" else "")
        series = {labels: v for (n, labels), v in found.items() if n == sample}
        if not series:
            missing.append(name)
        elif name in COUNT_EVENTS and any(series.values()):
            moved.append((name, series))
    assert not missing, f"documented series missing before any event: {missing}"
    assert not moved, f"counted before any event: {moved}"
    for kind in ("web", "worker"):
        for name in ("db_pool_size", "db_pool_checked_out", "db_pool_waits_total", "db_pool_timeouts_total"):
            assert (f"storeplatform_{name}", (("process", kind),)) in found, (name, kind)
    for gauge in ("storeplatform_tasks_pending", "storeplatform_events_webhook_outbox"):
        assert value(found, "storeplatform_metrics_scrape_errors_total", gauge=gauge) == 0
        assert ("storeplatform_metrics_scrape_errors_total", (("gauge", gauge),)) in found, gauge
    for outcome in ("ok", "error"):
        labels = (("outcome", outcome), ("task", "invoicing.render_document"))
        assert ("storeplatform_task_runs_total", labels) in found, outcome


def test_metrics_add_up_across_gunicorn_workers_and_the_standalone_worker(tmp_path):
    with backend(tmp_path) as site:
        env = site.environ()
        env["STOREPLATFORM_METRICS_TOKEN"] = TOKEN
        ini = site_ini(tmp_path)
        creds, _ = prepare_site(ini, env, tmp_path)
        with processes() as started:
            worker = Served("worker", [BIN / "storeplatform", "-c", ini, "worker", "--workers", str(TASK_WORKERS)],
                            env, tmp_path,
                            tmp_path / "worker.log")
            started.append(worker)
            server, port = start_server(started, "gunicorn", [BIN / "pserve", "-q", ini], env, tmp_path,
                                        tmp_path / "server.log")
            wait_ready(port, server, auth=creds.admin)
            try:
                check_metrics(port, creds, Path(env["STOREPLATFORM_METRICS_DIR"]), server, worker)
            except AssertionError as exc:
                raise AssertionError(f"{exc}\n--- gunicorn ---\n{server.tail()}\n--- worker ---\n{worker.tail()}")
        for proc in (server, worker):
            assert "Traceback" not in proc.text(), proc.tail(80)


def check_metrics(port, creds, directory, server, worker):
    token = {"Authorization": f"Bearer {TOKEN}"}
    # Refused: the clients' address is not allowed; nor is a forged X-Forwarded-For believed.
    for headers in ({}, {"X-Forwarded-For": ALLOWED}, {"Authorization": "Bearer not-the-token-at-all"}):
        status, answer_headers, body = request(port, "GET", "/metrics", headers=headers)
        assert status == 401 and json.loads(body)["code"] in ("rest_not_logged_in", "rest_authentication_failed"), \
            (headers, status, body)
        assert answer_headers["WWW-Authenticate"] == 'Bearer realm="metrics"'
    before = samples(scrape(port, source=ALLOWED))
    check_every_series_from_the_start(before)

    # N requests over as many connections: the 4 sync workers share them.
    routes = {"healthz": ("/healthz", 200), "pricecalc/v1:units": (f"{API}/pricecalc/v1/units", 200),
              "(none)": ("/no/such/page", 404)}
    sent = Counter()
    plan = [name for name in routes for _ in range(60)]

    def send(name):
        path, expected = routes[name]
        status, _, body = request(port, "GET", path)
        assert status == expected, (name, status, body[:200])
        return name

    with ThreadPoolExecutor(8) as pool:
        sent.update(pool.map(send, plan))

    def requests_counted(found, name):
        return sum(v - value(before, key[0], **dict(key[1])) for key, v in found.items()
                   if key[0] == "storeplatform_http_requests_total" and dict(key[1])["route"] == name)

    # Each process writes what it observed every second (metrics.FLUSH_SECONDS), the forked
    # workers too: one scrape a second after the traffic counts every request, once, in
    # whichever process answered it.
    # (A second on an idle machine; as many as the machine is busier: the writing thread of each
    # process waits its turn for a core.)
    time.sleep(scaled(FLUSH_SECONDS + 0.5))
    found = samples(scrape(port, headers=token))  # the token opens it from any address
    for name, n in sent.items():
        counted = requests_counted(found, name)
        status = f"{routes[name][1] // 100}xx"
        assert counted == n, (name, counted, n)
        assert value(found, "storeplatform_http_requests_total", route=name, method="GET", status=status) \
            - value(before, "storeplatform_http_requests_total", route=name, method="GET", status=status) == n
        assert value(found, "storeplatform_http_request_duration_seconds_count", route=name, method="GET") \
            - value(before, "storeplatform_http_request_duration_seconds_count", route=name, method="GET") == n

    # A paid order: tickets issued and a check-in in the web processes, its invoice rendered by
    # the standalone worker (the web processes run no consumer).
    auth = {"Authorization": creds.admin, "Content-Type": "application/json"}

    def post(path, body, expected=201):
        status, _, answer = request(port, "POST", f"{API}{path}", headers=auth, body=json.dumps(body))
        assert status == expected, (path, status, answer[:300])
        return json.loads(answer)

    event = post("/events/v1/events", {"title": "Metrics night", "start_date": "2027-03-15", "start_time": "19:30",
                                       "status": "publish"})
    product = post("/store/v1/products", {"name": "Ticket", "regular_price": "2.50",
                                          "meta": {"event_id": event["id"]}})
    order = post("/store/v1/orders", {"status": "processing", "billing": {"first_name": "Anna", "email": "a@example.com"},
                                      "line_items": [{"product_id": product["id"], "quantity": 3}]})
    status, _, body = request(port, "GET", f"{API}/events/v1/attendees?order_id={order['id']}", headers=auth)
    assert status == 200, body[:300]
    code = json.loads(body)[0]["ticket_code"]
    post("/events/v1/checkin", {"ticket_code": code}, expected=200)
    post("/events/v1/checkin", {"ticket_code": code}, expected=200)  # scanned again: already in
    status, _, body = request(port, "POST", f"{API}/events/v1/checkin", headers=auth,
                              body=json.dumps({"ticket_code": "NO-SUCH-TICKET"}))
    assert status == 404, body[:300]
    last_request = time.monotonic()

    # The standalone worker renders the invoice when it takes the task: the scrape is read
    # again until its run has arrived (a second after it ended), and a second after the last
    # request (the web processes' counts).
    deadline = last_request + scaled(60)
    while True:
        found = samples(scrape(port, headers=token))
        rendered = value(found, "storeplatform_task_runs_total", task="invoicing.render_document", outcome="ok")
        arrived = rendered >= 1 and time.monotonic() - last_request >= scaled(FLUSH_SECONDS + 0.5)
        if arrived or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert rendered == 1, "the worker's task run is not in the scrape"
    assert value(found, "storeplatform_invoicing_pdfs_rendered_total", type="invoice") == 1
    assert value(found, "storeplatform_invoicing_pdf_render_seconds_count", type="invoice") == 1
    assert value(found, "storeplatform_task_duration_seconds_count", task="invoicing.render_document") == 1
    assert value(found, "storeplatform_task_wait_seconds_count", task="invoicing.render_document") == 1

    # Domain counters of the web processes.
    assert value(found, "storeplatform_events_tickets_issued_total") == 3
    assert value(found, "storeplatform_events_checkins_total", result="checked_in") == 1
    assert value(found, "storeplatform_events_checkins_total", result="already_in") == 1
    assert value(found, "storeplatform_events_checkins_total", result="invalid") == 1
    # Site-wide values read at scrape time; the pools of the live processes.
    assert value(found, "storeplatform_tasks_pending") == 0
    assert value(found, "storeplatform_events_webhook_outbox", status="pending") == 0
    # Each kind's pools are its own: the web workers' (sync: one thread each, no consumer) and
    # the standalone worker's (its task threads), none counted under the other kind.
    assert value(found, "storeplatform_db_pool_size", process="web") == WORKERS * connections_needed(1, 0)
    assert value(found, "storeplatform_db_pool_size", process="worker") == connections_needed(0, TASK_WORKERS)
    assert value(found, "storeplatform_db_pool_timeouts_total", process="web") == 0

    # The files: the standalone worker's, and several web workers' (the master's hold what it
    # declared, at 0; no gauge of its pool, which serves nothing).
    pids = {int(p.stem.rsplit("_", 1)[1]) for p in directory.glob("counter_*.db")}
    assert worker.proc.pid in pids, (pids, worker.proc.pid)
    assert len(pids - {worker.proc.pid, server.proc.pid}) >= 2, pids
    assert not list(directory.glob(f"gauge_livesum_{server.proc.pid}.db"))
