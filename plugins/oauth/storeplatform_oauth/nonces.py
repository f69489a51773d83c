"""Each nonce once per consumer key while its timestamp is in the window, for every process of
the site: the database's unique constraint decides."""
from sqlalchemy import delete
from zope.sqlalchemy import mark_changed

from storeplatform.api.advanced import site_transaction

from .models import OAuthNonce


def record_nonce(request, consumer_key_id, nonce_hash, expires_at, now):
    """Record the nonce; False when the key has used it already. Expired nonces go first, so a
    nonce whose first use left the window is not held against a new request."""
    session = request.db
    dialect = session.get_bind().dialect.name
    if dialect == "sqlite":
        # SQLite has one writer at a time, and the request's transaction took the write lock
        # with its first statement (reading the key): another connection would wait for it to
        # end. So the nonce is written in the request's transaction, on its connection (a GET's
        # session refuses ORM writes), and kept when the request succeeds.
        used = _insert(session.connection().execute, dialect, consumer_key_id, nonce_hash, expires_at, now)
        mark_changed(session, request.tm)
        return used
    # A database server: a transaction of its own, committed before the view runs, so that the
    # nonce is spent whatever the request does next (and GET requests stay without writes).
    with site_transaction(request.registry) as own:
        return _insert(own.execute, dialect, consumer_key_id, nonce_hash, expires_at, now)


def _insert(execute, dialect, consumer_key_id, nonce_hash, expires_at, now):
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    execute(delete(OAuthNonce).where(OAuthNonce.expires_at < now))
    stmt = insert(OAuthNonce).values(
        consumer_key_id=consumer_key_id, nonce_hash=nonce_hash, expires_at=expires_at)
    # A concurrent insert of the same pair waits for the other transaction and then does nothing.
    stmt = stmt.on_conflict_do_nothing(index_elements=["consumer_key_id", "nonce_hash"]).returning(OAuthNonce.id)
    return execute(stmt).first() is not None
