"""The invoices page of the admin (``manage_shop``): the orders with their documents (type,
number, date, size, download), filtered by status; selected orders are regenerated in bulk in the
background by the same job and task as ``storeplatform invoicing regenerate``, and the page
watches the job's progress (``.../jobs/<id>``, JSON read from the database: any web process
answers it while any worker does the work). It works whether or not the REST API is on."""
from urllib.parse import urlencode

from pyramid.httpexceptions import HTTPNotFound
from pyramid.response import Response

from storeplatform.api import (
    ORDER_STATUSES,
    AdminPage,
    admin_redirect,
    admin_url,
    admin_view,
    currency_format,
    form_values,
    format_money,
    id_in_range,
    is_digits,
    refuse_form,
    site_timezone,
)

from . import jobs, order_list
from .models import DOCUMENT_TYPES
from .storefront import pdf_response

INVOICES = AdminPage("invoicing-invoices", "Invoices", "/invoices", "manage_shop", order=23, section="Shop")
# A selection is at most a few pages of orders; the command line takes any number.
MAX_SELECTED = 500
MAX_PAGE = 1_000_000


class BadQuery(ValueError):
    pass


def _filters(request):
    """(status or None, page) of the query string; raises BadQuery."""
    status = request.GET.get("status", "")
    if status and status not in ORDER_STATUSES:
        raise BadQuery(f"Unknown status {status[:40]!r}: choose one of the list.")
    page = request.GET.get("page", "1")
    if not is_digits(page) or not 1 <= int(page) <= MAX_PAGE:
        raise BadQuery("The page must be a whole number from 1.")
    return status or None, int(page)


def _job_id(request):
    text = request.GET.get("job", "")
    return int(text) if is_digits(text) and id_in_range(int(text)) else None


def _list_path(status=None, page=1, job=None, base="/invoices"):
    query = [("job", job)] if job else []
    query += [("status", status)] if status else []
    query += [("page", page)] if page > 1 else []
    return base + ("?" + urlencode(query) if query else "")


def _customer(billing):
    """The billing name (the store keeps billing as free JSON: anything not text is left out)."""
    billing = billing if isinstance(billing, dict) else {}
    return " ".join(v for v in (billing.get("first_name"), billing.get("last_name")) if isinstance(v, str) and v)


def _page_values(request, status, page, error=None, selected=(), force_type=""):
    tz = site_timezone(request.db)
    money = currency_format(request.db)
    total, rows = order_list.orders_page(request.db, status, page)
    pages = max(1, -(-total // order_list.PER_PAGE))
    orders = [{
        "id": order.id, "status": order.status, "date": order.created_at.astimezone(tz).strftime("%Y-%m-%d %H:%M"),
        "customer": _customer(order.billing),
        "total": format_money(order.total, money, order.currency), "selected": order.id in selected,
        "documents": [{
            "id": doc.id, "type": doc.document_type, "number": doc.display_number,
            "date": doc.generated_at.astimezone(tz).strftime("%Y-%m-%d %H:%M") if doc.generated_at else None,
            "size": doc.file_size if doc.generated_at else None,
        } for doc in docs],
    } for order, docs in rows]
    job_id = _job_id(request)
    job = jobs.job_progress(request.db, job_id) if job_id is not None else None

    def url(*args, **kw):
        return admin_url(request, _list_path(*args, **kw))

    links = {"all": url(), "status": {s: url(s) for s in ORDER_STATUSES},
             "action": url(status, page, base="/invoices/regenerate"), "reload": url(status, page),
             "prev": url(status, page - 1) if page > 1 else None,
             "next": url(status, page + 1) if page < pages else None}
    return {"title": "Invoices", "links": links, "orders": orders, "total": total, "page": page, "pages": pages, "status": status,
            "statuses": ORDER_STATUSES, "document_types": DOCUMENT_TYPES, "error": error, "job": job,
            "force_type": force_type}


@admin_view(INVOICES, template="invoicing/invoices.jinja2")
def invoices(request):
    try:
        status, page = _filters(request)
    except BadQuery as exc:
        request.response.status = 400
        return _page_values(request, None, 1, error=str(exc))
    return _page_values(request, status, page)


def _selection(request):
    """(order ids, force type or None) of the regenerate form; raises BadQuery."""
    form = form_values(request)  # refuses a form that is not UTF-8 text (400)
    texts = request.POST.getall("order_id")
    if not texts:
        raise BadQuery("Select the orders to regenerate.")
    if len(texts) > MAX_SELECTED:
        raise BadQuery(f"Select at most {MAX_SELECTED} orders at a time.")
    bad = [t for t in texts if not (is_digits(t) and id_in_range(int(t)))]
    if bad:
        raise BadQuery(f"Not an order number: {bad[0][:40]!r}.")
    force_type = form.get("force_type", "")
    if force_type and force_type not in DOCUMENT_TYPES:
        raise BadQuery(f"Unknown document type {force_type[:40]!r}.")
    return list(dict.fromkeys(int(t) for t in texts)), force_type or None


@admin_view(INVOICES, "/regenerate", template="invoicing/invoices.jinja2", request_method="POST")
def regenerate_selected(request):
    try:
        status, page = _filters(request)
    except BadQuery:
        status, page = None, 1
    try:
        order_ids, force_type = _selection(request)
        taken, missing, skipped = jobs.select_orders(request.db, order_ids, (), force_type)
        if missing:
            raise BadQuery("No order with number " + ", ".join(map(str, missing)) + ": reload the page.")
        if not taken:
            raise BadQuery("The selected orders are cancelled or failed: choose a document type to include them.")
    except BadQuery as exc:
        refuse_form(request)
        selected = {int(t) for t in request.POST.getall("order_id") if is_digits(t) and id_in_range(int(t))}
        return _page_values(request, status, page, error=str(exc), selected=selected,
                            force_type=form_values(request).get("force_type", ""))
    job_id = jobs.start_job_after_commit(request.db, taken, force_type)
    notice = f"Regenerating {len(taken)} order{'s' if len(taken) != 1 else ''} in the background."
    if skipped:
        notice += f" {skipped} cancelled or failed order{'s were' if skipped != 1 else ' was'} left out" \
                  " (choose a document type to include them)."
    return admin_redirect(request, _list_path(status, page, job=job_id), notice=notice)


@admin_view(INVOICES, r"/jobs/{id:\d+}")
def job_progress(request):
    progress = jobs.job_progress(request.db, int(request.matchdict["id"]))
    response = Response(json_body=progress if progress is not None else {"message": "There is no such job."},
                        status=200 if progress is not None else 404)
    response.headers["Cache-Control"] = "no-store"
    return response


@admin_view(INVOICES, r"/documents/{document_id:\d+}/pdf")
def download(request):
    document = order_list.generated_document(request.db, int(request.matchdict["document_id"]))
    if document is None:
        raise HTTPNotFound()
    return pdf_response(document)
