"""REST routes: {rest_root}/invoicing/v1."""
from storeplatform.rest import RestError, namespace

from .documents import UnbillableOrder, current_document, load_order, metadata, regenerate
from .options import is_rest_enabled
from .schemas import METADATA_RESPONSE, PDF_RESPONSE, RegenerateBody
from .storefront import pdf_response

NAMESPACE = "invoicing/v1"


def rest_guard(request):
    """While the REST API is switched off, every route of the namespace (its index and
    unknown routes included) answers exactly as a route that does not exist."""
    if not is_rest_enabled(request.db):
        raise RestError(404, "rest_no_route", "No route was found matching the URL and request method.")


def order_not_found():
    return RestError(404, "invoicing_order_not_found", "Invalid order ID.")


def no_document():
    return RestError(404, "invoicing_document_not_found",
                     "This order has no document yet; POST regenerate creates one.")


def _load(request, with_pdf=False):
    order, document = current_document(request.db, int(request.matchdict["order_id"]), with_pdf)
    if order is None:
        raise order_not_found()
    if document is None:
        raise no_document()
    return order, document


def includeme(config):
    ns = namespace(config, NAMESPACE).configure(
        guard=rest_guard, index_permission="manage_shop",
        description="PDF documents (invoice, receipt, credit note, packing slip) of store orders.")

    document = ns.service(config, "invoicing-document", r"/documents/{order_id:\d+}", "Document metadata.")

    @document.get(permission="manage_shop", response=METADATA_RESPONSE)
    def get_metadata(request):
        return metadata(request, *_load(request))

    pdf = ns.service(config, "invoicing-pdf", r"/documents/{order_id:\d+}/pdf", "The PDF binary.")

    @pdf.get(permission="manage_shop", response=PDF_RESPONSE)
    def get_pdf(request):
        order, doc = _load(request, with_pdf=True)
        return pdf_response(doc)

    regen = ns.service(config, "invoicing-regenerate", r"/documents/{order_id:\d+}/regenerate",
                       "Force regeneration of the PDF (created when the order has none).")

    @regen.post(permission="manage_shop", body=RegenerateBody(), response=METADATA_RESPONSE)
    def post_regenerate(request):
        order = load_order(request.db, int(request.matchdict["order_id"]))
        if order is None:
            raise order_not_found()
        try:
            doc = regenerate(request.db, order, request.validated.get("force_type"))
        except UnbillableOrder as exc:
            raise RestError(422, "invoicing_order_not_billable",
                            f"The order is {exc}; send force_type to make a document anyway.",
                            order_status=str(exc))
        return metadata(request, order, doc)
