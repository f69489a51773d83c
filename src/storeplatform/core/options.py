"""Site options: declared by the host and plugins (key, type, default, section, label), kept
in the ``options`` table, kept per process until one of them changes."""
import ipaddress
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import cache
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, available_timezones

from sqlalchemy.exc import IntegrityError

from .db import registry_of
from .cache import cached, forget_transaction_state, note_tables
from .currency_codes import CURRENCY_CODES
from .db.generations import stored_options
from .errors import InvalidParams
from .values import parse_bool, parse_decimal
from .models import Option

TYPES = ("bool", "string", "text", "int", "decimal", "choice", "multichoice", "timezone", "url", "email",
         "currency")
HOST = ""  # the ``plugin`` of the host's own options
# The longest string or text of a spec that sets no ``max``: a line (a name, a label), a text
# (an address, a note).
MAX_LENGTH = {"string": 255, "text": 10_000}
URL_MAX_LENGTH = 2_000
EMAIL_MAX_LENGTH = 254  # the longest address SMTP carries (RFC 5321's path, less its brackets)
DECIMAL_PLACES = 12
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OptionSpec:
    """One site option. ``choices``: the values a ``choice`` (one of them) or ``multichoice``
    (a list of them) may take, either a tuple or a function of the site's ini settings returning
    them (choices that depend on the deployment, e.g. the fonts installed). ``hidden``: kept for
    REST clients and the CLI but left off the admin's settings pages (a value with no effect
    there that a service contract names). ``plugin`` is filled in when the specs are collected:
    the name of the plugin that declared the option (``""`` for the host's).

    ``min``/``max``: the bounds of an ``int`` or ``decimal`` (both required: an unbounded number
    stops start-up), or of the length in characters of a ``string`` or ``text`` (by default
    0 and ``MAX_LENGTH``). A ``url``, ``email`` or ``currency`` option whose default is empty
    takes the empty value (it means "not set"); one with a value as its default always needs
    one."""

    key: str
    type: str
    default: object
    section: str
    label: str
    description: str = ""
    choices: tuple | Callable = field(default=())
    min: int | Decimal | str | None = None
    max: int | Decimal | str | None = None
    hidden: bool = False
    plugin: str = HOST


class OptionError(ValueError):
    """A value that the option's type refuses; the message says why."""


def collect_specs(pm):
    """Every declared option by key, each marked with the plugin that declared it (the host's
    own modules, ``storeplatform.*``, are the host)."""
    specs = {}
    for impl in reversed(pm.hook.storeplatform_site_options.get_hookimpls()):  # pluggy's call order
        name = pm.get_name(impl.plugin) or ""
        plugin = HOST if name.startswith("storeplatform.") else name
        for spec in impl.function() or ():
            _check_declaration(spec)
            if spec.key in specs:
                raise ValueError(f"option {spec.key} is declared twice")
            specs[spec.key] = replace(spec, plugin=plugin)
    return specs


def _check_declaration(spec):
    """A declaration the kinds can serve, else ValueError (start-up stops, naming the option):
    a known type, bounds of a number, a default its own kind takes."""
    if spec.type not in TYPES:
        raise ValueError(f"option {spec.key}: unknown type {spec.type!r}")
    if spec.type in ("int", "decimal") and spec.min is not None and spec.max is not None:
        if Decimal(str(spec.min)) > Decimal(str(spec.max)):
            raise ValueError(f"option {spec.key}: min is larger than max")
    if not callable(spec.choices):  # choices of the deployment: known once the site's ini is
        try:
            coerce(spec, spec.default)
        except OptionError as exc:
            raise ValueError(f"option {spec.key}: its default {spec.default!r} is refused: {exc}")


def specs_of(registry):
    return registry["options.specs"]


def choices_of(spec, registry):
    """The values ``spec`` may take on this site (its choices, or what its function returns)."""
    if callable(spec.choices):
        return tuple(spec.choices(registry.settings or {}))
    return tuple(spec.choices)


def coerce(spec, value, choices=None):
    """The typed value for ``value`` (JSON value or text from the CLI), or OptionError whose
    message starts with the option's key. ``choices``: the spec's choices on this site
    (``choices_of``), for a spec whose choices are a function. Every writer goes through it
    (``set_option``, ``set_options``), and so does every read of a stored value (``_readable``)."""
    if spec.type in ("choice", "multichoice"):
        allowed = tuple(spec.choices) if choices is None else tuple(choices)
        return (_choice if spec.type == "choice" else _multichoice)(spec, value, allowed)
    return _COERCE.get(spec.type, _text)(spec, value)


def _bool(spec, value):
    try:
        return parse_bool(value)
    except ValueError:
        raise OptionError(f"{spec.key} must be true or false")


def _int(spec, value):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise OptionError(f"{spec.key} must be an integer")
    try:
        number = int(value.strip()) if isinstance(value, str) else value
    except ValueError:  # not digits, or more of them than int() reads (4,300)
        raise OptionError(f"{spec.key} must be an integer")
    _check_range(spec, number)
    return number


def _decimal(spec, value):
    """Kept as text (exact), without an exponent: ``"1E+2"`` is ``"100"``."""
    try:
        number = parse_decimal(value)
    except ValueError:
        raise OptionError(f"{spec.key} must be a finite number")
    _check_range(spec, number)
    if number.as_tuple().exponent < -DECIMAL_PLACES:
        raise OptionError(f"{spec.key} must have at most {DECIMAL_PLACES} decimal places")
    return f"{number:f}"


# The bounds of a number option that declares none (or only one): what every JSON client reads
# exactly (an integer) and what a price or a rate could ever be (a decimal). A plugin's option
# without bounds still refuses 10**30.
IMPLICIT_BOUNDS = {"int": (-(2 ** 53 - 1), 2 ** 53 - 1), "decimal": (-(10 ** 15), 10 ** 15)}


def _check_range(spec, number):
    implicit = IMPLICIT_BOUNDS[spec.type]
    low, high = (Decimal(str(implicit[n] if bound is None else bound)) for n, bound in enumerate((spec.min, spec.max)))
    if number < low or number > high:
        raise OptionError(f"{spec.key} must be between {low} and {high}")


def _text(spec, value):
    """A ``string`` (one line) or a ``text`` (lines: CRLF, as browsers and some clients send
    them, is kept as LF) within its length bounds, of characters that print: no control
    character but a text's line break and tab, no lone surrogate (which no UTF-8 database or
    JSON encoder takes)."""
    if not isinstance(value, str):
        raise OptionError(f"{spec.key} must be text")
    if spec.type == "text":
        value = value.replace("\r\n", "\n")
    _check_characters(spec, value, _TEXT_CONTROL if spec.type == "text" else _CONTROL)
    low, high = spec.min or 0, spec.max if spec.max is not None else MAX_LENGTH[spec.type]
    if len(value) < low:
        raise OptionError(f"{spec.key} must not be empty" if low == 1 else
                          f"{spec.key} must be at least {low} characters long")
    if len(value) > high:
        raise OptionError(f"{spec.key} must be at most {high} characters long")
    return value


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_TEXT_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # a text keeps \t and \n
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_characters(spec, value, control):
    if _SURROGATE.search(value):
        raise OptionError(f"{spec.key} must be valid Unicode text")
    if control.search(value):
        raise OptionError(f"{spec.key} must not contain control characters")


def _word(spec, value, what):
    """The text of a one-word kind (url, e-mail address, currency code, time zone), without
    the spaces around it (a value pasted into a form or a shell); None for the empty value
    where the option takes it (its default is empty), else OptionError saying ``what`` it must
    be."""
    if not isinstance(value, str):
        raise OptionError(f"{spec.key} must be {what}")
    _check_characters(spec, value, _CONTROL)
    text = value.strip()
    if not text:
        if spec.default == "":
            return None
        raise OptionError(f"{spec.key} must be {what}")
    return text


def _timezone(spec, value):
    what = "a time zone name such as Europe/Paris"
    name = _word(spec, value, what)
    if name is not None and name not in _zone_names():
        raise OptionError(f"{spec.key} must be {what}")
    return name or ""


@cache
def _zone_names():
    # The zones the system (or the tzdata package) has: the admin's list, and nothing ZoneInfo
    # would read from another path. Read once per process: a new tz database needs a restart.
    return frozenset(available_timezones() | {"UTC"})


def _currency(spec, value):
    """An ISO 4217 code of a currency in circulation, upper-case (``eur`` is ``EUR``)."""
    what = "an ISO 4217 currency code such as USD or EUR"
    code = _word(spec, value, what)
    if code is None:
        return ""
    # ASCII before upper(): "uſd".upper() is "USD".
    if not code.isascii() or code.upper() not in CURRENCY_CODES:
        raise OptionError(f"{spec.key} must be {what}")
    return code.upper()


# What RFC 3986 never allows in a URL (whitespace, Unicode's too, is checked by the same search).
_URL_FORBIDDEN = re.compile(r'[\s"<>\\^`{|}]')
_HOST_LABEL = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")
_EMAIL_LOCAL = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")


def _url(spec, value):
    """The address of a site or of a page others are appended to (``site.url`` + a path): an
    absolute http or https URL with a host and optionally a port and a path, without its
    trailing slashes (``https://shop.example.com/`` is ``https://shop.example.com``), with no
    query, fragment, or user name and password."""
    what = "an absolute http or https URL such as https://shop.example.com"
    text = _word(spec, value, what)
    if text is None:
        return ""
    problem = _url_problem(text)
    if problem:
        raise OptionError(f"{spec.key} must be {what} ({problem})")
    return text.rstrip("/")


def _url_problem(text):
    if len(text) > URL_MAX_LENGTH:
        return f"at most {URL_MAX_LENGTH} characters"
    if _URL_FORBIDDEN.search(text):
        return 'no spaces and none of " < > \\ ^ ` { | }'
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:  # a port out of range, a bracket not closed
        return "a port from 1 to 65535" if "port" in str(exc).lower() else "a malformed address"
    if parts.scheme not in ("http", "https") or not text.lower().startswith(parts.scheme + "://"):
        return "it must start with http:// or https://"
    if parts.username is not None or parts.password is not None:
        return "no user name or password"
    if "?" in text or "#" in text:
        return "no query or fragment"
    if port == 0:
        return "a port from 1 to 65535"
    if not _host_ok(parts.hostname or "", bracketed=parts.netloc.rpartition("@")[2].startswith("[")):
        return "no valid host name"
    return None


def _host_ok(host, bracketed=False, dotted=False):
    """A host name (an internationalized one too), an IPv4 address, or (``bracketed``) an
    IPv6 address; ``dotted``: of two labels at least (an e-mail address's domain)."""
    if bracketed:
        try:
            return isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address)
        except ValueError:
            return False
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:  # an empty label, one longer than 63 characters
        return False
    labels = ascii_host.split(".")
    if not host or len(ascii_host) > 253 or not all(_HOST_LABEL.fullmatch(label) for label in labels):
        return False
    if all(label.isdigit() for label in labels):  # numbers only: an IPv4 address or nothing
        try:
            ipaddress.IPv4Address(ascii_host)
        except ValueError:
            return False
        return not dotted
    return len(labels) > 1 or not dotted


def _email(spec, value):
    """An address ``local@domain``: the local part in the dot-atoms of RFC 5322 (ASCII: no
    quoted forms, no SMTPUTF8), the domain a host name of two labels at least (an
    internationalized one too)."""
    what = "an e-mail address such as shop@example.com"
    text = _word(spec, value, what)
    if text is None:
        return ""
    local, at, domain = text.rpartition("@")
    if (not at or len(text) > EMAIL_MAX_LENGTH or len(local) > 64 or not _EMAIL_LOCAL.fullmatch(local)
            or not _host_ok(domain, dotted=True)):
        raise OptionError(f"{spec.key} must be {what}")
    return text


_COERCE = {"bool": _bool, "int": _int, "decimal": _decimal, "timezone": _timezone, "url": _url, "email": _email,
           "currency": _currency}


def _choice(spec, value, allowed):
    if isinstance(value, (str, int)) and not isinstance(value, bool) and value in allowed:
        return value
    named = ", ".join(str(c) for c in allowed if c != "")
    if "" in allowed:
        raise OptionError(f"{spec.key} must be empty or one of {named}" if named else f"{spec.key} must be empty")
    raise OptionError(f"{spec.key} must be one of {named}")


def _multichoice(spec, value, allowed):
    """A list of choices, in the order of the choices, each once. Sent as a JSON list, or as
    text: the names separated by spaces or commas, or the JSON list ``option get`` prints (the
    command line)."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.lstrip().startswith("[") else value.replace(",", " ").split()
        except ValueError:
            raise OptionError(f"{spec.key} must be a list of names")
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise OptionError(f"{spec.key} must be a list of names")
    unknown = [item for item in value if item not in allowed]
    if unknown:
        raise OptionError(f"{spec.key}: {', '.join(map(_shown, unknown))} not one of {', '.join(allowed)}")
    return [choice for choice in allowed if choice in value]


def _shown(text):
    """A value sent, as an error message repeats it: short, every character printable (a
    control character or a lone surrogate as its escape: no answer fails to encode it)."""
    text = text if len(text) <= 40 else text[:40] + "…"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def site_options(session):
    """Every option's value (stored or default) by key; an unknown key is a KeyError.
    ``request.site_options`` is the same for a request. Kept per transaction, and per process by
    the host's cache until an option changes (a transaction that wrote one reads the table): the
    rows come with the generations, in one query per transaction. The mapping is shared: read
    it, never change it."""
    cache = session.info.get("options")
    if cache is None:
        cache = session.info["options"] = _site_options(session)
    return cache


@cached
def _site_options(session):
    # The stored values come with the site state (no statement of this function names the
    # table), so the table is named here: a transaction that wrote an option computes afresh.
    note_tables(("options",))
    specs = specs_of(registry_of(session))
    stored = stored_options(session)
    return {key: _readable(spec, stored[key]) if key in stored else spec.default for key, spec in specs.items()}


_refused_reads = set()  # (key, value) pairs already warned of by this process


def _readable(spec, value):
    """A stored value as its kind reads it now. A value stored before its kind refused it (a
    ``site.url`` of ``not a url``, a currency ``XYZ123``) is read as the default, with one warning
    per process, until it is set again: the site keeps working. Values the kind cannot judge alone
    are read as stored: a choice among what the deployment has (a font since removed: the
    settings page marks it, the plugin does without it) and a set of choices (a default would
    turn on what the owner turned off; its readers skip an unknown name)."""
    if spec.type == "multichoice" or callable(spec.choices):
        return value
    try:
        return coerce(spec, value)
    except OptionError as exc:
        seen = (spec.key, repr(value)[:200])
        if seen not in _refused_reads:
            _refused_reads.add(seen)
            log.warning("option %s: the stored value %s is refused (%s); the default %r is used until it is "
                        "set again", spec.key, _shown(repr(value)), exc, spec.default)
        return spec.default


def set_option(session, key, value):
    """Validate and store one option; returns the stored value."""
    registry = registry_of(session)
    specs = specs_of(registry)
    if key not in specs:
        raise OptionError(f"unknown option {key!r}")
    value = coerce(specs[key], value, choices_of(specs[key], registry))
    row = session.get(Option, key)
    old = specs[key].default if row is None else row.value  # for the audit log
    if isinstance(old, tuple):
        old = list(old)  # a multichoice's default, as its stored and coerced values are
    if row is None:
        try:
            # Two transactions setting an option for the first time at once both find no row;
            # the database lets one insert it and the other (after waiting) update it.
            with session.begin_nested():
                session.add(Option(key=key, value=value))
        except IntegrityError:
            row = session.get(Option, key)
    if row is not None:
        row.value = value
    session.flush()
    session.info.pop("options", None)
    forget_transaction_state(session)  # the site's time zone may be what changed
    if old != value:
        from .audit import option_changed

        option_changed(session, specs[key], old, value)
    return value


def section_specs(registry, section):
    """The specs of one settings section, in declaration order (empty for an unknown section)."""
    return [spec for spec in specs_of(registry).values() if spec.section == section]


def group_of(spec):
    """The settings page an option is shown on: its plugin's name, or for the host's own
    options their section (general, store, security...)."""
    return spec.plugin or spec.section


def groups_of(registry):
    """The settings pages: the host's sections (``general`` first), then one per plugin that
    declares options, by name; hidden options count for none."""
    host = {spec.section for spec in specs_of(registry).values() if not spec.plugin and not spec.hidden}
    plugins = {spec.plugin for spec in specs_of(registry).values() if spec.plugin and not spec.hidden}
    # general first, advanced last, the others by name (plugins register in no order a reader
    # could rely on)
    return [*sorted(host, key=lambda name: (name != "general", name == "advanced", name)),
            *sorted(plugins - host)]


def group_specs(registry, group):
    """The options shown on one settings page, in declaration order, hidden ones left out."""
    return [spec for spec in specs_of(registry).values() if group_of(spec) == group and not spec.hidden]


def set_options(session, values, specs, outside="not an option of this page"):
    """Validate and store ``values`` (``{key: value}``), each key one of ``specs``: the one
    write path of ``PUT store/v1/settings/<section>`` and the admin's settings pages. Raises
    ``InvalidParams`` naming every bad key and value at once, before any is written: nothing is
    half-saved (the caller aborts its transaction all the same)."""
    registry = registry_of(session)
    by_key = {spec.key: spec for spec in specs}
    errors = {key: outside for key in values if key not in by_key}
    for key, value in values.items():
        if key in errors:
            continue
        try:
            coerce(by_key[key], value, choices_of(by_key[key], registry))
        except OptionError as exc:
            errors[key] = str(exc)
    if errors:
        raise InvalidParams(errors)
    for key, value in values.items():
        set_option(session, key, value)


def set_section(session, section, values):
    """``set_options`` for the options of one section (``PUT store/v1/settings/<section>``)."""
    set_options(session, values, section_specs(registry_of(session), section),
                outside=f"not an option of section {section}")


def site_timezone(session):
    return ZoneInfo(site_options(session)["site.timezone"])
