"""The order's documents attached to the host's order messages (#41, the "attach to email" of
WooCommerce PDF Invoices & Packing Slips): ``storeplatform_mail_attachments`` adds to "order
received" (``store.order_received``) and "order completed" (``store.order_completed``) the
order's documents whose type is switched on for that message (the options
``invoicing.attach_<type>``: the messages a type goes with).

Those messages are composed by the worker, after the transaction that numbered the document; a
document whose PDF is not rendered yet is rendered there with the plugin's own renderer
(``documents.render_into``) and kept, so the render task that follows finds it done. A document
is never made here: only those the order already has (``invoicing.auto_statuses``) are sent."""
from sqlalchemy import select

from storeplatform.api import Attachment, site_options

from .models import DOCUMENT_TYPES, Document

# The message kinds of the host's order messages, by the choice that names them in the options.
MESSAGES = {"received": "store.order_received", "completed": "store.order_completed"}
KINDS = {kind: choice for choice, kind in MESSAGES.items()}
ATTACH_OPTIONS = {
    "invoice": "invoicing.attach_invoice",
    "receipt": "invoicing.attach_receipt",
    "credit-note": "invoicing.attach_credit_note",
    "packing-slip": "invoicing.attach_packing_slip",
}
# The invoice goes with both order messages; the other documents with none until switched on.
DEFAULT_ATTACH = {"invoice": ("received", "completed")}


def attached_types(session, kind):
    """The document types switched on for the message ``kind`` (empty for any other message)."""
    choice = KINDS.get(kind)
    if choice is None:
        return set()
    options = site_options(session)
    found = set()
    for document_type, key in ATTACH_OPTIONS.items():
        value = options[key]
        if isinstance(value, str):
            value = value.replace(",", " ").split()
        if choice in value:
            found.add(document_type)
    return found


def filename(document):
    """The name the PDF route gives it (``invoice-<display_number>.pdf``), a slash of a prefix
    made a hyphen (a file name has none)."""
    return f"invoice-{document.display_number}.pdf".replace("/", "-").replace("\\", "-")


def order_attachments(session, kind, context):
    """The attachments of an order message: the order's documents of the types switched on for
    it, each rendered now when its PDF is not yet (the composer runs in the worker)."""
    types = attached_types(session, kind)
    order_id = (context or {}).get("order_id")
    if not types or not isinstance(order_id, int):
        return None
    from .documents import render_into
    from .order_load import load_order

    order, documents = load_order(session, order_id)
    if order is None:
        return None
    attachments = []
    for document_type in DOCUMENT_TYPES:
        document = documents.get(document_type)
        if document is None or document_type not in types:
            continue
        if document.generated_at is None:
            data = render_into(session, order, document).pdf
            session.flush()
        else:
            data = session.execute(select(Document.pdf).where(Document.id == document.id)).scalar_one()
        if data:
            attachments.append(Attachment(filename(document), bytes(data), "application/pdf"))
    return attachments
