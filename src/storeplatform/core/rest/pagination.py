"""Pagination for every list: ``page``/``per_page`` in, ``X-Total``, ``X-TotalPages`` and ``Link`` out."""
from urllib.parse import quote

import colander
from sqlalchemy import func, select
from sqlalchemy.sql import operators
from sqlalchemy.sql.elements import ColumnElement, Label, TextClause, UnaryExpression

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


def paginate(request, stmt, total=None, keys=None):
    """One page of ``stmt`` (``page`` and ``per_page`` from ``request.validated``), with
    ``X-Total``, ``X-TotalPages`` and ``Link`` set. Returns objects when ``stmt`` selects one
    entity or column, row tuples when it selects several. A page beyond the last is empty (with
    the headers).

    ``total``: the number of rows of ``stmt`` when the caller knows it without counting (a count
    the database keeps: ``count_rows``); else it is counted (from ``keys`` when given).
    ``keys``: the ids of ``stmt``'s rows (its first column is the id column, or a subquery's
    column of it: ``select(Post.id)``), with the same rows and order, from fewer tables (an index
    of one): the page's offset is walked there and only the page's rows are read with ``stmt``
    (a deferred join), instead of joining every row before the offset.

    ``stmt``'s order must be total (end with a unique column, as every list's ends with its id):
    a page past the middle is read from the far end, in the reversed order (so the last pages
    cost what the first do, given an index in the list's order)."""
    page, per_page = _page_of(request)
    if total is None:
        total = request.db.execute(_count_stmt(stmt if keys is None else keys)).scalar_one()
    set_headers(request, total, page, per_page)
    offset = (page - 1) * per_page
    if offset >= total:
        return []
    return page_rows(request, stmt, keys, offset, per_page, total)


def _page_of(request):
    return request.validated.get("page", 1), request.validated.get("per_page", 10)


def _count_stmt(stmt):
    return select(func.count()).select_from(stmt.order_by(None).subquery())


def page_rows(request, stmt, keys, offset, limit, total):
    """The rows of ``stmt`` from ``offset`` (at most ``limit``) of a list of ``total`` rows: the
    offset walked on ``keys`` (an index of ids) when given, a page past the middle read from the
    far end. REST's ``paginate`` and the admin's lists (``admin.listing.page_of``) share it."""
    ordered = stmt if keys is None else keys
    rest = min(limit, total - offset)  # the page's rows, as the total says
    from_end = total - offset - rest  # the page's offset in the reversed order
    reversed_order = _reversed_order(ordered) if from_end < offset else None
    if reversed_order is not None:
        ordered, offset, limit = ordered.order_by(None).order_by(*reversed_order), from_end, rest
    window = ordered.limit(limit).offset(offset)
    if keys is not None:
        # The page's ids, then their rows (in stmt's own order: no reversal to undo). The ids
        # are of the table column keys' first column is (or comes from, through a subquery).
        key = next(iter(keys.selected_columns[0].base_columns))
        result = request.db.execute(stmt.where(key.in_(window.correlate(None))))
        return _result(stmt, result)
    rows = _result(stmt, request.db.execute(window))
    if reversed_order is not None:
        rows.reverse()
    return rows


def _result(stmt, result):
    return result.unique().scalars().all() if len(stmt.column_descriptions) == 1 else result.all()


def _reversed_order(stmt):
    """The ORDER BY of ``stmt`` reversed (each column's direction and NULLs placement), or None
    when it has none or a clause this cannot reverse (then the page is read forwards)."""
    clauses = stmt._order_by_clauses
    if not clauses:
        return None
    flipped = []
    for clause in clauses:
        reverse = _flip(clause)
        if reverse is None:
            return None
        flipped.append(reverse)
    return flipped


def _flip(clause):
    if isinstance(clause, UnaryExpression):
        if clause.modifier is operators.desc_op:
            return clause.element.asc()
        if clause.modifier is operators.asc_op:
            return clause.element.desc()
        if clause.modifier in (operators.nulls_first_op, operators.nulls_last_op):
            inner = _flip(clause.element)
            if inner is None:
                return None
            return inner.nulls_last() if clause.modifier is operators.nulls_first_op else inner.nulls_first()
        return None
    if isinstance(clause, ColumnElement) and not isinstance(clause, (TextClause, Label)):
        return clause.desc()  # a plain column or expression: ascending
    return None


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
