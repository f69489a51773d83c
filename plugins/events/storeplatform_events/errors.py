"""The error catalogue of ``events/v1``: every ``evt_*`` code the namespace answers, with its
status and usual message, in one place (views raise these; domain code raises ``TicketError``
or ``InvalidParams``, which the plugin maps once in its includeme)."""
from storeplatform.api import FORBIDDEN, ErrorCode

# The namespace's policy code for a missing login (401) and a missing capability (403); the
# host raises it with its own message.
REST_FORBIDDEN = ErrorCode(403, "evt_rest_forbidden", FORBIDDEN.message)
API_DISABLED = ErrorCode(403, "evt_api_disabled", "The events REST API is disabled in the settings.")

EVENT_INVALID_ID = ErrorCode(404, "evt_rest_event_invalid_id", "Invalid event ID.")
VENUE_INVALID_ID = ErrorCode(404, "evt_rest_venue_invalid_id", "Invalid venue ID.")
ORGANIZER_INVALID_ID = ErrorCode(404, "evt_rest_organizer_invalid_id", "Invalid organizer ID.")
# The message names the kind: "The event could not be deleted."
CANNOT_DELETE = ErrorCode(500, "evt_rest_cannot_delete", "The item could not be deleted.")

ATTENDEE_INVALID_ID = ErrorCode(404, "evt_rest_attendee_invalid_id", "Invalid attendee ID.")
ATTENDEE_INVALID_CODE = ErrorCode(404, "evt_rest_attendee_invalid_code", "Invalid ticket code.")

# Check-in and check-out (raised as TicketError by checkin.py, so that the CLI prints them too).
INVALID_TICKET = ErrorCode(404, "evt_rest_invalid_ticket", "Invalid ticket code.")
WRONG_EVENT = ErrorCode(400, "evt_rest_wrong_event", "This ticket belongs to another event.")
CANCELLED_TICKET = ErrorCode(400, "evt_rest_cancelled_ticket", "This ticket has been cancelled.")
NOT_CHECKED_IN = ErrorCode(400, "evt_rest_not_checked_in", "This attendee is not checked in.")
CHECKIN_FAILED = ErrorCode(500, "evt_rest_checkin_failed", "The check-in failed; the ticket is unchanged.")

WEBHOOK_INVALID_ID = ErrorCode(404, "evt_rest_webhook_invalid_id", "Invalid webhook ID.")

# The tickets message sent again (ticket_mail.py, #41; routes the contract does not define).
ORDER_INVALID_ID = ErrorCode(404, "evt_rest_order_invalid_id", "Invalid order ID.")
NO_ACTIVE_TICKETS = ErrorCode(409, "evt_rest_no_active_tickets", "This order has no ticket that is not cancelled.")
NO_TICKET_ADDRESS = ErrorCode(409, "evt_rest_no_ticket_address", "This order has no billing e-mail address.")
