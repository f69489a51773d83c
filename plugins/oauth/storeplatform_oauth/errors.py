"""Every error an OAuth request can get: 401 in the host's error shape, one code per cause
(the key's permissions are the host's 403 ``rest_consumer_key_permissions``, as with Basic)."""
from storeplatform.api import ErrorCode

MISSING_PARAMETERS = ErrorCode(401, "rest_oauth_missing_parameters", "OAuth parameters are missing.")
INVALID_PARAMETER = ErrorCode(401, "rest_oauth_invalid_parameter", "An OAuth parameter is malformed.")
UNSUPPORTED_SIGNATURE_METHOD = ErrorCode(
    401, "rest_oauth_unsupported_signature_method",
    "The signature method is not supported: use HMAC-SHA1 or HMAC-SHA256.")
STALE_TIMESTAMP = ErrorCode(401, "rest_oauth_stale_timestamp",
                            "The timestamp is more than 15 minutes away from the server's time.")
UNKNOWN_CONSUMER_KEY = ErrorCode(401, "rest_oauth_unknown_consumer_key", "The consumer key is not known.")
BASIC_ONLY_KEY = ErrorCode(
    401, "rest_oauth_basic_only_key",
    "This consumer key was issued before secrets were kept and works with Basic authentication "
    "over HTTPS only; issue a new key to sign requests.")
INVALID_SIGNATURE = ErrorCode(401, "rest_oauth_invalid_signature",
                              "The signature does not match the request.")
NONCE_USED = ErrorCode(401, "rest_oauth_nonce_used", "The nonce has already been used with this consumer key.")
