"""The site's metrics in-process (issue #29): who may read /metrics (denied by default, the
allowed peers, the bearer token, never a forged X-Forwarded-For), what each request, statement,
task and pool checkout counts, labels that stay bounded whatever clients send, the settings'
one-line errors, the plugin API's declarations and scrape-time gauges, and the Grafana dashboard
querying only metrics the site exposes. Issue #38: the series of known label values at 0 from
the start, the pool's gauges under the kind the process is, a forked process writing its batches
every second, and gunicorn with several workers sharing var/metrics (owner-only) when no
metrics_dir is set. tests/served/test_metrics_served.py counts across gunicorn's processes and
the standalone worker."""
import json
import re
import threading
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from storeplatform.components.observability import metrics
from storeplatform.api import counter, histogram
from storeplatform import site_settings
from storeplatform.core.settings import SettingsError
from storeplatform.testing import assert_error, count_queries

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "a-metrics-token-of-32-characters"
ON = {"storeplatform.metrics": "true"}


def sample(name, **labels):
    metrics.flush()
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(site, **environ):
    res = site.app.get("/metrics", extra_environ={"REMOTE_ADDR": "10.1.2.3", **environ},
                       headers={"Authorization": f"Bearer {TOKEN}"})
    assert res.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert res.headers["Cache-Control"] == "no-store"
    return {s.name + json.dumps(s.labels, sort_keys=True): s.value
            for family in text_string_to_metric_families(res.text) for s in family.samples}, res.text


@pytest.fixture
def metered(make_site):
    return make_site(**ON, **{"storeplatform.metrics_token": TOKEN, "storeplatform.metrics_allow": "10.0.0.0/8",
                              "storeplatform.trusted_proxies": "10.9.9.9"})


def test_off_by_default_no_route_and_nothing_observed(site):
    assert_error(site.app.get("/metrics", status=404), 404, "rest_no_route")
    assert "metrics.observe" not in site.registry


def test_on_but_refused_to_everyone_by_default_with_the_error_body(make_site):
    site = make_site(**ON)
    assert_error(site.app.get("/metrics", status=403), 403, "rest_forbidden")
    assert_error(site.app.get("/metrics", headers={"Authorization": "Bearer anything-at-all-here"}, status=403),
                 403, "rest_forbidden")


@pytest.mark.in_process  # other client addresses
def test_the_allowed_peers_and_the_token_and_nobody_else(metered):
    app = metered.app
    assert app.get("/metrics", extra_environ={"REMOTE_ADDR": "10.200.0.1"}).status_int == 200
    outside = {"REMOTE_ADDR": "192.0.2.7"}
    res = app.get("/metrics", extra_environ=outside, status=401)
    assert_error(res, 401, "rest_not_logged_in")
    assert res.headers["WWW-Authenticate"] == 'Bearer realm="metrics"'
    # A forged X-Forwarded-For names an allowed address: the peer decides.
    assert_error(app.get("/metrics", extra_environ=outside, headers={"X-Forwarded-For": "10.0.0.1"}, status=401),
                 401, "rest_not_logged_in")
    for wrong in ("Bearer " + TOKEN[:-1], "Bearer " + TOKEN + "x", "Basic " + TOKEN, TOKEN):
        assert_error(app.get("/metrics", extra_environ=outside, headers={"Authorization": wrong}, status=401),
                     401, "rest_authentication_failed")
    assert app.get("/metrics", extra_environ=outside, headers={"Authorization": f"Bearer {TOKEN}"}).status_int == 200
    # An allowed peer that is a trusted proxy forwarding someone's request is not let in by its
    # address (anyone behind the proxy would be); without forwarding headers it is.
    proxy = {"REMOTE_ADDR": "10.9.9.9"}
    assert app.get("/metrics", extra_environ=proxy).status_int == 200
    for header in ({"X-Forwarded-For": "192.0.2.7"}, {"Forwarded": "for=192.0.2.7"}):
        assert_error(app.get("/metrics", extra_environ=proxy, headers=header, status=401), 401, "rest_not_logged_in")
    assert app.get("/metrics", extra_environ=proxy, headers={"X-Forwarded-For": "192.0.2.7",
                                                             "Authorization": f"Bearer {TOKEN}"}).status_int == 200
    # Only GET.
    assert_error(app.post("/metrics", extra_environ={"REMOTE_ADDR": "10.0.0.1"}, status=404), 404, "rest_no_route")


@pytest.mark.filterwarnings("ignore:Unknown REQUEST_METHOD")  # webtest's lint, on the made-up methods
def test_requests_are_counted_by_route_method_and_status_class(metered):
    app = metered.app
    labelled_before = _route_labels(scrape(metered)[0])
    before = {key: sample("storeplatform_http_requests_total", route=key[0], method=key[1], status=key[2])
              for key in (("healthz", "GET", "2xx"), ("(none)", "GET", "4xx"), ("(none)", "other", "4xx"))}
    seconds = sample("storeplatform_http_request_duration_seconds_count", route="healthz", method="GET")
    for _ in range(5):
        app.get("/healthz")
    # Unknown paths and methods: one series each, whatever was sent (the labels stay bounded).
    for n in range(20):
        app.get(f"/no/such/page/{n}", status=404)
        app.request(f"/also/unknown/{n}", method=f"BREW{n}", status=404)
    found, text = scrape(metered)
    assert sample("storeplatform_http_requests_total", route="healthz", method="GET", status="2xx") \
        == before[("healthz", "GET", "2xx")] + 5
    assert sample("storeplatform_http_request_duration_seconds_count", route="healthz", method="GET") == seconds + 5
    assert sample("storeplatform_http_requests_total", route="(none)", method="GET", status="4xx") \
        == before[("(none)", "GET", "4xx")] + 20
    assert sample("storeplatform_http_requests_total", route="(none)", method="other", status="4xx") \
        == before[("(none)", "other", "4xx")] + 20
    assert "no/such" not in text and "BREW" not in text and "also/unknown" not in text
    # Every route label is a route's name, or (none).
    from pyramid.interfaces import IRoutesMapper

    # (The samples are the process's: sites of earlier tests in this process, with other plugins,
    # left their routes' labels; the labels this site added are its routes' names.)
    names = {route.name for route in metered.registry.getUtility(IRoutesMapper).get_routes()}
    routes = _route_labels(found)
    assert {"healthz", "(none)"} <= routes and routes - labelled_before <= names | {"(none)"}, routes


def _route_labels(found):
    return {json.loads(key[key.index("{"):])["route"] for key in found
            if key.startswith("storeplatform_http_requests_total")}


def test_route_labels_are_route_names(make_site):
    site = make_site(**ON, **{"storeplatform.plugins": "pricecalc", "storeplatform.metrics_token": TOKEN})
    before = sample("storeplatform_http_requests_total", route="pricecalc/v1:units", method="GET", status="2xx")
    site.app.get("/api/pricecalc/v1/units")
    assert sample("storeplatform_http_requests_total", route="pricecalc/v1:units", method="GET", status="2xx") \
        == before + 1


def test_statements_per_request_are_the_statements_the_request_ran(make_site):
    site = make_site(**ON, **{"storeplatform.plugins": "pricecalc", "storeplatform.metrics_token": TOKEN})
    site.app.get("/api/store/v1/products", headers=site.headers_for("administrator"))  # connections made
    labels = {"route": "store/v1:products"}
    count, total = (sample("storeplatform_http_request_db_statements_count", **labels),
                    sample("storeplatform_http_request_db_statements_sum", **labels))
    with count_queries(site.engine) as queries:
        site.app.get("/api/store/v1/products", headers=site.headers_for("administrator"))
    assert sample("storeplatform_http_request_db_statements_count", **labels) == count + 1
    ran = sample("storeplatform_http_request_db_statements_sum", **labels) - total
    assert ran >= queries() > 0  # count_queries leaves out transaction control (BEGIN, SAVEPOINT)
    assert ran <= queries() + 2


def test_tasks_are_counted_by_name_and_outcome_with_their_wait(make_site):
    from storeplatform.api import hookimpl

    class Failing:
        @hookimpl
        def storeplatform_tasks():
            return {"test_metrics.fail": lambda ctx: 1 / 0}

    site = make_site(plugins=[Failing], **ON, **{"storeplatform.plugins": "thirdparty_tasks"})
    name = "thirdparty_tasks.record"
    runs, waits = (sample("storeplatform_task_runs_total", task=name, outcome="ok"),
                   sample("storeplatform_task_wait_seconds_count", task=name))
    site.app.post_json("/api/store/v1/thirdparty/jobs", {"value": "v1"}, headers=site.headers_for("administrator"),
                       status=202)  # memory://: the task runs right after the commit
    assert sample("storeplatform_task_runs_total", task=name, outcome="ok") == runs + 1
    assert sample("storeplatform_task_wait_seconds_count", task=name) == waits + 1
    errors = sample("storeplatform_task_runs_total", task="test_metrics.fail", outcome="error")
    with pytest.raises(ZeroDivisionError):
        site.run_task("test_metrics.fail")
    assert sample("storeplatform_task_runs_total", task="test_metrics.fail", outcome="error") == errors + 1
    assert sample("storeplatform_task_runs_total", task="test_metrics.fail", outcome="ok") == 0


def test_pool_gauges_and_the_checkouts_that_waited_or_timed_out(make_site):
    from sqlalchemy import create_engine
    from sqlalchemy.exc import TimeoutError as NoConnection

    from storeplatform.core.db.pool import SitePool

    site = make_site(**ON)
    site.app.get("/api/store/v1/products", headers=site.headers_for("administrator"))
    pool = site.engine.pool
    assert sample("storeplatform_db_pool_size", process="web") == pool.size()
    assert sample("storeplatform_db_pool_checked_out", process="web") == pool.checkedout() >= 1
    # A pool of one connection: a second checkout waits, and times out.
    engine = create_engine("sqlite://", poolclass=SitePool, pool_size=1, max_overflow=0, pool_timeout=0.1)
    try:
        waits, timeouts = (sample("storeplatform_db_pool_waits_total", process="web"),
                           sample("storeplatform_db_pool_timeouts_total", process="web"))
        held = engine.connect()
        with pytest.raises(NoConnection):
            engine.connect()
        assert sample("storeplatform_db_pool_waits_total", process="web") == waits + 1
        assert sample("storeplatform_db_pool_timeouts_total", process="web") == timeouts + 1
        # It waits, and gets the connection given back meanwhile: a wait, no time-out.
        threading.Timer(0.02, held.close).start()
        engine.pool._timeout = 5
        engine.connect().close()
        assert sample("storeplatform_db_pool_waits_total", process="web") == waits + 2
        assert sample("storeplatform_db_pool_timeouts_total", process="web") == timeouts + 1
    finally:
        engine.dispose()


def test_a_scrape_gauge_that_fails_is_left_out_and_counted(make_site):
    from storeplatform.api import hookimpl

    class Plugin:
        @hookimpl
        def storeplatform_includeme(config):
            config.add_scrape_gauge("test_fine", "A value.", lambda registry: 7)
            config.add_scrape_gauge("test_labelled", "Values.", lambda registry: {("a",): 1, ("b",): 2},
                                    labels=("kind",))
            config.add_scrape_gauge("test_broken", "Never read.", lambda registry: 1 / 0)

    site = make_site(plugins=[Plugin], **ON, **{"storeplatform.metrics_token": TOKEN})
    errors = sample("storeplatform_metrics_scrape_errors_total", gauge="storeplatform_test_broken")
    found, text = scrape(site)
    assert found['storeplatform_test_fine{}'] == 7
    assert found['storeplatform_test_labelled{"kind": "a"}'] == 1 and found['storeplatform_test_labelled{"kind": "b"}'] == 2
    assert "storeplatform_test_broken" not in text.replace('gauge="storeplatform_test_broken"', "")
    assert sample("storeplatform_metrics_scrape_errors_total", gauge="storeplatform_test_broken") == errors + 1
    assert found["storeplatform_tasks_pending{}"] == 0


def test_a_batch_exposes_what_prometheus_client_observing_one_at_a_time_does():
    """The batches write into prometheus_client's bucket and sum values (private attributes of
    its Histogram): the same observations must expose the same series as its own observe."""
    import random

    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client import Counter as PlainCounter
    from prometheus_client import Histogram as PlainHistogram

    metrics.install()  # the backend of the kernel's declarations (a site with metrics on sets it too)
    rng = random.Random(29)
    amounts = [rng.choice([0, 0.0025, 0.003, 10.0, 11.0, 1e9, -1.0]) if rng.random() < 0.2 else rng.expovariate(20)
               for _ in range(2000)]
    batched = histogram("test_batched_seconds", "Observed in batches.", ("kind",))
    counted = counter("test_batched", "Counted in batches.", ("kind",))
    plain = CollectorRegistry()
    plain_histogram = PlainHistogram("storeplatform_test_batched_seconds", "Observed in batches.", ("kind",),
                                     buckets=metrics.LATENCY_BUCKETS, registry=plain)
    plain_counter = PlainCounter("storeplatform_test_batched", "Counted in batches.", ("kind",), registry=plain)
    threads = [threading.Thread(target=lambda part=part: [
        (batched.labels(kind="a").observe(a), counted.labels("a").inc(2)) for a in part]) for part in
        (amounts[i::4] for i in range(4))]
    for i, amount in enumerate(amounts):
        plain_histogram.labels("a").observe(amount)
        plain_counter.labels("a").inc(2)
        if i == 700:
            metrics.flush()  # a flush in the middle: batches add up
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with batched.labels("a").time():
        pass
    plain_histogram.labels("a").observe(0.0)  # what the timer observed lands in the first bucket

    def series(text):
        return sorted(line for line in text.decode().splitlines()
                      if line.startswith(("storeplatform_test_batched_seconds", "storeplatform_test_batched_total")))

    metrics.flush()
    ours, theirs = series(generate_latest(metrics.REGISTRY)), series(generate_latest(plain))
    assert [line for line in ours if "_sum" not in line] == [line for line in theirs if "_sum" not in line]
    # Sums added in another order differ in the last digits of a float.
    (our_sum,), (their_sum,) = ([float(line.split()[-1]) for line in lines if "_sum" in line] for lines in (ours, theirs))
    assert our_sum == pytest.approx(their_sum, rel=1e-12)
    with pytest.raises(ValueError):
        counted.labels("a").inc(-1)


def test_declaring_a_metric_once_per_process():
    first = counter("test_declared", "Declared twice alike.", ("kind",))
    assert counter("test_declared", "Declared twice alike.", ("kind",)) is first
    with pytest.raises(ValueError, match="declared twice"):
        histogram("test_declared", "Now a histogram.", ("kind",))
    with pytest.raises(ValueError, match="declared twice"):
        counter("test_declared", "Other labels.", ("other",))
    for bad in ("storeplatform_test", "Test", "test-name", "", "1test"):
        with pytest.raises(ValueError, match="lower-case"):
            counter(bad, "A bad name.")


@pytest.mark.parametrize("key, value, message", [
    ("storeplatform.metrics", "yes please", "storeplatform.metrics must be true or false, not 'yes please'"),
    ("storeplatform.metrics_allow", "10.0.0.0/8 localhost",
     "storeplatform.metrics_allow: 'localhost' is not an IP address or network"),
    ("storeplatform.metrics_token", "short", "storeplatform.metrics_token must be at least 16 printable ASCII"),
    ("storeplatform.metrics_token", "sixteen chars and spaces", "storeplatform.metrics_token must be at least 16"),
    ("storeplatform.traces", "jaeger", "storeplatform.traces must be off or otlp, not 'jaeger'"),
])
def test_a_bad_setting_stops_start_up_with_one_line_naming_it(database, key, value, message):
    with pytest.raises(SettingsError) as raised:
        site_settings(database.settings(**{**ON, key: value}), {})
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_the_metrics_directory_must_be_writable(database, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with pytest.raises(SettingsError, match=r"storeplatform.metrics_dir: cannot make .*file/metrics"):
        site_settings(database.settings(**ON, **{"storeplatform.metrics_dir": str(blocked / "metrics")}), {})
    # The environment names it too (the served tests give each site its own).
    parsed = site_settings(database.settings(**ON), {"STOREPLATFORM_METRICS_DIR": str(tmp_path / "m"),
                                                  "STOREPLATFORM_METRICS_TOKEN": TOKEN})["storeplatform.parsed"]
    assert parsed["metrics"].directory == str(tmp_path / "m") and parsed["metrics"].token == TOKEN
    assert (tmp_path / "m").is_dir()


def test_cleaning_the_directory_keeps_live_processes_and_drops_gone_ones(tmp_path):
    import os
    import subprocess
    import sys

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        names = [f"counter_{gone}.db", f"histogram_{gone}.db", f"gauge_livesum_{gone}.db",
                 f"counter_{alive.pid}.db", f"gauge_livesum_{alive.pid}.db",
                 f"counter_{os.getpid()}.db", f"gauge_livesum_{os.getpid()}.db"]
        for name in names:
            (tmp_path / name).write_bytes(b"")
        removed = metrics.clean_directory(str(tmp_path))
        assert sorted(Path(p).name for p in removed) == sorted(names[:3])
        # This process (the master) keeps its counters, not its gauges.
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            [f"counter_{alive.pid}.db", f"gauge_livesum_{alive.pid}.db", f"counter_{os.getpid()}.db"])
        metrics.process_exited(alive.pid, str(tmp_path))  # a worker exits: its gauges go, its counters stay
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            [f"counter_{alive.pid}.db", f"counter_{os.getpid()}.db"])
    finally:
        alive.kill()
        alive.wait()


def test_every_series_of_a_known_label_value_exists_at_0_from_the_start(make_site):
    """The pool's waits and time-outs of both kinds of process, the failed reads of each
    scrape-time gauge and the runs of each task exist before anything happened: a dashboard's
    panel shows 0, not "No data", on a site that never waited."""
    from storeplatform.api import hookimpl

    class Plugin:
        @hookimpl
        def storeplatform_includeme(config):
            config.add_scrape_gauge("test_at_zero", "A value.", lambda registry: 1)

    make_site(plugins=[Plugin], **ON, **{"storeplatform.plugins": "thirdparty_tasks"})
    metrics.flush()
    for name, labels in [("storeplatform_db_pool_waits_total", {"process": "web"}),
                         ("storeplatform_db_pool_waits_total", {"process": "worker"}),
                         ("storeplatform_db_pool_timeouts_total", {"process": "web"}),
                         ("storeplatform_db_pool_timeouts_total", {"process": "worker"}),
                         ("storeplatform_db_pool_size", {"process": "worker"}),
                         ("storeplatform_db_pool_checked_out", {"process": "worker"}),
                         ("storeplatform_metrics_scrape_errors_total", {"gauge": "storeplatform_tasks_pending"}),
                         ("storeplatform_metrics_scrape_errors_total", {"gauge": "storeplatform_test_at_zero"}),
                         ("storeplatform_task_runs_total", {"task": "thirdparty_tasks.record", "outcome": "error"}),
                         ("storeplatform_task_duration_seconds_count", {"task": "thirdparty_tasks.record"})]:
        assert metrics.REGISTRY.get_sample_value(name, labels) is not None, (name, labels)


def test_the_pool_gauges_are_those_of_the_kind_the_process_is_now(make_site):
    """A standalone worker sizes its pool before it says it is a worker: its pool is counted as
    a worker's only, not a web process's too (the gauges are written under the kind the
    process is when they are written)."""
    from storeplatform.components.observability import observers

    site = make_site(**ON)
    site.app.get("/api/store/v1/products", headers=site.headers_for("administrator"))
    pool = site.engine.pool
    assert sample("storeplatform_db_pool_size", process="web") == pool.size() > 0
    try:
        observers.set_kind("worker")
        assert sample("storeplatform_db_pool_size", process="worker") == pool.size()
        assert sample("storeplatform_db_pool_size", process="web") == 0
        assert sample("storeplatform_db_pool_checked_out", process="web") == 0
    finally:
        observers.set_kind("web")
    assert sample("storeplatform_db_pool_size", process="web") == pool.size()
    assert sample("storeplatform_db_pool_size", process="worker") == 0


FORKED = """
import os, sys, time
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from storeplatform.components.observability import metrics
from storeplatform.core.metrics import counter

metrics.install()
metrics.write_to_directory(sys.argv[1])
counted = counter("test_forked", "Counted in a forked child.")
metrics.pause_flushing()  # as a gunicorn master does before it forks its workers
pid = os.fork()
if pid == 0:
    counted.inc(3)
    time.sleep(metrics.FLUSH_SECONDS * 1.6)  # no flush called: the child's own thread writes
    os._exit(0)  # no exit handler either (what SIGKILL does)
os.waitpid(pid, 0)
values = CollectorRegistry()
MultiProcessCollector(values, sys.argv[1])
print(generate_latest(values).decode())
"""


def test_a_forked_process_writes_its_batches_every_second(tmp_path):
    """A gunicorn worker, forked from the master that chose the directory, starts its own
    thread writing its batches: another process's scrape sees its counts a second later, not
    only when the worker answers a scrape or exits."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", FORKED, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "storeplatform_test_forked_total 3.0" in proc.stdout.splitlines(), proc.stdout


def test_the_default_directory_is_made_owner_only(tmp_path):
    import os

    from storeplatform.components.observability import multiprocess

    path = tmp_path / "var" / "metrics"
    old = os.umask(0o022)
    try:
        assert multiprocess.owner_only(str(path)) == str(path)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o700
    path.chmod(0o755)  # made before by hand: made owner-only again
    multiprocess.owner_only(str(path))
    assert path.stat().st_mode & 0o777 == 0o700
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with pytest.raises(ValueError) as raised:
        multiprocess.owner_only(str(blocked / "var" / "metrics"))
    assert str(raised.value).startswith(f"storeplatform.metrics_dir is not set and its default {blocked}/var/metrics "
                                        "cannot be made owner-only") and "\n" not in str(raised.value)


def test_gunicorn_with_several_workers_shares_a_default_directory_under_var(database, tmp_path):
    """development.ini turned to gunicorn with 2 workers, no metrics_dir: the workers write to
    var/metrics beside the ini, made owner-only, and one scrape counts both workers' requests."""
    import http.client
    import os
    import signal
    import subprocess
    import sys
    import time

    from storeplatform.testing import cli_environ, queue_url
    from storeplatform.testing_served import bound_port

    text = (ROOT / "development.ini").read_text()
    assert not re.search(r"^storeplatform\.metrics_dir", text, flags=re.M)
    text, count = re.subn(r"^use = egg:storeplatform#waitress$", "use = egg:storeplatform#gunicorn\nworkers = 2",
                          text, flags=re.M)
    assert count == 1
    ini = tmp_path / "development.ini"
    ini.write_text(text)
    env = {**cli_environ(), "STOREPLATFORM_DATABASE_URL": database.url, "STOREPLATFORM_HUEY_URL": queue_url(tmp_path),
           "STOREPLATFORM_SECRET": database.secret}
    log = tmp_path / "server.log"
    port = None  # the one the server binds (http_port=0), read back from its socket

    def get(path):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", path)
            res = conn.getresponse()
            return res.status, res.read().decode()
        finally:
            conn.close()

    with open(log, "wb") as out:
        server = subprocess.Popen([str(Path(sys.executable).with_name("pserve")), str(ini), "http_port=0"],
                                  env=env, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        port = bound_port(server, output=log.read_text)
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, log.read_text()
            try:
                if get("/readyz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        directory = tmp_path / "var" / "metrics"
        assert directory.is_dir() and directory.stat().st_mode & 0o777 == 0o700
        _, before = get("/metrics")
        for _ in range(20):  # a connection each: both workers answer some
            assert get("/healthz")[0] == 200
        time.sleep(metrics.FLUSH_SECONDS * 1.5)
        status, after = get("/metrics")
        assert status == 200, after

        def healthz(text):
            return sum(s.value for family in text_string_to_metric_families(text) for s in family.samples
                       if s.name == "storeplatform_http_requests_total" and s.labels["route"] == "healthz")

        assert healthz(after) - healthz(before) == 20
        pids = {int(p.stem.rsplit("_", 1)[1]) for p in directory.glob("counter_*.db")}
        assert len(pids - {server.pid}) == 2, pids
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)
    assert "Traceback" not in log.read_text(), log.read_text()


def test_the_grafana_dashboard_queries_only_metrics_the_site_exposes(make_site):
    site = make_site(**ON, **{"storeplatform.plugins": "invoicing pricecalc events",
                              "storeplatform.metrics_token": TOKEN})
    site.app.get("/healthz")
    _, text = scrape(site)
    exposed = set(re.findall(r"^# TYPE (\w+) (\w+)", text, flags=re.M))
    names = set()
    for name, kind in exposed:
        names.add(name)
        if kind == "histogram":
            names |= {f"{name}_bucket", f"{name}_sum", f"{name}_count"}
    dashboard = json.loads((ROOT / "docs" / "grafana" / "storeplatform.json").read_text())
    assert dashboard["title"] and dashboard["uid"] and dashboard["schemaVersion"] >= 30
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    expressions = [t["expr"] for p in panels for t in p.get("targets", [])]
    assert len(panels) >= 12 and all(p.get("targets") for p in panels)
    queried = {m for expr in expressions for m in re.findall(r"\bstoreplatform_\w+", expr)}
    assert queried and queried <= names, sorted(queried - names)
    # Every family of the site's own is plotted (the dashboard keeps up with the metrics).
    families = {name for name, _ in exposed
                if name.startswith("storeplatform_") and not name.startswith("storeplatform_test_")}
    plotted = {name for name in families if any(q == name or q.startswith(name + "_") for q in queried)}
    assert plotted == families, sorted(families - plotted)
