"""REST routes: {rest_root}/invoicing/v1 (the namespace is set up in plugin.py)."""
from storeplatform.api import NO_ROUTE, Service, site_timezone

from .document_record import DocumentRecord
from .documents import current_document, regenerate
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
    """The answer of GET metadata and POST regenerate, from the document's ``DocumentRecord``:
    the record the plugin's face gives other plugins, so the two cannot part."""
    tz = site_timezone(request.db)
    document = DocumentRecord.of(document)
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


def _found(order, document):
    if order is None:
        raise ORDER_NOT_FOUND()
    if document is None:
        raise DOCUMENT_NOT_FOUND()
    return order, document


document = Service(NAMESPACE, r"/documents/{order_id:\d+}", name="invoicing-document",
                   description="Document metadata.")
pdf = Service(NAMESPACE, r"/documents/{order_id:\d+}/pdf", name="invoicing-pdf", description="The PDF binary.")
regen = Service(NAMESPACE, r"/documents/{order_id:\d+}/regenerate", name="invoicing-regenerate",
                description="Force regeneration of the PDF (created when the order has none).")


# Accounting tools poll documents: their metadata and PDFs are cached answers.

@document.get(permission="manage_shop", response=METADATA_RESPONSE, cache="public")
def get_metadata(request):
    return metadata(request, *_found(*current_document(request.db, request.validated["order_id"])))


@pdf.get(permission="manage_shop", response=PDF_RESPONSE, cache="public")
def get_pdf(request):
    _, document = _found(*current_document(request.db, request.validated["order_id"], with_pdf=True))
    return pdf_response(document)


@regen.post(permission="manage_shop", body=RegenerateBody(), response=METADATA_RESPONSE)
def post_regenerate(request):
    # An unbillable order raises UnbillableOrder: plugin.py maps it to invoicing_order_not_billable.
    regenerated = regenerate(request.db, request.validated["order_id"], request.validated.get("force_type"))
    if regenerated is None:
        raise ORDER_NOT_FOUND()
    return metadata(request, *regenerated)
