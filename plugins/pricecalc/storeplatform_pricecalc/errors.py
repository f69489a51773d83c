"""The error catalogue of ``pricecalc/v1``: every code the namespace answers, with its status and
usual message, in one place. Views raise these; the pricing raises ``MeasurementError`` and
``MissingMeasurements`` (pricing.py), which the translations below turn into REST errors, once,
in the plugin's includeme. Bad configuration values are the host's ``InvalidParams``."""
from storeplatform.api import FORBIDDEN as HOST_FORBIDDEN, NOT_LOGGED_IN, ErrorCode

# The namespace's policy codes for a missing login (401) and a missing capability (403); the
# host raises them with its own messages.
UNAUTHORIZED = ErrorCode(401, "unauthorized", NOT_LOGGED_IN.message)
FORBIDDEN = ErrorCode(403, "forbidden", HOST_FORBIDDEN.message)

INVALID_PRODUCT = ErrorCode(404, "invalid_product", "Invalid product: not found or calculator not enabled.")
MISSING_MEASUREMENTS = ErrorCode(400, "missing_measurements", "Missing measurement(s).")
INVALID_MEASUREMENT = ErrorCode(400, "invalid_measurement", "Invalid measurement.")


def missing_measurements(exc):
    """The REST error of a ``MissingMeasurements``: the inputs by name, each ``required``."""
    return MISSING_MEASUREMENTS(str(exc), fields=exc.fields, params={name: "required" for name in exc.fields})


def invalid_measurement(exc):
    """The REST error of a ``MeasurementError``: the first bad input as ``field``, all of them
    in ``params``."""
    return INVALID_MEASUREMENT(str(exc), field=exc.field, params=exc.params)
