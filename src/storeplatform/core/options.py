"""Site options: declared by the host and plugins (key, type, default, section, label), kept
in the ``options`` table, kept per process until one of them changes."""
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.exc import IntegrityError

from .db import registry_of
from .cache import cached, forget_transaction_state, note_tables
from .db.generations import stored_options
from .errors import InvalidParams
from .values import parse_bool, parse_decimal
from .models import Option

TYPES = ("bool", "string", "text", "int", "decimal", "choice", "multichoice", "timezone")
HOST = ""  # the ``plugin`` of the host's own options


@dataclass(frozen=True)
class OptionSpec:
    """One site option. ``choices``: the values a ``choice`` (one of them) or ``multichoice``
    (a list of them) may take, either a tuple or a function of the site's ini settings returning
    them (choices that depend on the deployment, e.g. the fonts installed). ``hidden``: kept for
    REST clients and the CLI but left off the admin's settings pages (a value with no effect
    there that a service contract names). ``plugin`` is filled in when the specs are collected:
    the name of the plugin that declared the option (``""`` for the host's)."""

    key: str
    type: str
    default: object
    section: str
    label: str
    description: str = ""
    choices: tuple | Callable = field(default=())
    min: int | None = None
    max: int | None = None
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
            if spec.type not in TYPES:
                raise ValueError(f"option {spec.key}: unknown type {spec.type!r}")
            if spec.key in specs:
                raise ValueError(f"option {spec.key} is declared twice")
            specs[spec.key] = replace(spec, plugin=plugin)
    return specs


def specs_of(registry):
    return registry["options.specs"]


def choices_of(spec, registry):
    """The values ``spec`` may take on this site (its choices, or what its function returns)."""
    if callable(spec.choices):
        return tuple(spec.choices(registry.settings or {}))
    return tuple(spec.choices)


def coerce(spec, value, choices=None):
    """The typed value for ``value`` (JSON value or text from the CLI), or OptionError.
    ``choices``: the spec's choices on this site (``choices_of``), for a spec whose choices are
    a function."""
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
    if isinstance(value, bool):
        raise OptionError(f"{spec.key} must be an integer")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise OptionError(f"{spec.key} must be an integer")
    if (spec.min is not None and number < spec.min) or (spec.max is not None and number > spec.max):
        raise OptionError(f"{spec.key} must be between {spec.min} and {spec.max}")
    return number


def _decimal(spec, value):
    try:
        return str(parse_decimal(value))
    except ValueError:
        raise OptionError(f"{spec.key} must be a finite number")


def _timezone(spec, value):
    try:
        ZoneInfo(str(value))
    except (ZoneInfoNotFoundError, ValueError):
        raise OptionError(f"{spec.key} must be a time zone name such as Europe/Paris")
    return str(value)


def _text(spec, value):
    if not isinstance(value, str):
        raise OptionError(f"{spec.key} must be text")
    return value


_COERCE = {"bool": _bool, "int": _int, "decimal": _decimal, "timezone": _timezone}


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
        raise OptionError(f"{spec.key}: {', '.join(unknown)} not one of {', '.join(allowed)}")
    return [choice for choice in allowed if choice in value]


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
    return {key: stored.get(key, spec.default) for key, spec in specs.items()}


def set_option(session, key, value):
    """Validate and store one option; returns the stored value."""
    registry = registry_of(session)
    specs = specs_of(registry)
    if key not in specs:
        raise OptionError(f"unknown option {key!r}")
    value = coerce(specs[key], value, choices_of(specs[key], registry))
    row = session.get(Option, key)
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
    ``InvalidParams`` naming every bad key and value at once; the caller's transaction must then
    be aborted (the valid values were written), so that nothing is half-saved."""
    keys = {spec.key for spec in specs}
    errors = {key: outside for key in values if key not in keys}
    for key, value in values.items():
        if key in errors:
            continue
        try:
            set_option(session, key, value)
        except OptionError as exc:
            errors[key] = str(exc)
    if errors:
        raise InvalidParams(errors)


def set_section(session, section, values):
    """``set_options`` for the options of one section (``PUT store/v1/settings/<section>``)."""
    set_options(session, values, section_specs(registry_of(session), section),
                outside=f"not an option of section {section}")


def site_timezone(session):
    return ZoneInfo(site_options(session)["site.timezone"])
