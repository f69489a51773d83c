"""Site options: declared by the host and plugins (key, type, default, section, label), kept
in the ``options`` table, kept per process until one of them changes."""
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.exc import IntegrityError

from ..db import registry_of
from ..db.generations import cached_by_generation, stored_options
from ..errors import InvalidParams
from ..values import parse_bool, parse_decimal
from .models import Option

TYPES = ("bool", "string", "text", "int", "decimal", "choice", "timezone")


@dataclass(frozen=True)
class OptionSpec:
    key: str
    type: str
    default: object
    section: str
    label: str
    description: str = ""
    choices: tuple = field(default=())
    min: int | None = None
    max: int | None = None


class OptionError(ValueError):
    """A value that the option's type refuses; the message says why."""


def collect_specs(pm):
    specs = {}
    for group in pm.hook.storeplatform_site_options():
        for spec in group or ():
            if spec.type not in TYPES:
                raise ValueError(f"option {spec.key}: unknown type {spec.type!r}")
            if spec.key in specs:
                raise ValueError(f"option {spec.key} is declared twice")
            specs[spec.key] = spec
    return specs


def specs_of(registry):
    return registry["options.specs"]


def coerce(spec, value):
    """The typed value for ``value`` (JSON value or text from the CLI), or OptionError."""
    t = spec.type
    if t == "bool":
        try:
            return parse_bool(value)
        except ValueError:
            raise OptionError(f"{spec.key} must be true or false")
    if t == "int":
        if isinstance(value, bool):
            raise OptionError(f"{spec.key} must be an integer")
        try:
            number = int(str(value).strip())
        except ValueError:
            raise OptionError(f"{spec.key} must be an integer")
        if (spec.min is not None and number < spec.min) or (spec.max is not None and number > spec.max):
            raise OptionError(f"{spec.key} must be between {spec.min} and {spec.max}")
        return number
    if t == "decimal":
        try:
            return str(parse_decimal(value))
        except ValueError:
            raise OptionError(f"{spec.key} must be a finite number")
    if t == "choice":
        if value not in spec.choices:
            raise OptionError(f"{spec.key} must be one of {', '.join(map(str, spec.choices))}")
        return value
    if t == "timezone":
        try:
            ZoneInfo(str(value))
        except (ZoneInfoNotFoundError, ValueError):
            raise OptionError(f"{spec.key} must be a time zone name such as Europe/Paris")
        return str(value)
    if not isinstance(value, str):
        raise OptionError(f"{spec.key} must be text")
    return value


def site_options(session):
    """Every option's value (stored or default) by key; an unknown key is a KeyError.
    ``request.site_options`` is the same for a request. Kept per process by the ``options``
    generation: a transaction reads the table only when an option changed since the process last
    built it (or when it wrote something itself); the rows come with the generations, in one
    query per transaction. The mapping is shared: read it, never change it."""
    cache = session.info.get("options")
    if cache is None:
        cache = session.info["options"] = cached_by_generation(session, "options", "site_options",
                                                               lambda: _read_options(session))
    return cache


def _read_options(session):
    specs = specs_of(registry_of(session))
    stored = stored_options(session)
    return {key: stored.get(key, spec.default) for key, spec in specs.items()}


def set_option(session, key, value):
    """Validate and store one option; returns the stored value."""
    specs = specs_of(registry_of(session))
    if key not in specs:
        raise OptionError(f"unknown option {key!r}")
    value = coerce(specs[key], value)
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
    return value


def section_specs(registry, section):
    """The specs of one settings section, in declaration order (empty for an unknown section)."""
    return [spec for spec in specs_of(registry).values() if spec.section == section]


def sections_of(registry):
    """Every section name: ``general`` first, ``advanced`` last, the others by name (plugins
    register in no order a reader could rely on)."""
    names = {spec.section for spec in specs_of(registry).values()}
    return sorted(names, key=lambda name: (name != "general", name == "advanced", name))


def set_section(session, section, values):
    """Validate and store ``values`` (``{key: value}``) of one section: what ``PUT
    store/v1/settings/<section>`` and the admin's settings pages both do. Raises
    ``InvalidParams`` naming every bad key and value at once; the caller's transaction must then
    be aborted (the valid values were written), so that nothing is half-saved."""
    specs = {spec.key for spec in section_specs(registry_of(session), section)}
    errors = {key: f"not an option of section {section}" for key in values if key not in specs}
    for key, value in values.items():
        if key in errors:
            continue
        try:
            set_option(session, key, value)
        except OptionError as exc:
            errors[key] = str(exc)
    if errors:
        raise InvalidParams(errors)


def site_timezone(session):
    return ZoneInfo(site_options(session)["site.timezone"])
