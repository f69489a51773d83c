"""The colander types and validators the configuration rules (validation.py) are made of.

Two needs that colander's own types do not meet:

- every bad value at once: colander runs the validator of a mapping or a list only once all
  its parts are valid; ``Record``, ``Items`` and ``InputFields`` read the whole value, name
  each unknown key, and run their rules across keys or items (``checks``) on what is valid;
- the messages the save route has always given (``must be text of at most 200 characters``,
  ``5 is not a unit code``): ``AsSent`` keeps a value as sent so that the node's validator,
  not the type, says what is wrong with it.

Validators that depend on the configuration (its type, its inputs) read ``node.bindings``
(``validation.clean`` binds the schema); unbound, the nodes only describe the rules (the schema
index).
"""
from datetime import datetime, timezone
from decimal import Decimal

import colander

from storeplatform.api import DecimalText, StrictBoolean, parse_decimal

from . import formula as formulas
from .readmodel import CALCULATOR_TYPES
from .units import UNIT_TYPE, unit_type

# Numbers of a configuration (prices, ranges, bounds) are below this; it keeps Decimal work small.
NUMBER_LIMIT = Decimal("1e15")
# "measurement" is what a condition on the calculated measurement names.
RESERVED_NAMES = formulas.FUNCTIONS | {"measurement"}


def is_formula_name(name):
    """A name a formula can use for an input or a variable."""
    return isinstance(name, str) and bool(formulas.NAME_PATTERN.match(name)) and name not in RESERVED_NAMES


def _error(name, message):
    """An error about the key ``name`` of the value being read ("": the value itself, beside
    errors of its keys)."""
    return colander.Invalid(colander.SchemaNode(colander.String(), name=name), message)


class _EveryError:
    """A container type that reads its whole value before it fails: ``read`` adds each error
    to the one ``colander.Invalid`` raised at the end."""

    def deserialize(self, node, cstruct):
        if cstruct is colander.null:
            return colander.null
        error = colander.Invalid(node)
        result = self.read(node, cstruct, error)
        if error.children:
            raise error
        return result


class Record(_EveryError, colander.Mapping):
    """A JSON object of known keys (the node's children). A non-object is refused naming the
    keys, each unknown key is an error of its own, and each of ``checks`` —
    ``check(node, values, failed) -> (key, message), ...`` — sees the keys read so far
    (``values``) and those refused (``failed``), so that it runs even when others are bad."""

    def __init__(self, unknown="unknown key", checks=()):
        super().__init__()
        self.unknown_message = unknown
        self.checks = checks

    def read(self, node, cstruct, error):
        known = [child.name for child in node.children]
        if not isinstance(cstruct, dict):
            raise colander.Invalid(node, "must be an object with " + ", ".join(known))
        values, failed = {}, set()
        for child in node.children:
            raw = cstruct.get(child.name, colander.null)
            if raw is colander.null and child.missing is colander.drop:
                continue
            try:
                value = child.deserialize(raw)
            except colander.Invalid as exc:
                error.add(exc)
                failed.add(child.name)
            else:
                if value is not colander.drop:
                    values[child.name] = value
        for key in cstruct:
            if key not in known:
                error.add(_error(key, f"{self.unknown_message} (known: " + ", ".join(known) + ")"))
        for check in self.checks:
            for key, message in check(node, values, failed):
                error.add(_error(key, message))
        return values


class Items(_EveryError, colander.Sequence):
    """A JSON list of at most ``max_items`` items, each read by the node's one child; every
    bad item is named by its index. ``checks`` — ``check(node, items) -> ((index, key),
    message), ...`` — see the raw list, so that they run even when some items are bad."""

    def __init__(self, max_items, checks=()):
        super().__init__()
        self.max_items = max_items
        self.checks = checks

    def read(self, node, cstruct, error):
        if not isinstance(cstruct, list):
            raise colander.Invalid(node, "must be a list")
        if len(cstruct) > self.max_items:
            raise colander.Invalid(node, f"at most {self.max_items} items")
        item = node.children[0]
        result = []
        for index, raw in enumerate(cstruct):
            try:
                result.append(item.deserialize(raw))
            except colander.Invalid as exc:
                error.add(exc, index)
        for check in self.checks:
            for (index, key), message in check(node, cstruct):
                at = colander.Invalid(item)
                at.add(_error(key, message))
                error.add(at, index)
        return result


class InputFields(_EveryError, colander.Mapping):
    """``settings.fields``: input name -> adjustments (the node's one child). Which names the
    calculator type (bound) allows: its own inputs, or for a custom calculator any formula name,
    at most ``max_inputs``. An empty object adjusts nothing and is not kept."""

    def __init__(self, max_inputs):
        super().__init__()
        self.max_inputs = max_inputs

    def read(self, node, cstruct, error):
        if not isinstance(cstruct, dict):
            raise colander.Invalid(node, "must be an object of field name -> adjustments")
        ctype = node.bindings["calculator_type"]
        names = CALCULATOR_TYPES[ctype][0]
        adjustments = node.children[0]
        result, inputs = {}, 0
        for name, raw in cstruct.items():
            if ctype != "custom" and name not in names:
                error.add(_error(name, f"a {ctype} calculator has the fields " + ", ".join(names)))
                continue
            if ctype == "custom" and not is_formula_name(name):
                error.add(_error(name, "a field name is lower-case letters, digits and _ (at most 40), not a "
                                       "function name nor measurement"))
                continue
            if isinstance(raw, dict):
                inputs += 1  # an input, even with bad adjustments
            try:
                result[name] = adjustments.deserialize(raw)
            except colander.Invalid as exc:
                error.add(_renamed(exc, name))
        if inputs > self.max_inputs:
            error.add(_error("", f"at most {self.max_inputs} fields"))
        return result or colander.drop


def _renamed(exc, name):
    """``exc`` (about the template node of every entry) as an error about the entry ``name``."""
    renamed = _error(name, exc.msg)
    for child in exc.children:
        renamed.add(child)
    return renamed


class AsSent(colander.String):
    """A value kept as sent, whatever its JSON kind, for the node's validator to judge (so that
    its message, not colander's type message, says what is wrong). ``absent``: what a missing
    key reads as (colander.null: the node's ``missing``)."""

    def __init__(self, absent=colander.null):
        super().__init__()
        self.absent = absent

    def deserialize(self, node, cstruct):
        return self.absent if cstruct is colander.null else cstruct


class NumberText(DecimalText):
    """A number, sent as a JSON number or numeric text, kept as canonical text (exactly the
    number sent, no float on the way). ``blank_is_absent``: null and "" read as absent."""

    def __init__(self, blank_is_absent=False):
        super().__init__()
        self.blank_is_absent = blank_is_absent

    def deserialize(self, node, cstruct):
        if cstruct is colander.null or (self.blank_is_absent and (cstruct is None or cstruct == "")):
            return colander.null
        try:
            number = parse_decimal(cstruct)
        except ValueError as exc:
            raise colander.Invalid(node, str(exc))
        if abs(number) >= NUMBER_LIMIT:
            raise colander.Invalid(node, "is too large")
        return format(number, "f")


class NumberList(colander.Sequence):
    """A list of at most ``max_items`` numbers, each read by the node's one child; the first
    bad one is the list's error (``each option ...``)."""

    def __init__(self, max_items):
        super().__init__()
        self.max_items = max_items

    def deserialize(self, node, cstruct):
        if cstruct is colander.null:
            return colander.null
        if not isinstance(cstruct, list) or len(cstruct) > self.max_items:
            raise colander.Invalid(node, f"must be a list of at most {self.max_items} numbers")
        try:
            return [node.children[0].deserialize(value) for value in cstruct]
        except colander.Invalid as exc:
            raise colander.Invalid(node, f"each option {exc.msg}")


class YesNo(StrictBoolean):
    """The host's ``StrictBoolean`` (a JSON boolean, 0/1 or a usual word: yes/no, true/false,
    on/off), except that a blank value is no answer (a query string's empty flag is false) and
    the message is the save route's."""

    def deserialize(self, node, cstruct):
        try:
            if isinstance(cstruct, str) and not cstruct.strip():
                raise colander.Invalid(node)
            return super().deserialize(node, cstruct)
        except colander.Invalid:
            raise colander.Invalid(node, "must be yes or no")


class Formula(colander.String):
    """The formula of a custom calculator, checked against the names it may use (bound:
    its inputs and variables) and kept without surrounding blanks. Another type keeps it, only
    bounded in length, for a later switch to custom, which checks it then."""

    def deserialize(self, node, cstruct):
        text = cstruct or ""
        if not isinstance(text, str):
            raise colander.Invalid(node, "must be text")
        try:
            if node.bindings["calculator_type"] == "custom":
                formulas.check(text, node.bindings["formula_names"])
            elif len(text) > formulas.MAX_LENGTH:
                raise formulas.FormulaError(f"the formula is longer than {formulas.MAX_LENGTH} characters")
        except formulas.FormulaError as exc:
            raise colander.Invalid(node, str(exc))
        return text.strip()


class IsoMoment(colander.DateTime):
    """A date and time in ISO 8601 (``Z`` allowed, UTC when no offset), kept as UTC ISO text;
    null or "" is none."""

    def deserialize(self, node, cstruct):
        if cstruct is colander.null or cstruct is None or cstruct == "":
            return None
        try:
            moment = datetime.fromisoformat(str(cstruct).replace("Z", "+00:00"))
        except ValueError:
            raise colander.Invalid(node, "must be an ISO 8601 date and time")
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc).isoformat()


class Bounds(colander.Range):
    """colander's ``Range`` (so the schema index shows the bounds) over numeric text, with the
    save route's messages; ``places``: at most that many decimal places."""

    def __init__(self, min=None, max=None, places=None):
        super().__init__(min=min, max=max)
        self.places = places

    def __call__(self, node, value):
        number = Decimal(value)
        if self.min is not None and number < self.min:
            raise colander.Invalid(node, f"must be at least {self.min}")
        if self.max is not None and number > self.max:
            raise colander.Invalid(node, f"must be at most {self.max}")
        if self.places is not None and -number.normalize().as_tuple().exponent > self.places:
            raise colander.Invalid(node, f"at most {self.places} decimal places")


class TextUpTo:
    """Text of at most ``length`` characters."""

    def __init__(self, length):
        self.length = length

    def __call__(self, node, value):
        if not isinstance(value, str) or len(value) > self.length:
            raise colander.Invalid(node, f"must be text of at most {self.length} characters")


class UnitCode(colander.OneOf):
    """A unit code of GET /units (the schema index lists them) of the kind the calculator type
    (bound) needs: for ``"pricing"`` the kind of its measurement, for ``"input"`` the kind of its
    inputs (a custom calculator's inputs take any unit, or "" for none)."""

    def __init__(self, role):
        super().__init__(tuple(UNIT_TYPE))
        self.role = role

    def __call__(self, node, value):
        ctype = node.bindings["calculator_type"]
        _, input_kind, measure_kind = CALCULATOR_TYPES[ctype]
        kind = measure_kind if self.role == "pricing" else input_kind
        if not isinstance(value, str) or (value not in UNIT_TYPE and not (self.role == "input" and kind is None
                                                                          and value == "")):
            raise colander.Invalid(node, f"{value!r} is not a unit code (see GET /units)")
        if kind and unit_type(value) != kind:
            if self.role == "pricing":
                raise colander.Invalid(node, f"a {ctype} calculator needs a {kind} unit, not {value!r}")
            raise colander.Invalid(node, f"this input needs a {kind} unit, not {value!r}")
