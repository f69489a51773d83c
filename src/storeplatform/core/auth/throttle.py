"""Throttling of credential guesses (issue #28): failed guesses are counted per login and client
address and per client address, in fixed windows, in the ``login_attempts`` table that every
process of the site shares; a key over its limit is refused with 429 until its window ends.

Every way in calls the same two steps around its own check of the credential:

- ``blocked_for(request, login)`` (``refuse_if_throttled`` raises) before checking it: answered
  from what this process keeps of the table while no failure is counted anywhere (the
  ``throttle`` generation, read with the request's first statement), so a request with good
  credentials costs no query;
- ``record_failure(request, login)`` (``failed_guess`` returns the error to raise) when the check
  failed: one statement in a transaction of its own, committed before the answer, so a failed
  request that rolls back still counts; its answer is the usual error, or 429 when that very
  guess went over a limit. The counts it returns decide, so however many processes guess at
  once, exactly the limit of wrong guesses is answered as wrong.

A success writes nothing. ``login`` is what names the account guessed: a user's login, or a
consumer key (``ck_…``, Basic and OAuth alike).
"""
import functools
import ipaddress
import logging
import math
import threading
import time
from dataclasses import dataclass

from sqlalchemy import delete, select

from ..db.generations import generation
from ..db.session import site_transaction
from ..errors import TOO_MANY_ATTEMPTS
from ..models import LoginAttempts
from ..options import site_options
from .tokens import keyed_hash

log = logging.getLogger(__name__)

GENERATION = "throttle"  # declared by LoginAttempts: every committed count moves it on
WINDOW = "auth.throttle_window"
LOGIN_FAILURES = "auth.throttle_login_failures"
ADDRESS_FAILURES = "auth.throttle_address_failures"


def now():
    """The clock of the throttle (tests replace it)."""
    return time.time()


@dataclass(frozen=True)
class _Guess:
    """One guess's throttle keys (address first), their limits, and its window."""

    keys: tuple
    limits: tuple
    window_start: int
    window: int
    at: float

    def retry_after(self):
        """Whole seconds until the window ends (at least 1)."""
        return max(1, math.ceil(self.window_start + self.window - self.at))


def _guess(request, login):
    options = request.site_options
    window = options[WINDOW]
    at = now()
    keys = throttle_keys(request.registry.settings["storeplatform.secret"], request.client_address, login)
    return _Guess(keys, (options[ADDRESS_FAILURES], options[LOGIN_FAILURES]), int(at) - int(at) % window,
                  window, at)


@functools.lru_cache(maxsize=4096)
def throttle_keys(secret, client_address, login):
    """(the address's key, the login and address's key) of the ``login_attempts`` table: keyed
    hashes, so the table names neither logins nor addresses. Kept per process for the clients
    seen last: every authenticated request of a client asks for the same two (the login and the
    address are no secret, and a key is a pure function of them)."""
    address = throttled_address(client_address)
    # Logins are compared as given; folding case here costs nothing and keeps one count should a
    # login ever be looked up without regard to case. "|" never occurs in an address.
    return (keyed_hash(secret, address, "throttle-address"),
            keyed_hash(secret, f"{login.casefold()}|{address}", "throttle-login"))


def throttled_address(address):
    """The address a client's guesses count under: an IPv6 client's /64 (one subscriber is
    given a /64 and can take any address of it), any other address as it is."""
    try:
        ip = ipaddress.ip_address(address.partition("%")[0])
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


# --- before checking a credential ---------------------------------------------------------

class _KeptFailures:
    """Failures per (key, window) as this process read them, valid for one generation of
    ``throttle``: a request of a client that guesses nothing finds its keys here and runs no
    query. Its own map rather than the host's generation cache of identities and options: two
    keys per client and window would crowd those out on a busy API, and when any failure moves
    the generation on, only this map is emptied."""

    SIZE = 8192

    def __init__(self):
        self._lock = threading.Lock()
        self._state = (None, {})  # (generation, {(key, window_start): failures}), replaced whole

    def failures(self, session, keys, window_start):
        current = generation(session, GENERATION)
        kept_generation, kept = self._state
        if kept_generation == current:
            found = [kept.get((key, window_start)) for key in keys]
            if None not in found:
                return found
        rows = dict(session.execute(
            select(LoginAttempts.key, LoginAttempts.failures)
            .where(LoginAttempts.window_start == window_start, LoginAttempts.key.in_(keys))).all())
        found = [rows.get(key, 0) for key in keys]
        with self._lock:
            kept_generation, kept = self._state
            if kept_generation is None or current > kept_generation or len(kept) >= self.SIZE:
                # A newer generation (what an older one kept may be stale), or full: start afresh.
                kept_generation, kept = current, {}
                self._state = (kept_generation, kept)
            if kept_generation == current:
                # Read after the generation was: never older than what it is filed under.
                kept.update(((key, window_start), value) for key, value in zip(keys, found))
        return found


def _kept(registry):
    kept = registry.get("auth.throttle_kept")
    if kept is None:
        kept = registry.setdefault("auth.throttle_kept", _KeptFailures())
    return kept


def blocked_for(request, login):
    """Seconds until guesses of ``login`` from the request's address are taken again, or None
    when they are taken now. A blocked key's right password is refused too, until its window
    ends: the check comes before the credential's."""
    guess = _guess(request, login)
    failures = _kept(request.registry).failures(request.db, guess.keys, guess.window_start)
    if any(count >= limit for count, limit in zip(failures, guess.limits)):
        return guess.retry_after()
    return None


def refuse_if_throttled(request, login):
    """Raise 429 ``rest_too_many_attempts`` (with ``Retry-After``) while guesses of ``login``
    from the request's address are refused; call it before checking the credential."""
    retry_after = blocked_for(request, login)
    if retry_after is not None:
        raise too_many_attempts(retry_after)


def too_many_attempts(retry_after):
    return TOO_MANY_ATTEMPTS(headers={"Retry-After": str(retry_after)}, retry_after=retry_after)


# --- after a wrong credential -------------------------------------------------------------

def record_failure(request, login):
    """Count a wrong guess of ``login`` from the request's address (committed at once, in a
    transaction of its own); return the seconds to wait when this guess went over a limit,
    else None. The request fails after it: on SQLite its transaction is ended first (it holds
    the database's only write lock from its first statement, and it would be rolled back
    anyway)."""
    guess = _guess(request, login)
    _end_sqlite_request_transaction(request)
    counts = count_failures(request.registry, guess.keys, guess.window_start)
    over = [(key, count, limit) for key, count, limit in
            zip(("address", "login"), (counts[k] for k in guess.keys), guess.limits) if count > limit]
    if not over:
        return None
    for kind, count, limit in over:
        if count == limit + 1:  # once per key and window
            log.warning("credential guesses throttled: %s from %s went over the %s limit (%d failures in %d s)",
                        "a login" if kind == "login" else "any login", request.client_address, kind, limit,
                        guess.window)
    return guess.retry_after()


def failed_guess(request, login, error):
    """Count a wrong guess of ``login`` (``record_failure``) and return the error to raise:
    ``error`` (the way in's usual 401), or 429 ``rest_too_many_attempts`` when this guess went
    over a limit."""
    retry_after = record_failure(request, login)
    return error if retry_after is None else too_many_attempts(retry_after)


def count_failures(registry, keys, window_start):
    """Add one failure to each key's window, in one statement and a transaction of its own;
    return {key: failures now}. The rows go in the order of their keys, so that two
    transactions counting the same keys on PostgreSQL never wait for each other crosswise."""
    ordered = sorted(set(keys))
    with site_transaction(registry) as session:
        insert = _upsert_insert(session)
        statement = insert(LoginAttempts).values(
            [{"key": key, "window_start": window_start, "failures": 1} for key in ordered])
        statement = statement.on_conflict_do_update(
            index_elements=["key", "window_start"], set_={"failures": LoginAttempts.failures + 1},
        ).returning(LoginAttempts.key, LoginAttempts.failures)
        return dict(session.execute(statement).all())


def _upsert_insert(session):
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert


def _end_sqlite_request_transaction(request):
    """SQLite has one writer, and a request's transaction takes the write lock with its first
    statement (``BEGIN IMMEDIATE``): a transaction of our own beside it would wait for it. The
    request is failing, so nothing of it would be kept: it is aborted now and a new one begun
    for whatever still reads (the error page). A database server needs none of this."""
    session = request.__dict__.get("db")  # request.db is reified: absent when never used
    if session is None or request.registry["db.engine"].dialect.name != "sqlite" or not session.in_transaction():
        return
    if request.environ.get("tm.active"):
        manager = request.tm
        manager.abort()
        manager.begin()
    else:
        session.rollback()


# --- old windows ----------------------------------------------------------------------------

def purge_old_windows(ctx):
    """Periodic task: delete the counts of windows that have ended."""
    window = site_options(ctx.session)[WINDOW]
    ctx.session.execute(delete(LoginAttempts).where(LoginAttempts.window_start < int(now()) - window))
