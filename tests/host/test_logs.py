"""Request ids and logs: an id on every request (a trusted proxy's, else a new one), in the
response and on every record of the request; one access record per request; JSON lines."""
import json
import logging
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from storeplatform.core.logs import JsonFormatter
from storeplatform.testing import cli_environ, run_cli
from storeplatform.testing_served import bound_port

BIN = Path(sys.executable).parent


def test_each_request_gets_an_id_and_one_access_record(site, caplog):
    caplog.set_level(logging.INFO, logger="storeplatform.access")
    first = site.app.get("/api/", status=200)
    second = site.app.get("/api/store/v1/nothing", status=404)
    ids = [first.headers["X-Request-ID"], second.headers["X-Request-ID"]]
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids) and ids[0] != ids[1]
    records = [r for r in caplog.records if r.name == "storeplatform.access"]
    assert [(r.method, r.path, r.status, r.request_id) for r in records] == [
        ("GET", "/api/", 200, ids[0]), ("GET", "/api/store/v1/nothing", 404, ids[1])]
    assert records[0].bytes == len(first.body) and records[0].duration_ms >= 0


def test_new_ids_differ_between_requests_and_between_forked_workers(site):
    import os

    ids = [site.app.get("/api/").headers["X-Request-ID"] for _ in range(3)]
    assert len(set(ids)) == 3
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # a forked worker, as gunicorn makes them
        try:
            os.write(write, site.app.get("/api/").headers["X-Request-ID"].encode())
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    forked = os.read(read, 64).decode()
    assert re.fullmatch(r"[0-9a-f]{32}", forked)
    # The counter part may coincide; the process's random half must not.
    assert forked[:16] != ids[0][:16] and forked not in ids


def _access_records(caplog):
    return [r for r in caplog.records if r.name == "storeplatform.access"]


def test_an_access_record_holds_what_a_record_of_logger_info_holds(site, caplog):
    """Made from the thread's first record (what differs is changed): every field of the logging
    module's records, with this request's time, and the process's and thread's own ids."""
    import os
    import threading

    caplog.set_level(logging.INFO, logger="storeplatform.access")
    before = time.time()
    for path in ("/api/", "/api/store/v1/nothing"):
        site.app.get(path, status="*")
        time.sleep(0.002)
    after = time.time()
    first, second = _access_records(caplog)
    made = logging.getLogger("storeplatform.access").makeRecord(
        "storeplatform.access", logging.INFO, __file__, 0, "%s", ("x",), None).__dict__
    assert set(made) <= set(vars(second))
    assert (second.process, second.thread, second.levelname, second.levelno) == (
        os.getpid(), threading.get_ident(), "INFO", logging.INFO)
    assert before <= first.created < second.created <= after
    assert second.msecs == int((second.created % 1) * 1000)
    assert abs((second.relativeCreated - first.relativeCreated) - (second.created - first.created) * 1000) < 1e-3
    assert second.getMessage().startswith("GET /api/store/v1/nothing 404 ") and second.path != first.path
    assert (first.status, second.status) == (200, 404)  # each record its own fields


def test_a_plugins_record_factory_makes_the_access_records(site, caplog):
    caplog.set_level(logging.INFO, logger="storeplatform.access")
    ours = logging.getLogRecordFactory()

    def marking(*args, **kwargs):
        record = ours(*args, **kwargs)
        record.marked = True
        return record

    logging.setLogRecordFactory(marking)
    try:
        response = site.app.get("/api/")
    finally:
        logging.setLogRecordFactory(ours)
    (record,) = _access_records(caplog)
    assert record.marked and record.request_id == response.headers["X-Request-ID"] and record.status == 200


def test_a_forked_workers_access_records_carry_its_own_process(site, caplog):
    import os

    caplog.set_level(logging.INFO, logger="storeplatform.access")
    site.app.get("/api/")  # the parent's thread has its record's fields kept
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            site.app.get("/api/")
            os.write(write, str(_access_records(caplog)[-1].process).encode())
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert int(os.read(read, 64)) == child


def test_an_id_is_taken_only_from_a_trusted_proxy(make_site):
    site = make_site(**{"storeplatform.trusted_proxies": "10.0.0.0/8"})
    proxied = {"REMOTE_ADDR": "10.1.2.3"}
    assert site.app.get("/api/", headers={"X-Request-ID": "lb-42"}, extra_environ=proxied
                        ).headers["X-Request-ID"] == "lb-42"
    direct = site.app.get("/api/", headers={"X-Request-ID": "lb-42"}, extra_environ={"REMOTE_ADDR": "192.0.2.7"})
    assert direct.headers["X-Request-ID"] != "lb-42"
    bad = site.app.get("/api/", headers={"X-Request-ID": "x" * 200}, extra_environ=proxied)
    assert re.fullmatch(r"[0-9a-f]{32}", bad.headers["X-Request-ID"])


def test_json_lines_of_a_production_style_server(tmp_path, database):
    ini = tmp_path / "site.ini"
    production = (Path(__file__).resolve().parents[2] / "config" / "production.ini").read_text()
    logging_part = production[production.index("[loggers]"):]
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = sqlite:///{tmp_path}/db.sqlite
huey.url = memory://
storeplatform.secret = {"s" * 32}

[server:main]
use = egg:storeplatform#waitress
host = 127.0.0.1
port = 0

{logging_part}""")
    env = cli_environ()
    assert run_cli("-c", str(ini), "migrate").returncode == 0  # in-process (cli.main): the server is the process here
    server = subprocess.Popen([BIN / "pserve", ini], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        port = bound_port(server)  # port 0: the one it bound itself, read back from its socket
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as res:
                    request_id = res.headers["X-Request-ID"]
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "no answer"
                time.sleep(0.2)
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=30)
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    access = [line for line in lines if line["logger"] == "storeplatform.access"]
    assert access and access[-1]["request_id"] == request_id
    assert {k: access[-1][k] for k in ("level", "method", "path", "status")} == {
        "level": "INFO", "method": "GET", "path": "/healthz", "status": 200}
    assert set(access[-1]) >= {"time", "message", "duration_ms", "bytes"}


def test_the_json_formatter_writes_one_object_per_line_with_the_traceback():
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("x").makeRecord("x", logging.ERROR, __file__, 1, "failed %s", ("here",),
                                                   sys.exc_info())
    line = JsonFormatter().format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert data["message"] == "failed here" and data["level"] == "ERROR" and "ValueError: boom" in data["exception"]


def test_a_task_logs_with_the_id_of_the_request_that_enqueued_it(make_site, caplog):
    caplog.set_level(logging.INFO)
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks"})
    res = site.app.post_json("/api/store/v1/thirdparty/jobs", {"value": "traced"}, status=202)
    task_records = [r for r in caplog.records if r.name == "sp_thirdparty.tasks"]
    assert [(r.getMessage(), r.request_id) for r in task_records] == [("recorded traced", res.headers["X-Request-ID"])]


def test_every_500_leaves_one_line_with_its_request_id_and_cause(make_site, caplog):
    """Unhandled, a catalogue 500 raised while handling another error, a domain error translated
    to a 500, and an admin page's error: each answer's one ERROR record names the request's id,
    the route and the cause (issue #44: a check-in's 500 left nothing in the log)."""
    from webtest import TestApp

    from storeplatform.core.errors import ErrorCode

    class DoorJammed(Exception):
        pass

    failed = ErrorCode(500, "test_failed", "It failed.")
    site = make_site()

    def unhandled(request):
        raise RuntimeError("unhandled detail")

    def raised_from(request):
        try:
            {}["missing key"]
        except KeyError:
            raise failed()

    def domain(request):
        raise DoorJammed("the door is jammed")

    for name, view in (("unhandled", unhandled), ("raised-from", raised_from), ("domain", domain)):
        site.config.add_route(name, f"/api/store/v1/{name}")
        site.config.add_view(view, route_name=name)
    site.config.add_error_translation(DoorJammed, lambda exc: failed("The door failed."))
    site.config.add_route("admin-boom", "/admin/boom")
    site.config.add_view(unhandled, route_name="admin-boom")
    site.config.commit()
    app = TestApp(site.config.make_wsgi_app())
    caplog.set_level(logging.INFO)
    expected = {"/api/store/v1/unhandled": ("rest_internal_error", "RuntimeError('unhandled detail')"),
                "/api/store/v1/raised-from": ("test_failed", "KeyError('missing key')"),
                "/api/store/v1/domain": ("test_failed", "DoorJammed('the door is jammed')"),
                "/admin/boom": ("unhandled error on an admin page", "RuntimeError('unhandled detail')")}
    for path, (what, cause) in expected.items():
        caplog.clear()
        res = app.get(path, status=500)
        assert "detail" not in res.text and "jammed" not in res.text and "Traceback" not in res.text
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1, (path, [r.getMessage() for r in errors])
        (record,) = errors
        assert record.request_id == res.headers["X-Request-ID"]
        assert record.getMessage() == f"GET {path!r} answered 500 {what}: {cause}", record.getMessage()


def test_the_text_format_of_development_ini_writes_the_request_id():
    """development.ini's format shows ``%(request_id)s``; a record made before the site installed
    its record factory (pserve's first lines) is written with ``-`` instead of failing."""
    import configparser

    from storeplatform.core.logs import TextFormatter

    ini = configparser.RawConfigParser()
    ini.read(Path(__file__).resolve().parents[2] / "development.ini")
    assert ini["formatter_generic"]["class"] == "storeplatform.core.logs.TextFormatter"
    formatter = TextFormatter(ini["formatter_generic"]["format"])
    plain = logging.LogRecord("x", logging.INFO, __file__, 1, "hello", None, None)
    assert formatter.format(plain).endswith("[x][MainThread][-][-] hello")
    plain.request_id = "abc123"
    assert formatter.format(plain).endswith("[x][MainThread][abc123][-] hello")
