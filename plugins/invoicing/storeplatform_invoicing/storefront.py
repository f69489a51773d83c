"""The storefront download link ``{base_url}/?invoicing_download=<order_id>&key=<order_key>``:
the order key proves the right to the PDF; attempts are limited per client address."""
import hmac
import time
from urllib.parse import quote, urlencode

from pyramid.response import Response
from sqlalchemy import delete

from storeplatform.api import is_digits
from storeplatform.api.advanced import site_transaction

from .documents import current_document
from .errors import DOCUMENT_NOT_FOUND, INVALID_LINK, TOO_MANY_REQUESTS
from .models import RateWindow, upsert_insert

WINDOW_SECONDS = 60
DUMMY_KEY = "order_" + "x" * 24


def count_attempt(session, address, now=None):
    """Add one attempt to the address's current window; return (hits, seconds left in the
    window). ``session`` is in a transaction of its own (``site_transaction``), so that the
    attempt counts even when the request then fails."""
    now = time.time() if now is None else now
    window = int(now // WINDOW_SECONDS)
    insert = upsert_insert(session)
    stmt = insert(RateWindow).values(address=address, window_start=window, hits=1)
    stmt = stmt.on_conflict_do_update(index_elements=["address", "window_start"],
                                      set_={"hits": RateWindow.hits + 1}).returning(RateWindow.hits)
    hits = session.execute(stmt).scalar_one()
    return hits, max(1, int((window + 1) * WINDOW_SECONDS - now + 0.999))


def purge_rate_windows_task(ctx):
    ctx.session.execute(delete(RateWindow).where(RateWindow.window_start < int(time.time() // WINDOW_SECONDS) - 1))


def download_view(request):
    # Counted before anything touches the request's session: on SQLite that session holds
    # the write lock from its first statement.
    with site_transaction(request.registry) as session:
        hits, retry_after = count_attempt(session, request.client_address)
    if hits > request.site_options["invoicing.download_rate_limit"]:
        raise TOO_MANY_REQUESTS(headers={"Retry-After": str(retry_after)}, retry_after=retry_after)
    order_text = request.GET.get("invoicing_download", "").strip()
    key = request.GET.get("key", "")
    # ASCII digits only: "²" or "٣" are digits to str.isdigit, not order ids.
    order_id = int(order_text) if is_digits(order_text) and len(order_text) <= 18 else None
    order, document = current_document(request.db, order_id, with_pdf=True) if order_id is not None else (None, None)
    # Compare in constant time even when the order is unknown, so timing does not tell.
    expected = order.order_key if order is not None else DUMMY_KEY
    key_ok = hmac.compare_digest(expected.encode(), key.encode("utf-8", "replace"))
    if order is None or not key_ok:
        raise INVALID_LINK()
    if document is None:
        # The customer cannot regenerate: the catalogue's hint is for shop managers.
        raise DOCUMENT_NOT_FOUND("This order has no document yet.")
    return pdf_response(document)


def download_url(base_url, order):
    """The storefront link of an order's document."""
    return f"{base_url}/?" + urlencode({"invoicing_download": order.id, "key": order.order_key})


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
    plain = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "_" for c in filename)
    if plain == filename:
        return f'attachment; filename="{filename}"'
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename, safe='')}"


def includeme(config):
    config.add_route("invoicing-download", "/", request_param="invoicing_download")
    config.add_view(download_view, route_name="invoicing-download", request_method=("GET", "HEAD"))
