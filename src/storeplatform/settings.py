"""Settings of the host: ini keys, their defaults and the environment overrides."""
import os
import secrets
from pathlib import Path

from pyramid.settings import aslist

from .client import parse_trusted_proxies
from .db.pool import pool_settings
from .metrics import metrics_settings
from .tracing import traces_setting
from .values import is_digits

ENV_OVERRIDES = {
    "STOREPLATFORM_DATABASE_URL": "sqlalchemy.url",
    "STOREPLATFORM_HUEY_URL": "huey.url",
    "STOREPLATFORM_SECRET": "storeplatform.secret",
    "STOREPLATFORM_METRICS_TOKEN": "storeplatform.metrics_token",
    "STOREPLATFORM_METRICS_DIR": "storeplatform.metrics_dir",
}

DEFAULTS = {
    "sqlalchemy.url": "sqlite:///%(here)s/var/storeplatform.sqlite",
    "huey.url": "sqlite:///%(here)s/var/huey.sqlite",
    "huey.embedded_consumer": "true",
    "huey.workers": "2",
    "huey.name": "storeplatform",
    "storeplatform.plugins": "",
    "storeplatform.rest_prefix": "/api",
    "storeplatform.secret": "",
    "storeplatform.allow_http_consumer_keys": "false",
    "storeplatform.trusted_proxies": "",
    "storeplatform.jwt_lifetime": "3600",
    "storeplatform.session_lifetime": "1209600",
    "storeplatform.metrics": "false",
    "storeplatform.metrics_allow": "",
    "storeplatform.metrics_token": "",
    "storeplatform.metrics_dir": "",
    "storeplatform.traces": "off",
}


class SettingsError(Exception):
    """A setting has a value the platform cannot run with."""


DATABASE_SCHEMES = ("sqlite:///", "postgresql://", "postgres://", "postgresql+psycopg://")
QUEUE_SCHEMES = ("memory://", "sqlite:///", "redis://", "rediss://", "unix://")
BOOLEANS = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}
BOOLEAN_KEYS = ("huey.embedded_consumer", "storeplatform.allow_http_consumer_keys", "storeplatform.metrics")
INTEGER_KEYS = {"huey.workers": 1, "storeplatform.jwt_lifetime": 1, "storeplatform.session_lifetime": 1}


def strict_bool(settings, key):
    value = str(settings[key]).strip().lower()
    if value not in BOOLEANS:
        raise SettingsError(f"{key} must be true or false, not {settings[key]!r}")
    return BOOLEANS[value]


def strict_int(settings, key, minimum):
    text = str(settings[key]).strip()
    if not is_digits(text) or int(text) < minimum:
        raise SettingsError(f"{key} must be a whole number of at least {minimum}, not {settings[key]!r}")
    return int(text)


def _check_urls(settings):
    url = settings["sqlalchemy.url"]
    if not url.startswith(DATABASE_SCHEMES):
        raise SettingsError(f"sqlalchemy.url must start with sqlite:/// or postgresql://, not {url!r}")
    url = settings["huey.url"]
    if not url.startswith(QUEUE_SCHEMES):
        raise SettingsError(f"huey.url must start with sqlite:///, redis:// or memory://, not {url!r}")


def normalize(settings, environ):
    """Return a new settings dict: defaults, then the ini, then ``environ`` (the process
    environment, or what a test passes instead).

    Values are kept as text in the dict (Pyramid's convention) except the few parsed
    values the rest of the host reads often, stored under ``storeplatform.parsed``.
    """
    result = dict(settings)
    here = result.get("here") or os.getcwd()
    for key, value in DEFAULTS.items():
        if key not in result or result[key] in (None, ""):
            result[key] = value % {"here": here} if "%(here)s" in value else value
    for env, key in ENV_OVERRIDES.items():
        if environ.get(env):
            result[key] = environ[env]
    # Checked by type before anything uses them: a typo is named, not reported as its consequence.
    _check_urls(result)
    parsed_bools = {key: strict_bool(result, key) for key in BOOLEAN_KEYS}
    parsed_ints = {key: strict_int(result, key, minimum) for key, minimum in INTEGER_KEYS.items()}
    prefix = "/" + result["storeplatform.rest_prefix"].strip("/")
    if prefix == "/":
        raise SettingsError("storeplatform.rest_prefix must not be empty")
    result["storeplatform.rest_prefix"] = prefix
    if not result["storeplatform.secret"]:
        result["storeplatform.secret"] = _development_secret(result)
    _make_sqlite_dirs(result)
    try:
        trusted_proxies = parse_trusted_proxies(result["storeplatform.trusted_proxies"])
    except ValueError as exc:
        raise SettingsError(str(exc))
    try:
        pool_size, pool_timeout = pool_settings(result)
        metrics = metrics_settings(result, parsed_bools["storeplatform.metrics"])
        traces = traces_setting(result)
    except ValueError as exc:
        raise SettingsError(str(exc))
    result["storeplatform.parsed"] = {
        "plugins": aslist(result["storeplatform.plugins"]),
        "allow_http_consumer_keys": parsed_bools["storeplatform.allow_http_consumer_keys"],
        "trusted_proxies": trusted_proxies,
        "embedded_consumer": parsed_bools["huey.embedded_consumer"],
        "jwt_lifetime": parsed_ints["storeplatform.jwt_lifetime"],
        "session_lifetime": parsed_ints["storeplatform.session_lifetime"],
        "huey_workers": parsed_ints["huey.workers"],
        "pool_size": pool_size,
        "pool_timeout": pool_timeout,
        "metrics": metrics,
        "traces": traces,
    }
    return result


def _development_secret(settings):
    """A secret kept in var/ so that tokens survive restarts of a development site.

    Production sets storeplatform.secret or STOREPLATFORM_SECRET; several processes
    of one site must share it.
    """
    url = settings["sqlalchemy.url"]
    if url.startswith("sqlite:///") and not url.endswith(":memory:"):
        path = Path(url[len("sqlite:///"):]).parent / "secret.key"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_hex(32))
        return path.read_text().strip()
    raise SettingsError("storeplatform.secret (or STOREPLATFORM_SECRET) is required with a database server")


def _make_sqlite_dirs(settings):
    for key in ("sqlalchemy.url", "huey.url"):
        url = settings[key]
        if url.startswith("sqlite:///") and ":memory:" not in url:
            Path(url[len("sqlite:///"):].split("?")[0]).parent.mkdir(parents=True, exist_ok=True)
