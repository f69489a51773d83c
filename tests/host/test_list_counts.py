"""Counts the database keeps (db/counts.py, #30): exact after any writes, also written at once by
many transactions, whichever backend; made and checked by migrate and readiness like the
generation triggers."""
import random
import threading
from decimal import Decimal

import pytest
from sqlalchemy import text

from storeplatform.core.db.counts import (
    count_rows,
    emit_count_triggers,
    fold_ended_slots,
    kept_counts,
    true_counts,
)
from storeplatform.core.health import migrations_check
from storeplatform.testing import wait_for
from storeplatform.components.shop.models import Order, Post

POST_TYPES = ("page", "note", "evt_event")
POST_STATUSES = ("publish", "draft", "pending", "private", "trash")
ORDER_STATUSES = ("pending", "processing", "completed", "cancelled")


def assert_exact(engine):
    with engine.connect() as c:
        for table, columns in (("posts", ("post_type", "status")), ("orders", ("status",))):
            assert kept_counts(c, table, columns) == true_counts(c, table, columns), table


def write_some(connection, rng, owner):
    """A few random changes of ``owner``'s posts or of its orders (rows others do not write:
    what concurrent writers share are the counts, not the rows) in the caller's transaction,
    in random order. (Of one table's: a transaction writing posts and orders bumps the content
    and store generations at commit in the order it wrote them, and two doing so in opposite
    orders can deadlock on the generations' rows, counts or not.)"""
    orders = rng.random() < 0.35
    mine = {"owner": str(owner)}
    for _ in range(rng.randint(1, 4)):
        choice = 0.75 + rng.random() / 4 if orders else rng.random() * 0.75
        if choice < 0.35:
            connection.execute(text(
                "INSERT INTO posts (post_type, title, slug, content, excerpt, status, created_at, modified_at) "
                "VALUES (:t, :owner, :slug, '', '', :s, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
                {**mine, "t": rng.choice(POST_TYPES), "s": rng.choice(POST_STATUSES), "slug": f"p{rng.random()}"})
        elif choice < 0.55:
            connection.execute(text("UPDATE posts SET status = :s WHERE id IN (SELECT id FROM posts WHERE title = "
                                    ":owner ORDER BY id LIMIT 3 OFFSET :o)"),
                               {**mine, "s": rng.choice(POST_STATUSES), "o": rng.randint(0, 10)})
        elif choice < 0.65:
            connection.execute(text("UPDATE posts SET post_type = :t, status = :s WHERE id = (SELECT max(id) FROM "
                                    "posts WHERE title = :owner)"),
                               {**mine, "t": rng.choice(POST_TYPES), "s": rng.choice(POST_STATUSES)})
        elif choice < 0.75:
            connection.execute(text("DELETE FROM posts WHERE id IN (SELECT id FROM posts WHERE title = :owner "
                                    "ORDER BY id LIMIT 2 OFFSET :o)"), {**mine, "o": rng.randint(0, 10)})
        elif choice < 0.85:
            connection.execute(text(
                "INSERT INTO orders (status, order_key, currency, billing, total, created_at, modified_at) "
                "VALUES (:s, :k, 'EUR', '{}', :total, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
                {"s": rng.choice(ORDER_STATUSES), "k": f"{owner}-{rng.random()}",
                 "total": 100000 if connection.dialect.name == "sqlite" else Decimal("10")})
        elif choice < 0.96:
            connection.execute(text("UPDATE orders SET status = :s WHERE id IN (SELECT id FROM orders WHERE "
                                    "currency = 'EUR' AND order_key LIKE :prefix ORDER BY id DESC LIMIT 2 OFFSET :o)"),
                               {"s": rng.choice(ORDER_STATUSES), "o": rng.randint(0, 5), "prefix": f"{owner}-%"})
        else:
            connection.execute(text("DELETE FROM orders WHERE id = (SELECT min(id) FROM orders WHERE order_key "
                                    "LIKE :prefix)"), {"prefix": f"{owner}-%"})


def test_the_counts_are_the_rows_after_random_writes_and_a_rollback(site):
    rng = random.Random(30)
    for serial in range(60):
        with site.engine.begin() as connection:
            write_some(connection, rng, serial % 3)
    assert_exact(site.engine)
    with site.engine.connect() as connection:
        transaction = connection.begin()
        write_some(connection, rng, "rolled back")
        connection.execute(text("DELETE FROM posts"))
        transaction.rollback()
    assert_exact(site.engine)
    with site.engine.begin() as connection:  # savepoints: what one rolls back is not counted
        write_some(connection, rng, "kept")
        with connection.begin_nested() as savepoint:
            connection.execute(text("DELETE FROM orders"))
            savepoint.rollback()
    assert_exact(site.engine)


def test_the_counts_are_exact_under_concurrent_writes(make_site):
    """Eight threads write posts and orders at once, each transaction a few changes in random
    order (creates, deletes, status changes of rows others change too): no write fails (no
    deadlock on a counter) and the counts are the rows."""
    site = make_site(**{"sqlalchemy.pool_size": "12"})
    with site.engine.begin() as connection:
        write_some(connection, random.Random(1), "seed")
    failures = []
    start = threading.Barrier(8)

    def writer(n):
        rng = random.Random(n)
        start.wait()
        for _ in range(40):
            try:
                with site.engine.begin() as connection:
                    write_some(connection, rng, f"w{n}")
            except Exception as exc:  # any failure fails the test, with what it was
                failures.append(repr(exc))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert_exact(site.engine)
    with site.engine.connect() as c:
        true = true_counts(c, "posts", ("post_type", "status"))
    with site.session() as session:
        for (post_type, status), n in true.items():
            assert count_rows(session, Post, post_type=post_type, status=status) == n
        assert count_rows(session, Post, post_type="note") == sum(n for (t, _), n in true.items() if t == "note")
        assert count_rows(session, Post, post_type="note", status=("draft", "trash")) == sum(
            n for (t, s), n in true.items() if t == "note" and s in ("draft", "trash"))
        assert count_rows(session, Post, status=()) == 0
        assert count_rows(session, Order) == session.execute(text("SELECT count(*) FROM orders")).scalar()


NOTE_DRAFT = "name = 'posts:post_type,status' AND k1 = 'note' AND k2 = 'draft'"


def insert_note(connection, slug):
    connection.execute(text(
        "INSERT INTO posts (post_type, title, slug, content, excerpt, status, created_at, modified_at) "
        "VALUES ('note', 'x', :slug, '', '', 'draft', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"), {"slug": slug})


def slots_of_note_drafts(engine):
    with engine.connect() as connection:
        return dict(connection.execute(text(f"SELECT slot, n FROM list_counts WHERE {NOTE_DRAFT}")).all())


def wait_until_ended(engine, pids):
    with engine.connect() as connection:
        wait_for(lambda: not connection.execute(text("SELECT pid FROM pg_stat_activity WHERE pid = ANY(:pids)"),
                                                {"pids": list(pids)}).all(), timeout=5)


def test_a_key_keeps_a_row_per_connection_and_the_fold_leaves_one(site):
    """300 transactions of one key: PostgreSQL keeps one row per server process that wrote it
    (added to in place), SQLite one row; once those connections are closed the periodic fold
    leaves the key one row, and the count reads the same throughout."""
    assert "storeplatform.fold_counts" in site.periodic_task_names()
    postgresql = site.engine.dialect.name == "postgresql"
    pids = set()
    for serial in range(300):
        with site.engine.begin() as connection:
            insert_note(connection, f"n{serial}")
            if postgresql:
                pids.add(connection.execute(text("SELECT pg_backend_pid()")).scalar())
    slots = slots_of_note_drafts(site.engine)
    assert sum(slots.values()) == 300
    assert set(slots) == (pids if postgresql else {0})
    with site.session() as session:
        assert count_rows(session, Post, post_type="note", status="draft") == 300
    if postgresql:
        site.engine.dispose()  # the pool's connections end; their rows are left to the fold
        wait_until_ended(site.engine, pids)
    site.run_task("storeplatform.fold_counts")
    assert slots_of_note_drafts(site.engine) == {0: 300}
    with site.session() as session:
        assert count_rows(session, Post, post_type="note", status="draft") == 300
    assert_exact(site.engine)


def test_two_transactions_writing_one_key_do_not_wait_for_each_other(site):
    """Each writes its own process's row: the second inserts while the first holds its row,
    with a lock timeout that a wait would hit."""
    if site.engine.dialect.name != "postgresql":
        pytest.skip("SQLite's writers take turns on its one lock: two never write at once")
    with site.engine.connect() as first, site.engine.connect() as second:
        with first.begin():
            insert_note(first, "first")
            with second.begin():
                second.execute(text("SET LOCAL lock_timeout = '2s'"))
                insert_note(second, "second")
    with site.session() as session:
        assert count_rows(session, Post, post_type="note", status="draft") == 2
    assert_exact(site.engine)


def test_the_fold_takes_no_row_a_transaction_holds_and_waits_for_none(site):
    """A row of an ended process that a transaction holds (as a new process reusing its pid
    would) is left to the next fold; the fold does not wait for it."""
    if site.engine.dialect.name != "postgresql":
        pytest.skip("SQLite keeps one row per key: it has no rows of ended processes to fold")
    with site.engine.begin() as connection:
        insert_note(connection, "kept")
        connection.execute(text(f"UPDATE list_counts SET slot = 2147483000 WHERE {NOTE_DRAFT}"))
    with site.engine.connect() as holder:
        with holder.begin():
            holder.execute(text("SELECT n FROM list_counts WHERE slot = 2147483000 FOR UPDATE"))
            with site.engine.begin() as connection:
                connection.execute(text("SET LOCAL lock_timeout = '2s'"))
                assert fold_ended_slots(connection) == 0
    assert slots_of_note_drafts(site.engine) == {2147483000: 1}
    with site.engine.begin() as connection:
        assert fold_ended_slots(connection) == 1
    assert slots_of_note_drafts(site.engine) == {0: 1}
    assert_exact(site.engine)


def test_migrate_counts_the_rows_already_there_and_readiness_checks_the_triggers(site):
    with site.engine.begin() as connection:
        write_some(connection, random.Random(7), "before")
        postgresql = connection.dialect.name == "postgresql"
        connection.exec_driver_sql("DROP TRIGGER sp_counts_posts_insert" + (" ON posts" if postgresql else ""))
        connection.exec_driver_sql("DELETE FROM list_counts")
        assert migrations_check(site.registry, connection) == (
            "not counting what the models declare (count triggers of posts): run storeplatform -c INI migrate")
        assert emit_count_triggers(connection) == ["posts"]
        assert emit_count_triggers(connection) == []  # made once
        assert migrations_check(site.registry, connection) == "ok"
        connection.execute(text("DELETE FROM list_counts WHERE name = 'orders:status'"))
        connection.exec_driver_sql("DROP TRIGGER sp_counts_orders_update" + (" ON orders" if postgresql else ""))
        assert emit_count_triggers(connection) == ["orders"]
        if postgresql:  # the function the triggers call, changed in place (and the earlier design's fold)
            connection.exec_driver_sql("CREATE OR REPLACE FUNCTION sp_counts_posts() RETURNS trigger "
                                       "LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$")
            connection.exec_driver_sql("CREATE OR REPLACE FUNCTION sp_fold_count(p_name text, p_k1 text, p_k2 text) "
                                       "RETURNS void LANGUAGE plpgsql AS $$ BEGIN END $$")
            assert migrations_check(site.registry, connection).startswith("not counting what the models declare")
            assert emit_count_triggers(connection) == ["posts"]
            assert migrations_check(site.registry, connection) == "ok"
            assert connection.exec_driver_sql("SELECT count(*) FROM pg_proc WHERE proname = 'sp_fold_count'"
                                              ).scalar() == 0
    assert_exact(site.engine)


def test_a_count_is_read_under_the_counted_table_s_generation(site):
    """The host's cache files a read of a count as a read of the table it counts: reading one
    inside a cached computation is no uncounted read, and the kept value moves with the table."""
    from storeplatform.core.cache import cached

    @cached
    def drafts(session):
        return count_rows(session, Post, post_type="note", status="draft")

    with site.session() as session:
        assert drafts(session) == 0
    with site.engine.begin() as connection:
        write_some(connection, random.Random(3), "a")
        connection.execute(text(
            "INSERT INTO posts (post_type, title, slug, content, excerpt, status, created_at, modified_at) "
            "VALUES ('note', 'x', 'n', '', '', 'draft', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"))
    with site.session() as session:
        assert drafts(session) == count_rows(session, Post, post_type="note", status="draft") >= 1
