"""The site's metrics through the real servers (issue #29): config/production.ini under gunicorn
with 4 sync worker processes and a standalone ``storeplatform worker`` beside them, on a fresh
database and queue of the run's backend. Requests sent from many connections (so that every
web process answers some) are counted once each in one scrape, whichever process answers it:
the numbers add up across processes. A task the standalone worker ran (an invoice rendered
after an order was paid) shows in the same scrape, with the domain counters of the processes
that did the work. The scrape is refused to an address the ini does not allow, without the
token, even with a forged X-Forwarded-For; the token or an allowed address opens it."""
import http.client
import json
import re
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from storeplatform.testing import free_port

from .helpers import API, BIN, PRODUCTION_INI, Served, backend, prepare_site, processes, wait_ready

TOKEN = "metrics-token-0123456789abcdef"
ALLOWED = "127.0.0.2"  # the scraper's address here; the clients connect from 127.0.0.1
WORKERS = 4


def request(port, method, path, headers=None, body=None, source="127.0.0.1"):
    """One request on a connection of its own (from ``source``): (status, headers, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
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


def test_metrics_add_up_across_gunicorn_workers_and_the_standalone_worker(tmp_path):
    with backend(tmp_path) as site:
        env = site.environ()
        env["STOREPLATFORM_METRICS_TOKEN"] = TOKEN
        ini = site_ini(tmp_path)
        creds, _ = prepare_site(ini, env, tmp_path)
        port = free_port()
        with processes() as started:
            server = Served("gunicorn", [BIN / "pserve", "-q", ini, f"http_port={port}"], env, tmp_path,
                            tmp_path / "server.log")
            started.append(server)
            worker = Served("worker", [BIN / "storeplatform", "-c", ini, "worker", "--workers", "2"], env, tmp_path,
                            tmp_path / "worker.log")
            started.append(worker)
            wait_ready(port, server)
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

    def requests_counted(found, name):
        return sum(v - value(before, key[0], **dict(key[1])) for key, v in found.items()
                   if key[0] == "storeplatform_http_requests_total" and dict(key[1])["route"] == name)

    # Each process writes what it observed every second (metrics.FLUSH_SECONDS): a scrape sees
    # the others' observations that late, so it is read again until everything has arrived.
    deadline = time.monotonic() + 60
    while True:
        found = samples(scrape(port, headers=token))  # the token opens it from any address
        rendered = value(found, "storeplatform_task_runs_total", task="invoicing.render_document", outcome="ok")
        arrived = rendered >= 1 and all(requests_counted(found, name) >= n for name, n in sent.items()) \
            and value(found, "storeplatform_events_checkins_total", result="invalid") >= 1
        if arrived or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert rendered == 1, "the worker's task run is not in the scrape"
    assert value(found, "storeplatform_invoicing_pdfs_rendered_total", type="invoice") == 1
    assert value(found, "storeplatform_invoicing_pdf_render_seconds_count", type="invoice") == 1
    assert value(found, "storeplatform_task_duration_seconds_count", task="invoicing.render_document") == 1
    assert value(found, "storeplatform_task_wait_seconds_count", task="invoicing.render_document") == 1

    # Every request counted once, in whichever process answered it.
    for name, n in sent.items():
        counted = requests_counted(found, name)
        status = f"{routes[name][1] // 100}xx"
        assert counted == n, (name, counted, n)
        assert value(found, "storeplatform_http_requests_total", route=name, method="GET", status=status) \
            - value(before, "storeplatform_http_requests_total", route=name, method="GET", status=status) == n
        assert value(found, "storeplatform_http_request_duration_seconds_count", route=name, method="GET") \
            - value(before, "storeplatform_http_request_duration_seconds_count", route=name, method="GET") == n
    # Domain counters of the web processes.
    assert value(found, "storeplatform_events_tickets_issued_total") == 3
    assert value(found, "storeplatform_events_checkins_total", result="checked_in") == 1
    assert value(found, "storeplatform_events_checkins_total", result="already_in") == 1
    assert value(found, "storeplatform_events_checkins_total", result="invalid") == 1
    # Site-wide values read at scrape time; the pools of the live processes.
    assert value(found, "storeplatform_tasks_pending") == 0
    assert value(found, "storeplatform_events_webhook_outbox", status="pending") == 0
    assert value(found, "storeplatform_db_pool_size", process="web") >= WORKERS  # one connection or more each
    assert value(found, "storeplatform_db_pool_size", process="worker") >= 2
    assert value(found, "storeplatform_db_pool_timeouts_total", process="web") == 0

    # The files: the standalone worker's, and several web workers' (the master's hold what it
    # declared, at 0; no gauge of its pool, which serves nothing).
    pids = {int(p.stem.rsplit("_", 1)[1]) for p in directory.glob("counter_*.db")}
    assert worker.proc.pid in pids, (pids, worker.proc.pid)
    assert len(pids - {worker.proc.pid, server.proc.pid}) >= 2, pids
    assert not list(directory.glob(f"gauge_livesum_{server.proc.pid}.db"))
