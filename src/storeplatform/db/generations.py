"""Generations: a counter per kind of data (``content``: posts, terms, post terms), bumped in
the database by every transaction that changes that data (migration sp0004), and what is cached
by them: values derived from the data, such as list totals, kept per process and keyed by the
generation read in the same transaction before the value was computed. A cached value is thus
never older than the generation it is filed under, and a committed write moves the generation on
for every process at once.
"""
import threading

from sqlalchemy import BigInteger, Column, String, Table, select

from .meta import metadata

generations = Table("generations", metadata, Column("name", String(40), primary_key=True),
                    Column("value", BigInteger, nullable=False))

# Entries per process: a cap, not a policy (old generations are never read again).
CACHE_SIZE = 2048
_INFO_KEY = "generations"


def generation(session, name):
    """The committed generation of ``name`` as this transaction sees it, read once per transaction."""
    seen = session.info.setdefault(_INFO_KEY, {})
    if name not in seen:
        seen[name] = session.execute(select(generations.c.value).where(generations.c.name == name)).scalar() or 0
    return seen[name]


class GenerationCache:
    """Values computed from the data of a generation, by (generation, key)."""

    def __init__(self, size=CACHE_SIZE):
        self.size = size
        self._values = {}
        self._lock = threading.Lock()

    def get_or_compute(self, session, name, key, compute):
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
