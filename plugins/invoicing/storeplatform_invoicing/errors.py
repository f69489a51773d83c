"""The error catalogue of the invoicing plugin: every ``invoicing_*`` code it answers, on the
``invoicing/v1`` routes and on the storefront link. Domain code raises ``UnbillableOrder``
(documents.py); ``order_not_billable`` is the one place it becomes a REST error."""
from storeplatform.api import ErrorCode

ORDER_NOT_FOUND = ErrorCode(404, "invoicing_order_not_found", "Invalid order ID.")
DOCUMENT_NOT_FOUND = ErrorCode(404, "invoicing_document_not_found",
                               "This order has no document yet; POST regenerate creates one.")
ORDER_NOT_BILLABLE = ErrorCode(422, "invoicing_order_not_billable",
                               "The order is cancelled or failed; send force_type to make a document anyway.")
# One answer for an unknown order and a wrong key, so the storefront link reveals neither.
INVALID_LINK = ErrorCode(404, "invoicing_invalid_link", "The document link is invalid or has expired.")
TOO_MANY_REQUESTS = ErrorCode(429, "invoicing_too_many_requests", "Too many download attempts; try again later.")


def order_not_billable(exc):
    """The REST error of an ``UnbillableOrder`` (registered with ``config.add_error_translation``)."""
    return ORDER_NOT_BILLABLE(f"The order is {exc.status}; send force_type to make a document anyway.",
                              order_status=exc.status)
