"""The host's cache: answers of services declared ``cache="public"`` and values of functions
declared ``@cached``, kept per process and keyed by the host, never by the plugin.

A key is made of what the caller asked (the route, the method, the query string and the
validated input; a function's arguments), what the answer depends on in the site state (the
site URL, the caller, the options, the site date) and the generations of the tables the
computation actually read. Those tables are recorded while it runs (every statement's compiled
form names its tables; ``DriverStatement`` names its own), and remembered per route (per
function): the next request of that route looks its answer up under the generations those tables belong
to (``Table.info["generation"]``, declared next to the models). A committed write moves them on
for every process (triggers that ``storeplatform migrate`` emits from the declarations); a
transaction that wrote one of the tables computes afresh (it must see its own writes).

What the recording cannot vouch for is not kept: a table no generation counts (an error under
the test suite: declare its generation, or do not cache the route), a statement written as
text, a filter hook a plugin implements (it may depend on anything), an answer that sets a
cookie. What depends on the clock beyond the date names the part of the state it asks
(``note_state``): a computation that asked whether a sale is active is keyed by the sale windows
open at the time (``store.products.sale_epoch``).

The answers of services are kept, tagged and revalidated by ``storeplatform.core.kept_answers``
on this module's ``cached_call``.
"""
import contextvars
import logging
import threading
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import event
from sqlalchemy.sql import visitors
from sqlalchemy.sql.elements import TextClause
from sqlalchemy.sql.schema import Table

from .db.generations import (EVERYTHING, generation, generation_tables, generations_seen, stored_options,
                             written_tables)
from .db.records import is_orm_instance
from .db.types import utcnow

log = logging.getLogger(__name__)

# Entries, bytes of kept bodies per process, and bytes one entry may hold: caps, not a policy.
CACHE_SIZE = 4096
CACHE_BYTES = 64 * 1024 * 1024
ENTRY_BYTES = 1024 * 1024
STRICT_SETTING = "storeplatform.cache_strict"  # under the test suite: an uncounted read raises

_READING = contextvars.ContextVar("storeplatform.cache.reading", default=None)
_CACHE_KEY = "cache.process"
_TRANSACTION_STATE = "cache.transaction_state"
_TABLES_ATTRIBUTE = "_storeplatform_tables"
_TRANSACTION_CONTROL = ("BEGIN", "SAVEPOINT", "RELEASE", "ROLLBACK", "COMMIT")


class UncountedRead(Exception):
    """A cached computation read a table no generation counts (raised under the test suite)."""


class Reading:
    """What a computation read while it ran: tables, the parts of the site state it asked
    (``note_state``), and why it cannot be kept (None while it can)."""
    __slots__ = ("tables", "state_parts", "refused")

    def __init__(self):
        self.tables = set()
        self.state_parts = set()
        self.refused = None

    def merge(self, tables, state_parts, refused):
        self.tables.update(tables)
        self.state_parts.update(state_parts)
        if self.refused is None:
            self.refused = refused


def start_reading():
    """Record what this thread reads from now on (a cached view's request, from its first
    validator); ``stop_reading`` ends it."""
    reading = Reading()
    _READING.set(reading)
    return reading


def stop_reading():
    _READING.set(None)


def note_tables(tables):
    """The running computation read ``tables`` (``DriverStatement``: statements on the driver)."""
    reading = _READING.get()
    if reading is not None:
        reading.tables.update(tables)


def note_state(part):
    """The running computation depends on ``part(session, now)`` (a hashable value of the site
    state, e.g. which sale windows are open): what it computed holds while that is the same."""
    reading = _READING.get()
    if reading is not None:
        reading.state_parts.add(part)


def refuse(reason):
    """The running computation depends on something the host cannot key: it is not kept."""
    reading = _READING.get()
    if reading is not None and reading.refused is None:
        reading.refused = reason


def includeme(config):
    """The site's engine names the tables of each statement it runs to the computation under
    way, if any."""
    event.listen(config.registry["db.engine"], "before_cursor_execute", _statement_run)


def _statement_run(conn, cursor, statement, parameters, context, executemany):
    reading = _READING.get()
    if reading is None or context is None:  # no computation; or the host's own driver statements
        return
    compiled = context.compiled
    if compiled is None:
        if not statement.lstrip().upper().startswith(_TRANSACTION_CONTROL):
            reading.refused = reading.refused or "a statement written as text"
        return
    tables = getattr(compiled, _TABLES_ATTRIBUTE, None)
    if tables is None:
        tables = statement_tables(compiled.statement)
        setattr(compiled, _TABLES_ATTRIBUTE, tables)
    if tables is EVERYTHING:
        reading.refused = reading.refused or "a statement written as text"
    else:
        reading.tables.update(tables)


def statement_tables(statement):
    """The names of the tables ``statement`` reads or writes, or ``EVERYTHING`` when part of it
    is text (which could name any)."""
    names = set()
    for element in visitors.iterate(statement):
        if isinstance(element, Table):
            names.add(element.name)
        elif isinstance(element, TextClause):
            return EVERYTHING
    return frozenset(names)


class _Learned:
    """What the computations of one route (or function) read, whatever their input: their tables,
    the generations that count
    them and the parts of the site state they asked (or why they are not kept)."""
    __slots__ = ("tables", "generations", "state_parts", "refused")

    def __init__(self, tables, generations, state_parts, refused):
        self.tables, self.generations = tables, generations
        self.state_parts, self.refused = state_parts, refused


class ProcessCache:
    """Kept values by key, the oldest dropped first beyond the caps; and what each route or
    function was seen to read (one record each: their number is bounded by the code)."""

    def __init__(self, size=CACHE_SIZE, max_bytes=CACHE_BYTES, entry_bytes=ENTRY_BYTES):
        self.size, self.max_bytes, self.entry_bytes = size, max_bytes, entry_bytes
        self._values = {}  # key -> (value, bytes)
        self._learned = {}  # route or function -> _Learned
        self.bytes = 0
        self._lock = threading.Lock()

    @property
    def entries(self):
        return len(self._values)

    def learn(self, session, kind, reading):
        with self._lock:  # two computations learning at once must not lose each other's tables
            return self._learn(session, kind, reading)

    def _learn(self, session, kind, reading):
        previous = self._learned.get(kind)
        tables = frozenset(reading.tables) if previous is None else previous.tables | reading.tables
        refused = reading.refused or (previous.refused if previous is not None else None)
        counted = generation_tables(session)
        uncounted = sorted(table for table in tables if table not in counted)
        if uncounted and refused is None:
            refused = f"it read {', '.join(uncounted)}, which no generation counts"
            registry = session.info["registry"]
            if registry.settings.get(STRICT_SETTING):
                raise UncountedRead(f"{kind}: {refused} (declare the tables' generation next to their model, "
                                    "or do not cache it)")
            if previous is None or previous.refused is None:
                log.warning("not cached: %s: %s", kind, refused)
        parts = set(reading.state_parts).union(previous.state_parts if previous is not None else ())
        learned = _Learned(tables, tuple(sorted({counted[t] for t in tables if t in counted})),
                           tuple(sorted(parts, key=lambda part: part.__qualname__)), refused)
        self._learned[kind] = learned
        return learned

    def get(self, key):
        """(value,) when kept, else None."""
        entry = self._values.get(key)
        return None if entry is None else entry[:1]

    def put(self, key, value, size):
        if size > self.entry_bytes:
            return
        with self._lock:
            old = self._values.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            while self._values and (len(self._values) >= self.size or self.bytes + size > self.max_bytes):
                oldest = next(iter(self._values))
                self.bytes -= self._values.pop(oldest)[1]
            self._values[key] = (value, size)
            self.bytes += size


def process_cache(registry):
    cache = registry.get(_CACHE_KEY)
    if cache is None:
        cache = registry.setdefault(_CACHE_KEY, ProcessCache())
    return cache


def _site_state(session, learned):
    """The state a kept value of ``learned``'s route or function is filed under: the options, the site date,
    the generations of the tables it read and the parts of the state it asked."""
    now, base = _transaction_state(session)
    # map over a dict's get: no Python call per generation (this runs for every kept value a
    # request looks up); a generation never bumped is None here, the same in every lookup.
    state = base + tuple(map(generations_seen(session).get, learned.generations))
    if learned.state_parts:
        state += tuple(part(session, now) for part in learned.state_parts)
    return state


def _transaction_state(session):
    """(now, (options generation, site date)): the part of every kept value's state that is the
    same for the whole transaction, worked out once in it (a request looks up several kept
    values: its identity, the options, its answer). ``forget_transaction_state`` after the
    transaction wrote an option."""
    found = session.info.get(_TRANSACTION_STATE)
    if found is None:
        now = _now()
        found = session.info[_TRANSACTION_STATE] = (
            now, (generation(session, "options"), now.astimezone(_site_zone(stored_options(session))).date()))
    return found


def forget_transaction_state(session):
    session.info.pop(_TRANSACTION_STATE, None)


def _site_zone(options):
    try:
        return ZoneInfo(options.get("site.timezone") or "UTC")
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        return ZoneInfo("UTC")  # stored before its kind refused it: read as the default (options.py)


def _now():
    return utcnow()


def _wrote_any(session, tables):
    written = written_tables(session)
    return bool(written) and (EVERYTHING in written or not written.isdisjoint(tables))


def cached_call(session, kind, key, compute, reading=None, size_of=lambda value: 0, keep=lambda value: True,
                finish=None):
    """``compute()``, or the value a computation of route or function ``kind`` kept under the
    same ``key`` (its input) at the same site state. ``reading``: the recording already under
    way for it (a view's, from its first validator); ``keep(value)``: whether this value may be
    kept (a view's answer that is not a plain success is answered, not kept); ``finish(session,
    key, value, learned, state)``: the value to keep and answer in its place, given what it is
    filed under (a view's answer gets its tag)."""
    try:
        hash(key)
    except TypeError:  # an input the host cannot key (an object a validator made): never kept
        return compute()
    cache = process_cache(session.info["registry"])
    learned = cache._learned.get(kind)
    outer = _READING.get() if reading is None else None
    if learned is not None and learned.refused is None and not _wrote_any(session, learned.tables):
        found = cache.get((kind, key, _site_state(session, learned)))
        if found is not None:
            if outer is not None:
                outer.merge(learned.tables, learned.state_parts, None)
            return found[0]
    if reading is None:
        reading = Reading()
        token = _READING.set(reading)
        try:
            value = compute()
        finally:
            _READING.reset(token)
        if outer is not None:
            outer.merge(reading.tables, reading.state_parts, reading.refused)
    else:
        value = compute()
    learned = cache.learn(session, kind, reading)
    if learned.refused is None and keep(value) and not _wrote_any(session, learned.tables):
        state = _site_state(session, learned)
        if finish is not None:
            value = finish(session, key, value, learned, state)
        cache.put((kind, key, state), value, size_of(value))
    return value


def cached(function):
    """Declares that ``function(session, *args)`` may be kept: the host keeps its value per
    process and knows when it no longer holds (see the module's text). Its arguments after the
    session must be hashable; it must return the same value for the same arguments and site
    state (rows, options, date), and a value its callers only read, safe to hand to any thread:
    values and records (``db.records.record_of``), never the session's ORM instances (under the
    test suite one is an error)."""
    name = f"{function.__module__}.{function.__qualname__}"

    def call(session, *args):
        def compute():
            value = function(session, *args)
            if session.info["registry"].settings.get(STRICT_SETTING):
                _refuse_instances(name, value)
            return value

        return cached_call(session, name, args, compute)

    call.__wrapped__ = function
    call.__name__, call.__doc__, call.__qualname__ = function.__name__, function.__doc__, function.__qualname__
    return call


class SharedInstance(TypeError):
    """A ``@cached`` value holding an ORM instance (raised under the test suite)."""


def _refuse_instances(name, value, depth=0):
    """An ORM instance in ``value`` (itself, or in a tuple, list, set or dict, a few levels
    deep): the cache would hand the session's instance to every thread of the process."""
    if is_orm_instance(value):
        raise SharedInstance(f"{name} returned {type(value).__name__} instance: a @cached value is shared by every "
                             f"request of the process; return record_of(instance) or plain values")
    if depth < 6:
        items = value.items() if isinstance(value, dict) else value if isinstance(value, (tuple, list, set, frozenset)) \
            else ()
        for item in items:
            _refuse_instances(name, item, depth + 1)


def kept_state(session, kind):
    """(learned, state): what route or function ``kind`` was seen to read and the site state its
    values are filed under now; None when none of its values can be found (not seen in this
    process yet, not kept, or this transaction wrote what it reads)."""
    learned = process_cache(session.info["registry"])._learned.get(kind)
    if learned is None or learned.refused is not None or _wrote_any(session, learned.tables):
        return None
    return learned, _site_state(session, learned)


def read_generations(session, kind):
    """{generation: value as this transaction read it} of what ``kind`` was seen to read."""
    learned = process_cache(session.info["registry"])._learned.get(kind)
    return {} if learned is None else {name: generation(session, name) for name in learned.generations}

