"""REST routes: {rest_root}/invoicing/v1 (the namespace is set up in plugin.py)."""
from collections import namedtuple

from storeplatform.api import NO_ROUTE, Service, cached_by_generation, generation, site_timezone

from .documents import DocumentValues, current_document, regenerate
from .errors import DOCUMENT_NOT_FOUND, ORDER_NOT_FOUND
from .schemas import METADATA_RESPONSE, PDF_RESPONSE, RegenerateBody
from .storefront import download_url, pdf_response

NAMESPACE = "invoicing/v1"


def rest_guard(request):
    """While the REST API is switched off, every route of the namespace (its index and
    unknown routes included) answers exactly as a route that does not exist."""
    if not request.site_options["invoicing.rest_api_enabled"]:
        raise NO_ROUTE()


def metadata(request, order, document):
    """The answer of GET metadata and POST regenerate."""
    tz = site_timezone(request.db)
    return {
        "order_id": order.id,
        "document_type": document.document_type,
        "invoice_number": document.invoice_number,
        "display_number": document.display_number,
        "generated_date": document.generated_at.astimezone(tz).isoformat(timespec="seconds"),
        "file_size": document.file_size,
        "pdf_url": download_url(request.application_url, order),
        "regenerate_url": request.rest_url(NAMESPACE, f"/documents/{order.id}/regenerate"),
    }


# What the metadata answer reads of an order, as values that a process can keep between
# requests (metadata() reads the same attributes of an ORM order; of a document: DocumentValues).
OrderRef = namedtuple("OrderRef", "id order_key")


def _found(order, document):
    if order is None:
        raise ORDER_NOT_FOUND()
    if document is None:
        raise DOCUMENT_NOT_FOUND()
    return order, document


def _load_refs(request):
    """(order, document) as values, kept per process until a document or an order changes."""
    order_id = request.validated["order_id"]

    def load():
        order, document = current_document(request.db, order_id)
        return (None if order is None else OrderRef(order.id, order.order_key),
                None if document is None else DocumentValues.of(document))

    key = ("document", order_id, generation(request.db, "store"))
    return _found(*cached_by_generation(request.db, "invoicing", key, load))


document = Service(NAMESPACE, r"/documents/{order_id:\d+}", name="invoicing-document",
                   description="Document metadata.")
pdf = Service(NAMESPACE, r"/documents/{order_id:\d+}/pdf", name="invoicing-pdf", description="The PDF binary.")
regen = Service(NAMESPACE, r"/documents/{order_id:\d+}/regenerate", name="invoicing-regenerate",
                description="Force regeneration of the PDF (created when the order has none).")


@document.get(permission="manage_shop", response=METADATA_RESPONSE)
def get_metadata(request):
    # The answer itself is kept: what it is made of (the document, the order, the site's time
    # zone, the site's address as the request names it) is its key.
    url = request.application_url
    key = ("metadata", request.validated["order_id"], generation(request.db, "store"),
           generation(request.db, "options"), url)
    return cached_by_generation(request.db, "invoicing", key, lambda: metadata(request, *_load_refs(request)))


# PDFs up to this size are kept per process like the metadata; a larger one is read each time.
KEPT_PDF_BYTES = 64 * 1024
PdfRef = namedtuple("PdfRef", "display_number pdf")


@pdf.get(permission="manage_shop", response=PDF_RESPONSE)
def get_pdf(request):
    order_id = request.validated["order_id"]

    def load():
        order, document = current_document(request.db, order_id, with_pdf=True)
        if document is not None and len(document.pdf or b"") > KEPT_PDF_BYTES:
            return None  # too large to keep
        return order is not None, None if document is None else PdfRef(document.display_number, document.pdf)

    kept = cached_by_generation(request.db, "invoicing", ("pdf", order_id, generation(request.db, "store")), load)
    if kept is None:
        _, doc = _found(*current_document(request.db, order_id, with_pdf=True))
    else:
        order_exists, doc = kept
        _found(order_exists or None, doc)
    return pdf_response(doc)


@regen.post(permission="manage_shop", body=RegenerateBody(), response=METADATA_RESPONSE)
def post_regenerate(request):
    # An unbillable order raises UnbillableOrder: plugin.py maps it to invoicing_order_not_billable.
    regenerated = regenerate(request.db, request.validated["order_id"], request.validated.get("force_type"))
    if regenerated is None:
        raise ORDER_NOT_FOUND()
    return metadata(request, *regenerated)
