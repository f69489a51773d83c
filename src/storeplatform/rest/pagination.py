"""Pagination for every list: ``page``/``per_page`` in, ``X-Total``, ``X-TotalPages`` and ``Link`` out."""
from urllib.parse import quote

import colander
from sqlalchemy import func, select

from .types import StrictInt


def page_nodes():
    """Fresh ``page`` and ``per_page`` nodes to add to a list's query schema."""
    return [
        # Bounded so that the offset stays a 64-bit integer on every database.
        colander.SchemaNode(StrictInt(), name="page", missing=1, validator=colander.Range(min=1, max=10**9),
                            description="Current page of the collection."),
        colander.SchemaNode(StrictInt(), name="per_page", missing=10, validator=colander.Range(min=1, max=100),
                            description="Maximum number of items to be returned in result set."),
    ]


class PaginationSchema(colander.MappingSchema):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for node in page_nodes():
            self.add(node)


def paginate(request, stmt):
    """One page of ``stmt`` (``page`` and ``per_page`` from ``request.validated``), with
    ``X-Total``, ``X-TotalPages`` and ``Link`` set. Returns objects when ``stmt`` selects one
    entity or column, row tuples when it selects several. Two queries: the count, then the page
    (none when the count is 0)."""
    page, per_page = _page_of(request)
    total = request.db.execute(_count_stmt(stmt)).scalar_one()
    set_headers(request, total, page, per_page)
    return _rows(request, stmt, page, per_page) if total else []


def _page_of(request):
    return request.validated.get("page", 1), request.validated.get("per_page", 10)


def _count_stmt(stmt):
    return select(func.count()).select_from(stmt.order_by(None).subquery())


def _rows(request, stmt, page, per_page):
    result = request.db.execute(stmt.limit(per_page).offset((page - 1) * per_page))
    return result.unique().scalars().all() if len(stmt.column_descriptions) == 1 else result.all()


def set_headers(request, total, page, per_page):
    total_pages = (total + per_page - 1) // per_page
    response = request.response
    response.headers["X-Total"] = str(total)
    response.headers["X-TotalPages"] = str(total_pages)
    links = []
    if page > 1:
        links.append(f'<{_page_url(request, min(page - 1, max(total_pages, 1)))}>; rel="prev"')
    if page < total_pages:
        links.append(f'<{_page_url(request, page + 1)}>; rel="next"')
    if links:
        response.headers["Link"] = ", ".join(links)


def _page_url(request, page):
    params = [(k, v) for k, v in request.GET.items() if k != "page"]
    params.append(("page", str(page)))
    return request.path_url + "?" + "&".join(f"{_q(k)}={_q(v)}" for k, v in params)


def _q(text):
    return quote(str(text), safe="")
