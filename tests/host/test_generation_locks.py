"""Two transactions that write the same generations in opposite orders commit side by side: on
PostgreSQL each generation's row is bumped at commit (a deferred trigger, in the order the rows
were written), so without a common order the two would wait for each other's row and one would
die as a deadlock (a 500 to its client). On a new site the rows do not exist yet: each round starts
without them, as the first writes of a site do."""
import threading
import uuid
from decimal import Decimal

import pytest
from sqlalchemy import delete, select

from storeplatform.core.db.generations import generation, generations
from storeplatform.components.shop.models import Order, Post

ROUNDS = 30


def write(site, first, barrier, failures):
    try:
        with site.session() as session:
            for kind in (first, "order" if first == "post" else "post"):
                if kind == "post":
                    session.add(Post(post_type="post", title="t"))
                else:
                    session.add(Order(order_key=uuid.uuid4().hex, currency="USD", total=Decimal("1.00"), billing={}))
                session.flush()
            barrier.wait(timeout=10)  # both hold their rows; now both commit at once
    except Exception as exc:  # noqa: BLE001 - the test counts every failure
        failures.append(exc)


def test_opposite_orders_of_writes_commit_without_a_deadlock(make_site):
    site = make_site()
    if site.engine.dialect.name != "postgresql":
        pytest.skip("SQLite's writers take turns (one write lock): no two transactions commit side by side")
    failures = []
    for _ in range(ROUNDS):
        with site.session() as session:
            session.execute(delete(generations).where(generations.c.name.in_(["content", "store"])))
        barrier = threading.Barrier(2)
        threads = [threading.Thread(target=write, args=(site, first, barrier, failures)) for first in ("post", "order")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    assert failures == []
    with site.session() as session:
        assert len(session.execute(select(Post.id)).all()) == ROUNDS * 2
        after = (generation(session, "content"), generation(session, "store"))
    # Both transactions of the last round moved both generations on, once each.
    assert after == (2, 2)
