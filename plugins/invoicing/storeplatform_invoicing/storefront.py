"""The storefront download link ``{base_url}/?invoicing_download=<order_id>&key=<order_key>``:
the order key proves the right to the PDF; attempts are limited per client address."""
import hmac
import time

from pyramid.response import Response
from sqlalchemy import delete

from storeplatform.rest import RestError
from storeplatform.store.options import get_option

from .documents import current_document
from .models import RateWindow

WINDOW_SECONDS = 60
DUMMY_KEY = "order_" + "x" * 24


def client_address(request):
    """The caller's address; behind a trusted proxy, the last X-Forwarded-For hop that is
    not itself a trusted proxy (the earlier hops are whatever the client wrote)."""
    trusted = request.registry.settings["storeplatform.parsed"]["trusted_proxies"]
    address = request.remote_addr or "unknown"
    if address in trusted:
        hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",") if h.strip()]
        while hops and hops[-1] in trusted:
            hops.pop()
        if hops:
            address = hops[-1]
    return address[:64]


def _upsert(engine):
    if engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert


def count_attempt(engine, address, now=None):
    """Add one attempt to the address's current window in a transaction of its own (it must
    count even when the request then fails); return (hits, seconds left in the window)."""
    now = time.time() if now is None else now
    window = int(now // WINDOW_SECONDS)
    insert = _upsert(engine)
    stmt = insert(RateWindow).values(address=address, window_start=window, hits=1)
    stmt = stmt.on_conflict_do_update(index_elements=["address", "window_start"],
                                      set_={"hits": RateWindow.hits + 1}).returning(RateWindow.hits)
    with engine.begin() as conn:
        hits = conn.execute(stmt).scalar_one()
    return hits, max(1, int((window + 1) * WINDOW_SECONDS - now + 0.999))


def purge_rate_windows_task(ctx):
    ctx.session.execute(delete(RateWindow).where(RateWindow.window_start < int(time.time() // WINDOW_SECONDS) - 1))


def invalid_link():
    # One answer for an unknown order and a wrong key, so the link reveals neither.
    return RestError(404, "invoicing_invalid_link", "The document link is invalid or has expired.")


def download_view(request):
    # Counted before anything touches the request's session: on SQLite that session holds
    # the write lock from its first statement.
    hits, retry_after = count_attempt(request.registry["db.engine"], client_address(request))
    limit = get_option(request.db, "invoicing.download_rate_limit")
    if hits > limit:
        raise RestError(429, "invoicing_too_many_requests", "Too many download attempts; try again later.",
                        headers={"Retry-After": str(retry_after)}, retry_after=retry_after)
    order_text = request.GET.get("invoicing_download", "").strip()
    key = request.GET.get("key", "")
    order_id = int(order_text) if order_text.isdigit() and len(order_text) <= 18 else None
    order, document = current_document(request.db, order_id, with_pdf=True) if order_id is not None else (None, None)
    # Compare in constant time even when the order is unknown, so timing does not tell.
    expected = order.order_key if order is not None else DUMMY_KEY
    key_ok = hmac.compare_digest(expected.encode(), key.encode("utf-8", "replace"))
    if order is None or not key_ok:
        raise invalid_link()
    if document is None:
        raise RestError(404, "invoicing_document_not_found", "This order has no document yet.")
    return pdf_response(document)


def pdf_response(document):
    data = document.pdf
    response = Response(body=data, content_type="application/pdf")
    response.headers["Content-Disposition"] = content_disposition(f"invoice-{document.display_number}.pdf")
    response.headers["Content-Length"] = str(len(data))
    response.headers["Cache-Control"] = "private, no-store"
    return response


def content_disposition(filename):
    """``attachment`` with the name as given when it is plain ASCII, else an ASCII fallback
    plus the RFC 6266 ``filename*`` form (prefixes are site options and may be anything)."""
    from urllib.parse import quote

    plain = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "_" for c in filename)
    if plain == filename:
        return f'attachment; filename="{filename}"'
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename, safe='')}"


def includeme(config):
    config.add_route("invoicing-download", "/", request_param="invoicing_download")
    config.add_view(download_view, route_name="invoicing-download", request_method=("GET", "HEAD"))
