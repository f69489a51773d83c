"""Generations: a counter per kind of data (``content``: posts, terms, post terms), bumped in
the database by every transaction that changes that data (migration sp0004), and what is cached
by them: values derived from the data, such as list totals, kept per process and keyed by the
generation read in the same transaction before the value was computed. A cached value is thus
never older than the generation it is filed under, and a committed write moves the generation
on for every process at once. A transaction that has written anything computes afresh: it must
see its own writes, which no generation counts before commit.
"""
import threading

from sqlalchemy import BigInteger, Column, String, Table, event, select

from .meta import metadata

generations = Table("generations", metadata, Column("name", String(40), primary_key=True),
                    Column("value", BigInteger, nullable=False))

# Entries per process: a cap, not a policy (old generations are never read again).
CACHE_SIZE = 2048
_INFO_KEY = "generations"
_WRITTEN = "generations.written"


def generation(session, name):
    """The committed generation of ``name`` as this transaction sees it; every generation is read
    with one query, once per transaction."""
    seen = session.info.get(_INFO_KEY)
    if seen is None:
        seen = session.info[_INFO_KEY] = dict(session.execute(select(generations.c.name, generations.c.value)).all())
    return seen.get(name, 0)


def track_writes(session_factory):
    """Mark the sessions of ``session_factory`` that flushed or executed anything but a SELECT."""
    def flushed(session, flush_context):
        session.info[_WRITTEN] = True

    def executed(state):
        if not state.is_select:
            state.session.info[_WRITTEN] = True

    def ended(session, transaction):
        if transaction.parent is None:
            session.info.pop(_WRITTEN, None)
            session.info.pop(_INFO_KEY, None)

    event.listen(session_factory, "after_flush", flushed)
    event.listen(session_factory, "do_orm_execute", executed)
    event.listen(session_factory, "after_transaction_end", ended)


class GenerationCache:
    """Values computed from the data of a generation, by (generation, key)."""

    def __init__(self, size=CACHE_SIZE):
        self.size = size
        self._values = {}
        self._lock = threading.Lock()

    def get_or_compute(self, session, name, key, compute):
        if session.info.get(_WRITTEN):
            return compute()
        entry = (name, generation(session, name), key)
        try:
            return self._values[entry]
        except KeyError:
            pass
        value = compute()
        with self._lock:
            if len(self._values) >= self.size:
                self._values.clear()
            self._values[entry] = value
        return value


def statement_key(stmt):
    """A hashable key of a statement and its parameter values (SQLAlchemy's own cache key)."""
    cache_key = stmt._generate_cache_key()
    return cache_key.key, tuple(repr(p.effective_value) for p in cache_key.bindparams)


def cached_by_generation(session, name, key, compute):
    """``compute()``, or its value from a transaction that saw the same generation of ``name``."""
    registry = session.info["registry"]
    cache = registry.get("db.generation_cache")
    if cache is None:
        cache = registry.setdefault("db.generation_cache", GenerationCache())
    return cache.get_or_compute(session, name, key, compute)
