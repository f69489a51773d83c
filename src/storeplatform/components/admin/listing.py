"""What every list page of the admin shares: its query string read at the boundary
(``list_query``), one page of rows with the links around it (``page_of``), and a CSV export
that streams in constant memory (``csv_response``).

A list page reads its total from a count the database keeps (``count_rows``) when it has no
search, and walks its page the way REST lists do (``rest.pagination``: the offset on an index of
ids, pages past the middle from the far end): the first and last pages of 100,000 rows cost
what they cost with 30.
"""
import codecs
import csv
import io
import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from urllib.parse import parse_qsl, urlencode

from pyramid.httpexceptions import HTTPBadRequest
from pyramid.response import Response
from sqlalchemy import func, select

from storeplatform.components.shop.money import round_money
from storeplatform.core.rest.pagination import page_rows
from storeplatform.core.options import site_options, site_timezone

# The deepest page a link may name: the offset stays a 64-bit integer on every database
# (as REST's ``page``), and beyond it nothing but a typing error reaches.
MAX_PAGE = 10**9
MAX_SEARCH = 200
PER_PAGE = 50
MAX_PER_PAGE = 200
# Rows a CSV export reads per round trip (a server-side cursor's fetch, SQLite's fetchmany).
EXPORT_BATCH = 1000
# OWASP's CSV injection: a cell a spreadsheet would read as a formula (or a DDE call).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class ListQuery:
    """A list page's query, checked: ``search`` (stripped, '' for none), ``status`` ('' for
    every status, else one of the page's), ``date_from``/``date_to`` (dates in the site time
    zone, both ends included, None for open), ``page`` (1..``MAX_PAGE``), ``per_page``;
    ``extra``: the page's own parameters it asked for (``{name: text}``)."""

    search: str = ""
    status: str = ""
    date_from: date | None = None
    date_to: date | None = None
    page: int = 1
    per_page: int = PER_PAGE
    extra: dict = field(default_factory=dict)
    default_per_page: int = PER_PAGE  # the page's own size, left out of links
    # The column the list is sorted by and its direction (``asc``/``desc``), and the page's
    # default sort (left out of links); ``sorts``: each sortable column's first direction.
    orderby: str = ""
    order: str = ""
    default_sort: tuple = ("", "")
    sorts: dict = field(default_factory=dict)

    @property
    def filtered(self):
        """True when anything narrows the list (then its total is counted, not looked up)."""
        return bool(self.search or self.status or self.date_from or self.date_to or any(self.extra.values()))

    def params(self, **changes):
        """The query as URL parameters (the empty ones left out), with ``changes``: what a link
        to another page or the export of the same rows carries."""
        query = replace(self, **{k: v for k, v in changes.items() if k in _FIELDS})
        values = {"search": query.search, "status": query.status,
                  "from": query.date_from.isoformat() if query.date_from else "",
                  "to": query.date_to.isoformat() if query.date_to else "", **query.extra,
                  **{k: v for k, v in changes.items() if k not in _FIELDS}}
        if query.page != 1:
            values["page"] = str(query.page)
        if query.per_page != self.default_per_page:
            values["per_page"] = str(query.per_page)
        if (query.orderby, query.order) != query.default_sort:
            values["orderby"], values["order"] = query.orderby, query.order
        return {k: str(v) for k, v in values.items() if v not in ("", None)}

    def sort_params(self, name):
        """The query sorted by the column ``name`` (its first page): the other direction when
        the list is sorted by it already, the column's first direction otherwise."""
        if name == self.orderby:
            order = "asc" if self.order == "desc" else "desc"
        else:
            order = self.sorts[name]
        return self.params(page=1, orderby=name, order=order)

    def aria_sort(self, name):
        """``aria-sort``'s value for the column ``name``: ascending or descending when the list
        is sorted by it, else None (the attribute left out)."""
        if name != self.orderby:
            return None
        return "ascending" if self.order == "asc" else "descending"

    def utc_range(self, tz):
        """``(start, end)`` in UTC for ``created >= start`` and ``created < end``: from the first
        day's midnight to the midnight after the last day, in ``tz`` (None for an open end)."""
        start = datetime.combine(self.date_from, time(), tz) if self.date_from else None
        end = datetime.combine(self.date_to + timedelta(days=1), time(), tz) if self.date_to else None
        return tuple(None if t is None else t.astimezone(timezone.utc) for t in (start, end))


_FIELDS = {"search", "status", "date_from", "date_to", "page", "per_page", "orderby", "order"}
ORDERS = ("asc", "desc")


def query_values(request):
    """The query string as ``{name: text}`` (the last of a repeated name), decoded strictly:
    a query that is not UTF-8 or holds NUL characters is the 400 page (WebOb would replace the
    bad bytes and let the damaged text reach a search)."""
    cached = request.__dict__.get("_admin_query")
    if cached is not None:
        return cached
    raw = request.environ.get("QUERY_STRING", "")
    try:
        text = raw.encode("latin-1").decode("utf-8")  # WSGI strings are bytes as latin-1
        pairs = parse_qsl(text, keep_blank_values=True, encoding="utf-8", errors="strict", max_num_fields=100)
    except (UnicodeError, ValueError):
        raise HTTPBadRequest("The address's query is not valid UTF-8 text, or has too many parameters.")
    values = dict(pairs)
    if any("\x00" in k or "\x00" in v for k, v in values.items()):
        raise HTTPBadRequest("The address's query must not contain NUL characters.")
    request.__dict__["_admin_query"] = values
    return values


def list_query(request, statuses=(), per_page=PER_PAGE, max_per_page=MAX_PER_PAGE, dates=True, extra=(),
               sorts=None, default_sort=("", "")):
    """The list page's query, or the 400 page naming what is wrong: ``page`` not a whole number
    in 1..10^9, ``per_page`` beyond 1..``max_per_page``, ``status`` not one of ``statuses``
    (a list without statuses ignores it), ``from``/``to`` not YYYY-MM-DD or in the wrong order.
    A page past the last one is shown as the last (``page_of``): a link kept after rows were
    deleted still lands somewhere. ``extra``: names of the page's own parameters (text, kept
    in ``ListQuery.extra`` and in the pager's links). ``sorts``: ``{column: first direction}``
    of the columns the list sorts by, ``default_sort`` its ``(column, direction)`` without
    ``orderby``/``order``; an ``orderby`` not one of them or an ``order`` not asc/desc is the
    400 page too."""
    values = query_values(request)
    problems = []
    page = _whole(values.get("page", ""), 1, 1, MAX_PAGE, "page", problems)
    size = _whole(values.get("per_page", ""), per_page, 1, max_per_page, "per_page", problems)
    status = values.get("status", "").strip()
    if status and statuses and status not in statuses:
        problems.append(f"status must be one of {', '.join(statuses)}, not {status[:40]!r}")
    if not statuses:
        status = ""
    date_from = _date(values.get("from", ""), "from", problems) if dates else None
    date_to = _date(values.get("to", ""), "to", problems) if dates else None
    if date_from and date_to and date_from > date_to:
        problems.append("from must not be after to")
    orderby, order = _sort(values, sorts or {}, default_sort, problems)
    if problems:
        raise HTTPBadRequest("This list cannot be shown: " + "; ".join(problems) + ".")
    return ListQuery(search=values.get("search", "").strip()[:MAX_SEARCH], status=status, date_from=date_from,
                     date_to=date_to, page=page, per_page=size,
                     extra={name: values.get(name, "").strip()[:MAX_SEARCH] for name in extra},
                     default_per_page=per_page, orderby=orderby, order=order, default_sort=tuple(default_sort),
                     sorts=dict(sorts or {}))


def list_sort(request, sorts, default_sort):
    """``(orderby, order)`` of the query of a list that reads its other parameters itself, or
    the 400 page naming a bad one (as ``list_query``'s ``sorts``)."""
    problems = []
    orderby, order = _sort(query_values(request), sorts, default_sort, problems)
    if problems:
        raise HTTPBadRequest("This list cannot be shown: " + "; ".join(problems) + ".")
    return orderby, order


def _sort(values, sorts, default_sort, problems):
    """``(orderby, order)`` of the query: the default without ``orderby``; ``order`` defaults to
    the column's first direction."""
    orderby = values.get("orderby", "").strip()
    order = values.get("order", "").strip()
    if not sorts:
        return default_sort
    if orderby and orderby not in sorts:
        problems.append(f"orderby must be one of {', '.join(sorts)}, not {orderby[:40]!r}")
        orderby = ""
    if order and order not in ORDERS:
        problems.append(f"order must be asc or desc, not {order[:20]!r}")
        order = ""
    if not orderby:
        return default_sort[0], order or default_sort[1]
    return orderby, order or sorts[orderby]


def _whole(text, default, low, high, name, problems):
    text = text.strip()
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 12 or not low <= int(text) <= high:
        problems.append(f"{name} must be a whole number from {low} to {high}, not {text[:20]!r}")
        return default
    return int(text)


def _date(text, name, problems):
    text = text.strip()
    if not text:
        return None
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            raise ValueError
        return date.fromisoformat(text)
    except ValueError:
        problems.append(f"{name} must be a date as YYYY-MM-DD, not {text[:20]!r}")
        return None


@dataclass
class Pager:
    """One page of a list, for the templates: ``rows``, ``total``, ``page`` of ``pages``,
    ``first``..``last`` (1-based numbers of the page's rows, 0 when empty), ``prev_url`` and
    ``next_url`` (None at the ends; they keep the filters)."""

    rows: list
    total: int
    page: int
    pages: int
    per_page: int
    prev_url: str | None
    next_url: str | None

    @property
    def first(self):
        return (self.page - 1) * self.per_page + 1 if self.rows else 0

    @property
    def last(self):
        return self.first + len(self.rows) - 1 if self.rows else 0


def page_of(request, query, stmt, *, total=None, keys=None):
    """The page ``query`` names of ``stmt``'s rows, as REST's ``paginate`` reads it: ``total``
    the number of rows when known without counting (``count_rows`` of an unfiltered list; else it
    is counted, from ``keys`` when given), ``keys`` the same rows' ids in the same order from one
    table (the offset is walked there, and only the page's rows are read with ``stmt``). The
    order must be total (end with the id). Objects for a one-entity ``stmt``, rows otherwise. A
    page past the last is the last one."""
    if total is None:
        counted = stmt if keys is None else keys
        total = request.db.execute(select(func.count()).select_from(counted.order_by(None).subquery())).scalar_one()
    pages = max(1, -(-total // query.per_page))
    page = min(query.page, pages)
    offset = (page - 1) * query.per_page
    rows = page_rows(request, stmt, keys, offset, query.per_page, total) if offset < total else []

    def url(number):
        return request.path_url + "?" + urlencode(query.params(page=number))

    return Pager(rows=rows, total=total, page=page, pages=pages, per_page=query.per_page,
                 prev_url=url(page - 1) if page > 1 else None, next_url=url(page + 1) if page < pages else None)


# --- keyed pages ----------------------------------------------------------------------------------

# The longest key a keyed page's link may carry (an e-mail address has at most 254 characters).
MAX_KEY = 320


def page_key(request):
    """``(after, before)``: the key a keyed page's rows follow or precede, from its query's
    ``after`` or ``before`` (stripped text; None when absent or empty), or the 400 page naming a
    key too long or both given. A list that is not counted pages this way (``keyed_rows``): its
    links carry the last (Next) or first (Previous) key shown, not an offset."""
    values = query_values(request)
    after, before = (values.get(name, "").strip() or None for name in ("after", "before"))
    problems = [f"{name} must be at most {MAX_KEY} characters" for name, key in (("after", after), ("before", before))
                if key is not None and len(key) > MAX_KEY]
    if after is not None and before is not None:
        problems.append("give after or before, not both")
    if problems:
        raise HTTPBadRequest("This list cannot be shown: " + "; ".join(problems) + ".")
    return after, before


def keyed_rows(db, stmt, key, limit, *, after=None, before=None, from_end=False):
    """``(rows, more)``: at most ``limit`` rows of ``stmt`` (ordered by ``key`` ascending, a unique
    key of its rows) whose key is greater than ``after`` (when given), or the ``limit`` rows just
    before ``before`` (or, ``from_end``, the last ``limit`` rows), read backwards and returned in
    ``stmt``'s order; ``more``: whether a row lies beyond them in the walk's direction (one row
    more is read). A page reads only its own rows, however deep it lies (an index in ``key``'s
    order walked from the key), where an offset reads every row before it."""
    if before is not None or from_end:
        backwards = stmt.order_by(None).order_by(key.desc())
        if before is not None:
            backwards = backwards.where(key < before)
        rows = db.execute(backwards.limit(limit + 1)).all()
        return rows[:limit][::-1], len(rows) > limit
    if after is not None:
        stmt = stmt.where(key > after)
    rows = db.execute(stmt.limit(limit + 1)).all()
    return rows[:limit], len(rows) > limit


# --- CSV ------------------------------------------------------------------------------------------

def csv_cell(value, tz):
    """One cell's text: Decimals as they come (money arrives rounded: ``csv_response``'s
    ``money``), times in ``tz`` (``YYYY-MM-DD HH:MM:SS``), None empty, booleans ``yes``/``no``,
    and a text that a spreadsheet would run as a formula prefixed with ``'`` (OWASP). Numbers
    are not prefixed: a negative amount stays a number."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, Decimal, float)):
        return str(value)
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(tz)
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, date):
        return value.isoformat()
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_response(request, filename, header, stmt, row=None, *, money=(), batch=EXPORT_BATCH):
    """A response that streams ``stmt``'s rows as CSV (``text/csv; charset=utf-8``, an
    attachment named ``filename``), a UTF-8 byte order mark and ``header`` first. ``row(r)``: the
    cells of one result row (default: the row as it is); each cell goes through ``csv_cell``
    (site time zone, formulas defused). ``money``: the names in ``header`` of the columns that
    hold amounts, written as plain decimals with the store's number of decimals (``61.65``,
    rounded half-up as the store rounds; never ``61.6500``): the export names the currency in a
    column of its own.

    The byte order mark is how Excel on Windows knows the file is UTF-8 (without it, it reads
    the bytes in the system's code page and "Zoë Łukasz" comes out garbled); LibreOffice,
    Numbers, Python's ``utf-8-sig`` and pandas skip it.

    The rows are read while the body is sent, after the request's transaction has ended, on a
    connection of the site's pool checked out for the export alone: one transaction that sees
    one snapshot (REPEATABLE READ, read-only, on PostgreSQL; a read transaction of the WAL on
    SQLite, which blocks no writer), a server-side cursor read ``batch`` rows at a time, so the
    process holds one batch whatever the number of rows. The connection goes back to the pool
    when the body ends, fails or the client goes away (the server closes the body)."""
    tz = site_timezone(request.db)
    money_at = tuple(header.index(name) for name in money)
    decimals = site_options(request.db)["store.decimals"] if money_at else None
    engine = request.registry["db.engine"]
    response = Response(content_type="text/csv", charset="utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="{_FILENAME.sub("-", filename)}"'
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.app_iter = _csv_chunks(engine, stmt, header, _with_money(row or tuple, money_at, decimals), tz, batch)
    return response


def _with_money(row, money_at, decimals):
    """``row`` with the amounts at ``money_at`` rounded to ``decimals`` places (None stays empty)."""
    if not money_at:
        return row

    def cells(item):
        values = list(row(item))
        for index in money_at:
            if values[index] is not None:
                values[index] = round_money(values[index], decimals)
        return values

    return cells


def _csv_chunks(engine, stmt, header, row, tz, batch):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")

    def taken():
        chunk = buffer.getvalue().encode("utf-8")
        buffer.seek(0)
        buffer.truncate()
        return chunk

    writer.writerow([csv_cell(cell, tz) for cell in header])
    yield codecs.BOM_UTF8 + taken()
    # Opened only once the body is being sent: a body never sent opens nothing.
    connection = engine.connect()
    try:
        if engine.dialect.name == "postgresql":
            connection = connection.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        else:
            _sqlite_read_transaction(connection)
        result = connection.execution_options(stream_results=True, yield_per=batch).execute(stmt)
        for rows in result.partitions():
            for item in rows:
                writer.writerow([csv_cell(cell, tz) for cell in row(item)])
            yield taken()
        result.close()
    finally:
        # Ends the transaction (a rollback: it wrote nothing) and gives the connection back.
        connection.close()


def _sqlite_read_transaction(connection):
    """The site's engine begins every SQLite transaction IMMEDIATE (the write lock, so that a
    writer never fails to upgrade). An export holds its transaction while the client reads:
    it trades that one for a deferred read transaction, a snapshot of the WAL that lets every
    writer go on (SQLAlchemy still ends it with its rollback)."""
    connection.exec_driver_sql("SELECT 1")  # the engine's BEGIN IMMEDIATE
    connection.exec_driver_sql("COMMIT")
    connection.exec_driver_sql("BEGIN")


def export_filename(stem, tz):
    """``<stem>-YYYY-MM-DD.csv`` with today's date in ``tz``."""
    return f"{stem}-{datetime.now(tz).date().isoformat()}.csv"
