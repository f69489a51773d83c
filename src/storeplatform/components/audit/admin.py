"""The admin's Audit log page (``view_audit_log``: administrators): the entries, newest first,
filtered by who acted, by kind and by local days, paged, and their CSV export; read through
``entries``, the statement REST and the CLI read with."""
from pyramid.httpexceptions import HTTPBadRequest

from storeplatform.components.admin.listing import csv_response, export_filename, list_query, page_of
from storeplatform.components.admin.pages import AdminPage, admin_view
from storeplatform.core.jsonutil import dumps
from storeplatform.core.options import site_timezone

from .entries import COLUMNS, day_problem, entries_select, entry_conditions, utc_bounds
from .hooks import CAPABILITY

AUDIT = AdminPage("audit", "Audit log", "/audit", CAPABILITY, order=93, section="Site")
# The kinds the host and its shipped plugins report, offered while typing (plugins add theirs).
KINDS = ("users", "credentials", "settings", "webhooks")
SHOWN_DETAILS = 300  # characters of an entry's details on the page (the export has them all)
HEADER = ["id", "time", "user_id", "user", "address", "kind", "action", "subject", "details"]


def audit_query(request):
    """The page's query (``user``, ``kind``, ``from``, ``to``, ``page``), or the 400 page."""
    query = list_query(request, extra=("user", "kind"))
    for name, day in (("from", query.date_from), ("to", query.date_to)):
        problem = day and day_problem(day)
        if problem:
            raise HTTPBadRequest(f"This list cannot be shown: {name} {problem}.")
    return query


def _conditions(query, tz):
    start, end = utc_bounds(tz, query.date_from, query.date_to)
    return entry_conditions(user=query.extra["user"], kind=query.extra["kind"], start=start, end=end)


def details_text(details):
    return dumps(details) if details else ""


@admin_view(AUDIT, template="audit/entries.jinja2")
def list_entries(request):
    query = audit_query(request)
    tz = site_timezone(request.db)
    p = page_of(request, query, entries_select(_conditions(query, tz)))
    rows = [{"item": item, "details": _short(details_text(item.details))} for item in p.rows]
    return {"title": "Audit log", "p": p, "query": query, "tz": tz, "rows": rows, "kinds": KINDS}


def _short(text):
    return text if len(text) <= SHOWN_DETAILS else text[:SHOWN_DETAILS - 1] + "…"


@admin_view(AUDIT, path="/export.csv")
def export_entries(request):
    """Every entry the page's filters find (not only the page), newest first."""
    query = audit_query(request)
    tz = site_timezone(request.db)
    return csv_response(request, export_filename("audit-log", tz), HEADER,
                        entries_select(_conditions(query, tz), *COLUMNS),
                        row=lambda r: (*r[:-1], details_text(r[-1])))
