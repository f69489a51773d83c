"""Which variant of ``events/v1`` a site serves: the ini key ``events.api_variant`` of
``[app:main]``, read once when the site starts (an unknown value stops it with one line)."""
from storeplatform.api import SettingsError

KEY = "events.api_variant"
STANDARD = "standard"
ALTERNATE = "alternate"
VARIANTS = (STANDARD, ALTERNATE)


def api_variant(settings):
    """``standard`` (the default, also for an empty value) or ``alternate``."""
    value = str(settings.get(KEY) or "").strip() or STANDARD
    if value not in VARIANTS:
        raise SettingsError(f"{KEY} must be standard or alternate, not {settings[KEY]!r}")
    return value
