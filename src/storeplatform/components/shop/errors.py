"""The error catalogue of the store/v1 namespace (beside the host's, ``storeplatform.errors``)."""
from storeplatform.core.errors import ErrorCode

SETTINGS_INVALID_SECTION = ErrorCode(404, "rest_settings_invalid_section", "No such settings section.")
PRODUCT_INVALID_ID = ErrorCode(404, "rest_product_invalid_id", "Invalid product ID.")
ORDER_INVALID_ID = ErrorCode(404, "rest_order_invalid_id", "Invalid order ID.")
ORDER_IN_USE = ErrorCode(409, "rest_order_in_use", "The order is referenced by other records.")
ORDER_NOTE_INVALID_ID = ErrorCode(404, "rest_order_note_invalid_id", "Invalid order note ID.")
ORDER_REFUND_INVALID_ID = ErrorCode(404, "rest_order_refund_invalid_id", "Invalid order refund ID.")
ORDER_NOT_REFUNDABLE = ErrorCode(409, "rest_order_not_refundable",
                                 "Only a paid order (processing or completed) can be refunded.")
NO_SESSION = ErrorCode(401, "rest_not_logged_in", "No valid session cookie.")
SEND_CREDENTIALS = ErrorCode(401, "rest_not_logged_in", "Send login and password, or authenticate.")

# Accounts (#28): users and their credentials (storeplatform.components.shop.accounts raises them, whoever calls).
USER_INVALID_ID = ErrorCode(404, "rest_user_invalid_id", "Invalid user ID.")
APP_PASSWORD_NOT_FOUND = ErrorCode(404, "rest_application_password_not_found", "No such application password.")
CONSUMER_KEY_NOT_FOUND = ErrorCode(404, "rest_consumer_key_not_found", "No such consumer key.")
CANNOT_CREATE_USER = ErrorCode(403, "rest_cannot_create_user", "Sorry, you are not allowed to create this user.")
CANNOT_EDIT_USER = ErrorCode(403, "rest_cannot_edit", "Sorry, you are not allowed to edit this user.")
CANNOT_EDIT_ROLES = ErrorCode(403, "rest_cannot_edit_roles", "Sorry, you are not allowed to change roles.")
CANNOT_DELETE_USER = ErrorCode(403, "rest_user_cannot_delete", "Sorry, you are not allowed to delete this user.")
CANNOT_CHANGE_SELF = ErrorCode(403, "rest_user_cannot_change_self",
                               "You cannot delete, disable or change the role of your own account; "
                               "another administrator can.")
LAST_ADMINISTRATOR = ErrorCode(409, "rest_user_last_administrator",
                               "The site's last active administrator cannot be demoted, disabled or deleted.")
# WordPress's refusals of "introspect" (#43): the password that authenticated this request.
NO_AUTHENTICATED_APP_PASSWORD = ErrorCode(404, "rest_no_authenticated_app_password",
                                          "Cannot introspect application password.")
CANNOT_INTROSPECT_OTHER = ErrorCode(403, "rest_cannot_introspect_app_password_for_non_authenticated_user",
                                    "The authenticated application password can only be introspected for the "
                                    "current user.")
USER_DISABLED = ErrorCode(409, "rest_user_disabled", "The user is disabled: enable the user first.")
