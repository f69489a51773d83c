"""Kept counts checked against their rows and repaired (#42): rows written with the triggers off
(a restore with --disable-triggers, a bulk load as a replica) leave them wrong; ``counts check``
names each difference, ``counts repair`` rewrites them in one transaction, also beside live
writers; readiness warns on demand and the start-up summary at start-up."""
import contextlib
import random
import threading

from sqlalchemy import text

from storeplatform.core import health
from storeplatform.core.db.count_repair import count_differences, repair_counts
from storeplatform.core.startup import ready_summary

from .test_list_counts import write_some


@contextlib.contextmanager
def triggers_off(engine):
    """A transaction whose writes fire no count trigger: on PostgreSQL as a replica applies them
    (``session_replication_role = replica``: what pg_restore --disable-triggers and bulk loads
    do); on SQLite, which has no such switch, with the count triggers dropped and made again,
    as they were, around it."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql("SET LOCAL session_replication_role = replica")
            yield connection
            return
        triggers = connection.exec_driver_sql(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sp_counts_%'").all()
        assert triggers
        for name, _ in triggers:
            connection.exec_driver_sql(f"DROP TRIGGER {name}")
        yield connection
        for _, sql in triggers:
            connection.exec_driver_sql(sql)


def add_order(connection, status, key):
    connection.execute(text(
        "INSERT INTO orders (status, order_key, currency, billing, total, created_at, modified_at) "
        "VALUES (:s, :k, 'EUR', '{}', 10, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"), {"s": status, "k": key})


def add_post(connection, post_type, status, slug):
    connection.execute(text(
        "INSERT INTO posts (post_type, title, slug, content, excerpt, status, created_at, modified_at) "
        "VALUES (:t, 'x', :slug, '', '', :s, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
        {"t": post_type, "s": status, "slug": slug})


def break_counts(site):
    """Rows written with the count triggers on, then changed with them off. Returns the
    differences as ``counts check`` prints them (table, key, kept, rows)."""
    site.create_user("ed", "editor")
    with site.engine.begin() as connection:
        for n, status in enumerate(("pending", "pending", "completed")):
            add_order(connection, status, f"on-{n}")
        for n, (post_type, status) in enumerate((("page", "publish"), ("page", "publish"), ("note", "draft"))):
            add_post(connection, post_type, status, f"on-{n}")
    with site.engine.connect() as connection:
        assert count_differences(connection) == []
    with triggers_off(site.engine) as connection:
        for n in range(3):
            add_order(connection, "processing", f"off-{n}")
        connection.execute(text("DELETE FROM orders WHERE order_key = 'on-0'"))
        connection.execute(text("DELETE FROM posts WHERE slug = 'on-0'"))
        connection.execute(text("UPDATE posts SET status = 'publish' WHERE slug = 'on-2'"))
        connection.execute(text("UPDATE users SET role = 'author' WHERE login = 'ed'"))
    return [["orders", "status=pending", "2", "1"],
            ["orders", "status=processing", "0", "3"],
            ["posts", "post_type=note", "status=draft", "1", "0"],
            ["posts", "post_type=note", "status=publish", "0", "1"],
            ["posts", "post_type=page", "status=publish", "2", "1"],
            ["users", "role=author", "0", "1"],
            ["users", "role=editor", "1", "0"]]


def orders_total(site, **query):
    res = site.app.get(site.url("/store/v1/orders"), query, headers=site.headers_for("administrator"))
    return int(res.headers["X-Total"])


def test_check_reports_the_differences_and_repair_rewrites_them(cli):
    site = cli.site
    site.headers_for("administrator")  # made with the triggers on
    check = cli("counts", "check")
    assert (check.returncode, check.stdout, check.stderr) == (0, "every kept count matches its rows\n", "")
    expected = break_counts(site)
    assert (orders_total(site), orders_total(site, status="processing")) == (3, 0)  # the kept counts: wrong

    check = cli("counts", "check", ok=False)
    assert check.returncode == 1 and check.stderr == ""
    lines = check.stdout.splitlines()
    assert lines[0].split() == ["TABLE", "KEY", "KEPT", "ROWS"]
    assert [line.split() for line in lines[1:-1]] == expected
    assert lines[-1] == (f"7 kept counts of orders, posts, users differ from their rows: storeplatform -c {cli.ini} "
                         "counts repair rewrites them")

    repair = cli("counts", "repair")
    lines = repair.stdout.splitlines()
    assert lines[0].split() == ["TABLE", "KEY", "WAS", "NOW"]
    assert [line.split() for line in lines[1:-1]] == expected
    assert lines[-1] == "repaired 7 kept counts of orders, posts, users"

    assert cli("counts", "check").stdout == "every kept count matches its rows\n"
    assert cli("counts", "repair").stdout == "every kept count matches its rows: nothing to repair\n"
    # The lists' totals are the rows again (the answers kept before the repair are not served).
    assert (orders_total(site), orders_total(site, status="processing"), orders_total(site, status="pending")) == (
        5, 3, 1)
    with site.engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM orders")).scalar() == 5


def test_the_counts_commands_say_their_errors_in_one_line(cli):
    proc = cli("counts", ok=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == ["storeplatform counts: the following arguments are required: "
                                                "ACTION"]
    proc = cli("counts", "fix", ok=False)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "invalid choice" in proc.stderr


def test_readiness_warns_on_demand_and_the_start_up_summary_names_the_command(site, monkeypatch, capsys):
    from storeplatform.server import _warn_of_counts

    monkeypatch.setattr(health, "COUNTS_EVERY", 0)
    plain = {"status": "ok", "checks": {"database": "ok", "migrations": "ok", "queue": "ok"}}
    assert site.app.get("/readyz?counts=1", status=200).json == {
        "status": "ok", "checks": {**plain["checks"], "counts": "ok"}}
    assert not any("counts:" in line for line in ready_summary(site.registry, "http://127.0.0.1:6543", None))
    _warn_of_counts(site.wsgi, {"__file__": "site.ini"})
    assert capsys.readouterr().err == ""
    break_counts(site)
    assert site.app.get("/readyz", status=200).json == plain  # never counted unless asked
    res = site.app.get("/readyz?counts=1", status=200)  # a warning: the site still serves
    assert res.json == {"status": "ok", "warnings": ["counts"], "checks": {**plain["checks"], "counts": (
        "7 kept counts of orders, posts, users differ from their rows: run storeplatform -c INI counts repair")}}
    [line] = [line for line in ready_summary(site.registry, "http://127.0.0.1:6543", "site.ini")
              if line.startswith("  counts:")]
    assert line.startswith("  counts:    7 kept counts of orders, posts, users differ from their rows (list totals "
                           "are wrong): repair them with ")
    assert line.endswith(" -c site.ini counts repair")
    _warn_of_counts(site.wsgi, {"__file__": "site.ini"})  # gunicorn's start-up: no summary, one line
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("storeplatform: warning: 7 kept counts of orders, posts, users differ from their rows")
    assert line.endswith(" -c site.ini counts repair")
    # Asked again within COUNTS_EVERY, the probe answers what it found (nobody makes it count at will).
    monkeypatch.setattr(health, "COUNTS_EVERY", 3600)
    with site.engine.begin() as connection:
        assert len(repair_counts(connection)) == 7
    assert site.app.get("/readyz?counts=1").json["checks"]["counts"].startswith("7 kept counts")
    monkeypatch.setattr(health, "COUNTS_EVERY", 0)
    assert site.app.get("/readyz?counts=1").json["checks"]["counts"] == "ok"
    assert not any("counts:" in line for line in ready_summary(site.registry, "http://127.0.0.1:6543", None))
    _warn_of_counts(site.wsgi, {"__file__": "site.ini"})
    assert capsys.readouterr().err == ""


def test_a_repair_beside_live_writers_ends_exact(make_site):
    """Six threads write posts and orders (the triggers on) while the counts, broken by writes
    with the triggers off, are repaired, several times over: no writer fails, and the counts
    end exact."""
    site = make_site(**{"sqlalchemy.pool_size": "12"})
    with site.engine.begin() as connection:
        write_some(connection, random.Random(1), "seed")
    with triggers_off(site.engine) as connection:
        for n in range(5):
            add_order(connection, "processing", f"off-{n}")
            add_post(connection, "note", "draft", f"off-{n}")
    with site.engine.connect() as connection:
        assert len(count_differences(connection)) >= 2
    failures, repaired = [], []
    writing, done = threading.Barrier(7), threading.Event()

    def writer(n):
        rng = random.Random(n)
        writing.wait()
        written = 0
        while not done.is_set() or written < 20:
            try:
                with site.engine.begin() as connection:
                    write_some(connection, rng, f"w{n}")
            except Exception as exc:  # any failure fails the test, with what it was
                failures.append(repr(exc))
            written += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    writing.wait()
    try:
        for _ in range(8):
            with site.engine.begin() as connection:
                repaired.append(repair_counts(connection))
    finally:
        done.set()
        for thread in threads:
            thread.join()
    assert failures == []
    # The first saw what the trigger-less writes left (in its snapshot, whatever the writers did
    # around it); the others, nothing: writes with the triggers on never look like a difference.
    drift = {(d.table, d.key): d.rows - d.kept for d in repaired[0]}
    assert drift == {("orders", ("processing",)): 5, ("posts", ("note", "draft")): 5}
    assert repaired[1:] == [[]] * 7
    with site.engine.connect() as connection:
        assert count_differences(connection) == []
