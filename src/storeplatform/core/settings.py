"""Settings of the host: ini keys, their defaults and the environment overrides; a component
reads its own keys through a ``SettingsSection``."""
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pyramid.settings import aslist

from .client import parse_trusted_proxies
from .db.pool import pool_settings
from .private_files import make_private_dirs
from .values import is_digits

ENV_OVERRIDES = {
    "STOREPLATFORM_DATABASE_URL": "sqlalchemy.url",
    "STOREPLATFORM_HUEY_URL": "huey.url",
    "STOREPLATFORM_SECRET": "storeplatform.secret",
    "STOREPLATFORM_TRANSACTION_POOLING": "sqlalchemy.transaction_pooling",
}

DEFAULTS = {
    "sqlalchemy.url": "sqlite:///%(here)s/var/storeplatform.sqlite",
    "huey.url": "sqlite:///%(here)s/var/huey.sqlite",
    # The database is reached through a pooler in transaction mode (PgBouncer): no server session
    # state (core/db/session.py).
    "sqlalchemy.transaction_pooling": "false",
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
}


class SettingsError(Exception):
    """A setting has a value the platform cannot run with."""


@dataclass(frozen=True)
class SettingsSection:
    """The ini keys a component reads: their ``defaults``, the environment variables that
    override them (``environ``: variable -> key), and ``parse(settings)``, whose value is kept
    as ``settings["storeplatform.parsed"][name]``; a bad value raises ValueError (or
    SettingsError) naming its key."""

    name: str
    parse: Callable
    defaults: dict = field(default_factory=dict)
    environ: dict = field(default_factory=dict)


DATABASE_SCHEMES = ("sqlite:///", "postgresql://", "postgres://", "postgresql+psycopg://")
QUEUE_SCHEMES = ("memory://", "sqlite:///", "redis://", "rediss://", "unix://")
BOOLEANS = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}
BOOLEAN_KEYS = ("huey.embedded_consumer", "storeplatform.allow_http_consumer_keys", "sqlalchemy.transaction_pooling")
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


def normalize(settings, environ, sections=()):
    """Return a new settings dict: defaults, then the ini, then ``environ`` (the process
    environment, or what a test passes instead), with the keys of the components' ``sections``
    (``SettingsSection``) beside the kernel's.

    Values are kept as text in the dict (Pyramid's convention) except the few parsed
    values the rest of the host reads often, stored under ``storeplatform.parsed``.
    """
    result = _layered(settings, environ, sections)
    # Checked by type before anything uses them: a typo is named, not reported as its consequence.
    _check_urls(result)
    prefix = "/" + result["storeplatform.rest_prefix"].strip("/")
    if prefix == "/":
        raise SettingsError("storeplatform.rest_prefix must not be empty")
    result["storeplatform.rest_prefix"] = prefix
    if not result["storeplatform.secret"]:
        result["storeplatform.secret"] = _development_secret(result)
    _make_sqlite_dirs(result)
    result["storeplatform.parsed"] = _parsed(result, sections)
    return result


def _layered(settings, environ, sections):
    """The ini's settings over the defaults (``%(here)s`` filled in), under the environment's
    overrides: the kernel's and the sections'."""
    result = dict(settings)
    here = result.get("here") or os.getcwd()
    defaults, overrides = dict(DEFAULTS), dict(ENV_OVERRIDES)
    for section in sections:
        defaults.update(section.defaults)
        overrides.update(section.environ)
    for key, value in defaults.items():
        if key not in result or result[key] in (None, ""):
            result[key] = value % {"here": here} if "%(here)s" in value else value
    for env, key in overrides.items():
        if environ.get(env):
            result[key] = environ[env]
    return result


def _parsed(result, sections):
    """The values read often, parsed once: ``settings["storeplatform.parsed"]``."""
    parsed_bools = {key: strict_bool(result, key) for key in BOOLEAN_KEYS}
    parsed_ints = {key: strict_int(result, key, minimum) for key, minimum in INTEGER_KEYS.items()}
    try:
        trusted_proxies = parse_trusted_proxies(result["storeplatform.trusted_proxies"])
        pool_size, pool_timeout = pool_settings(result)
        parsed_sections = {section.name: section.parse(result) for section in sections}
    except ValueError as exc:
        raise SettingsError(str(exc))
    return {
        "plugins": aslist(result["storeplatform.plugins"]),
        "allow_http_consumer_keys": parsed_bools["storeplatform.allow_http_consumer_keys"],
        "trusted_proxies": trusted_proxies,
        "embedded_consumer": parsed_bools["huey.embedded_consumer"],
        "jwt_lifetime": parsed_ints["storeplatform.jwt_lifetime"],
        "session_lifetime": parsed_ints["storeplatform.session_lifetime"],
        "huey_workers": parsed_ints["huey.workers"],
        "pool_size": pool_size,
        "transaction_pooling": parsed_bools["sqlalchemy.transaction_pooling"],
        "pool_timeout": pool_timeout,
        **parsed_sections,
    }


def _development_secret(settings):
    """A secret kept in var/ so that tokens survive restarts of a development site.

    Production sets storeplatform.secret or STOREPLATFORM_SECRET; several processes
    of one site must share it.
    """
    url = settings["sqlalchemy.url"]
    if url.startswith("sqlite:///") and not url.endswith(":memory:"):
        path = Path(url[len("sqlite:///"):]).parent / "secret.key"
        make_private_dirs(path.parent)
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
            make_private_dirs(Path(url[len("sqlite:///"):].split("?")[0]).parent)
