"""Site options of the invoicing plugin."""
from storeplatform.api import ORDER_STATUSES, OptionSpec, site_options

from .font_files import font_choices

SECTION = "invoicing"
# The statuses that may create a document: cancelled and failed never do (documents.py's
# UNBILLABLE_STATUSES), so they are not offered as a choice that would do nothing.
DOCUMENT_STATUSES = tuple(status for status in ORDER_STATUSES if status not in ("cancelled", "failed"))
DEFAULT_AUTO_STATUSES = ("processing", "completed", "refunded")
PREFIX_OPTIONS = {
    "invoice": "invoicing.prefix_invoice",
    "receipt": "invoicing.prefix_receipt",
    "credit-note": "invoicing.prefix_credit_note",
    "packing-slip": "invoicing.prefix_packing_slip",
}
# A display number is prefix-year-sequence, printed on the document and in its file name.
PREFIX_MAX = 20


def option_specs():
    return [
        OptionSpec("invoicing.rest_api_enabled", "bool", False, "advanced", "Enable REST API",
                   description="Answer the invoicing/v1 REST routes. Enable it only when it is to be called."),
        OptionSpec("invoicing.auto_statuses", "multichoice", DEFAULT_AUTO_STATUSES, SECTION,
                   "Create a document when an order reaches",
                   description="Cancelled and failed orders never get one.", choices=DOCUMENT_STATUSES),
        OptionSpec("invoicing.default_type", "choice", "invoice", SECTION, "Document type of paid orders",
                   description="Refunded orders get a credit note.", choices=("invoice", "receipt")),
        OptionSpec(PREFIX_OPTIONS["invoice"], "string", "INV", SECTION, "Invoice number prefix", max=PREFIX_MAX),
        OptionSpec(PREFIX_OPTIONS["receipt"], "string", "RCT", SECTION, "Receipt number prefix", max=PREFIX_MAX),
        OptionSpec(PREFIX_OPTIONS["credit-note"], "string", "CN", SECTION, "Credit note number prefix",
                   max=PREFIX_MAX),
        OptionSpec(PREFIX_OPTIONS["packing-slip"], "string", "PS", SECTION, "Packing slip number prefix",
                   max=PREFIX_MAX),
        OptionSpec("invoicing.number_padding", "int", 5, SECTION, "Digits of the sequence number", min=1, max=12),
        OptionSpec("invoicing.font", "choice", "", SECTION, "Extra font",
                   description="A font installed on the server (e.g. a CJK font) for the characters the "
                               "bundled DejaVu Sans lacks; the list is the TrueType fonts of the folders "
                               "the ini setting invoicing.font_dirs names.", choices=font_choices),
        OptionSpec("invoicing.download_rate_limit", "int", 30, SECTION, "Storefront downloads per minute and address",
                   min=1, max=100000),
        *attach_specs(),
    ]


ATTACH_NOUNS = {"invoice": "invoice", "receipt": "receipt", "credit-note": "credit note",
                "packing-slip": "packing slip"}


def attach_specs():
    """One option per document type: the host's order messages it goes with ("received": the
    order is paid; "completed": it is completed), as WooCommerce PDF Invoices' "Attach to"."""
    from .mail_attachments import ATTACH_OPTIONS, DEFAULT_ATTACH, MESSAGES

    return [OptionSpec(key, "multichoice", DEFAULT_ATTACH.get(document_type, ()), SECTION,
                       f"Attach the {ATTACH_NOUNS[document_type]} to the order e-mails",
                       description=f"The buyer's e-mails that carry the order's {ATTACH_NOUNS[document_type]} "
                                   "(its PDF), when the order has one: received (sent when the order is paid) "
                                   "and completed.", choices=tuple(MESSAGES))
            for document_type, key in ATTACH_OPTIONS.items()]


def auto_statuses(session):
    value = site_options(session)["invoicing.auto_statuses"]
    if isinstance(value, str):  # stored before the option was a list: names separated by spaces or commas
        value = value.replace(",", " ").split()
    return set(value)
