"""The error catalogue of the store/v1 namespace (beside the host's, ``storeplatform.errors``)."""
from ..errors import ErrorCode

SETTINGS_INVALID_SECTION = ErrorCode(404, "rest_settings_invalid_section", "No such settings section.")
PRODUCT_INVALID_ID = ErrorCode(404, "rest_product_invalid_id", "Invalid product ID.")
ORDER_INVALID_ID = ErrorCode(404, "rest_order_invalid_id", "Invalid order ID.")
ORDER_IN_USE = ErrorCode(409, "rest_order_in_use", "The order is referenced by other records.")
NO_SESSION = ErrorCode(401, "rest_not_logged_in", "No valid session cookie.")
SEND_CREDENTIALS = ErrorCode(401, "rest_not_logged_in", "Send login and password, or authenticate.")
