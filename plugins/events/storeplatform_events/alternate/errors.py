"""The alternate variant's error codes: the generic ones of its spec (``rest_forbidden``,
``rest_not_found``, ``rest_invalid_param``, ``rest_cannot_create``) in place of the ``evt_rest_*``
codes, and the one mapping from the standard catalogue to them."""
from storeplatform.api import FORBIDDEN, ErrorCode, RestError

from .. import errors as standard

REST_FORBIDDEN = FORBIDDEN
NOT_FOUND = ErrorCode(404, "rest_not_found", "Not found.")
SPEAKER_INVALID_ID = ErrorCode(404, NOT_FOUND.code, "Invalid speaker ID.")
CANNOT_CREATE = ErrorCode(403, "rest_cannot_create", "Sorry, you are not allowed to create this item.")
# The spec names no generic code for a failed delete; the classic CMS's own is this one.
CANNOT_DELETE = ErrorCode(500, "rest_cannot_delete", "The item could not be deleted.")

GENERIC = {
    **{entry.code: NOT_FOUND for entry in (
        standard.EVENT_INVALID_ID, standard.VENUE_INVALID_ID, standard.ORGANIZER_INVALID_ID,
        standard.ATTENDEE_INVALID_ID, standard.ATTENDEE_INVALID_CODE, standard.INVALID_TICKET,
        standard.WEBHOOK_INVALID_ID, standard.ORDER_INVALID_ID)},
    standard.CANNOT_DELETE.code: CANNOT_DELETE,
    standard.REST_FORBIDDEN.code: REST_FORBIDDEN,
}


def generic(exc):
    """The error ``exc`` (a ``RestError``) with the variant's generic code for its standard one;
    its message (which names the kind: "Invalid event ID.") and data are kept."""
    target = GENERIC.get(exc.code)
    if target is None:
        return exc
    # A missing login stays 401; every other entry has one status.
    status = exc.status if target is REST_FORBIDDEN else target.status
    return RestError(status, target.code, exc.message, headers=exc.headers, **exc.data)


def forbidden_to_create(exc):
    """A refused create (no ``edit_posts``, or no ``publish_posts`` to publish) as
    ``rest_cannot_create``: 403, or 401 when nobody is logged in."""
    if exc.code != REST_FORBIDDEN.code:
        return exc
    return RestError(exc.status, CANNOT_CREATE.code, CANNOT_CREATE.message, headers=exc.headers, **exc.data)
