"""Site options of the invoicing plugin."""
from storeplatform.api import OptionSpec, site_options

SECTION = "invoicing"
DEFAULT_AUTO_STATUSES = "processing completed refunded"
PREFIX_OPTIONS = {
    "invoice": "invoicing.prefix_invoice",
    "receipt": "invoicing.prefix_receipt",
    "credit-note": "invoicing.prefix_credit_note",
    "packing-slip": "invoicing.prefix_packing_slip",
}


def option_specs():
    return [
        OptionSpec("invoicing.rest_api_enabled", "bool", False, "advanced", "Enable REST API",
                   description="Answer the invoicing/v1 REST routes. Enable it only when it is to be called."),
        OptionSpec("invoicing.auto_statuses", "string", DEFAULT_AUTO_STATUSES, SECTION,
                   "Create a document when an order reaches",
                   description="Order statuses, separated by spaces or commas. Cancelled and failed never create one."),
        OptionSpec("invoicing.default_type", "choice", "invoice", SECTION, "Document type of paid orders",
                   description="Refunded orders get a credit note.", choices=("invoice", "receipt")),
        OptionSpec(PREFIX_OPTIONS["invoice"], "string", "INV", SECTION, "Invoice number prefix"),
        OptionSpec(PREFIX_OPTIONS["receipt"], "string", "RCT", SECTION, "Receipt number prefix"),
        OptionSpec(PREFIX_OPTIONS["credit-note"], "string", "CN", SECTION, "Credit note number prefix"),
        OptionSpec(PREFIX_OPTIONS["packing-slip"], "string", "PS", SECTION, "Packing slip number prefix"),
        OptionSpec("invoicing.number_padding", "int", 5, SECTION, "Digits of the sequence number", min=1, max=12),
        OptionSpec("invoicing.font_path", "string", "", SECTION, "Extra TrueType font",
                   description="Path of a .ttf or .ttc file (e.g. a CJK font) used for characters the "
                               "bundled DejaVu Sans lacks."),
        OptionSpec("invoicing.download_rate_limit", "int", 30, SECTION, "Storefront downloads per minute and address",
                   min=1, max=100000),
    ]


def auto_statuses(session):
    text = site_options(session)["invoicing.auto_statuses"]
    return {s for s in text.replace(",", " ").split() if s}
