"""The settings pages: one for each of the host's sections of the site options (General, Store,
Security) and one for each plugin that declares options, its sections as groups of fields; each
field drawn from its declared type (a switch, a choice, a set of choices, a number...), default
and label, and saved through ``set_options``, the code of ``PUT store/v1/settings/<section>``
(the same validation, every refused value beside its field)."""
from zoneinfo import available_timezones

from pyramid.httpexceptions import HTTPNotFound, HTTPSeeOther

from storeplatform.core.currency_codes import CURRENCY_CODES
from storeplatform.core.errors import InvalidParams
from storeplatform.core.options import (MAX_LENGTH, choices_of, group_of, group_specs, groups_of, section_specs,
                                        set_options)
from .forms import form_values, refuse_form
from .guard import admin_redirect, admin_url
from .pages import AdminPage, admin_view

SETTINGS = AdminPage("settings", "Settings", "/settings", "manage_options", order=90, section="Site")
GROUP_PATH = "/{group:[A-Za-z0-9_.-]+}"
TEMPLATE = "admin/settings.jinja2"
# A multichoice option is one checkbox per choice, named "<key>:<choice>", beside a hidden field
# "<key>" that says the form holds the option (no box checked is then the empty list).
CHOICE_SEPARATOR = ":"


@admin_view(SETTINGS)
def first_group(request):
    groups = groups_of(request.registry)
    if not groups:
        raise HTTPNotFound()
    return HTTPSeeOther(location=admin_url(request, f"/settings/{groups[0]}"))


@admin_view(SETTINGS, path=GROUP_PATH, template=TEMPLATE)
def show_group(request):
    group, specs = _group(request)
    values = request.site_options
    return _page(request, group, specs, {spec.key: values[spec.key] for spec in specs}, {})


@admin_view(SETTINGS, path=GROUP_PATH, request_method="POST", template=TEMPLATE)
def save_group(request):
    group, specs = _group(request)
    form = form_values(request)
    sent = {}
    for spec in specs:
        if spec.key not in form:
            continue  # a field the form did not send keeps its value, as a partial PUT does
        value = form[spec.key]
        if spec.type == "multichoice":
            prefix = spec.key + CHOICE_SEPARATOR
            value = [name[len(prefix):] for name, checked in form.items()
                     if name.startswith(prefix) and checked == "true"]
        sent[spec.key] = value  # a textarea's CRLF lines are the text kind's to read
    try:
        set_options(request.db, sent, specs)
    except InvalidParams as exc:
        refuse_form(request)
        stored = request.site_options
        shown = {spec.key: sent.get(spec.key, stored[spec.key]) for spec in specs}
        return _page(request, group, specs, shown, exc.params)
    return admin_redirect(request, f"/settings/{group}", notice=f"{_title(group)} settings saved.")


def _group(request):
    group = request.matchdict["group"]
    specs = group_specs(request.registry, group)
    if not specs:
        # A section's old address (/admin/settings/advanced): the page that shows its options.
        shown = [spec for spec in section_specs(request.registry, group) if not spec.hidden]
        if shown:
            raise HTTPSeeOther(location=admin_url(request, f"/settings/{group_of(shown[0])}"))
        raise HTTPNotFound()
    return group, specs


def _title(name):
    return name.replace("_", " ").replace("-", " ").replace(".", " ").capitalize()


def _page(request, group, specs, values, errors):
    """The template's values: the fields of the page in groups, one per section of the options
    (a plugin's options in several sections: "Invoicing", "Advanced"...)."""
    fieldsets = {}
    for spec in specs:
        choices = _choices(request, spec, values[spec.key])
        field = {"spec": spec, "value": values[spec.key], "error": errors.get(spec.key), "choices": choices,
                 "maxlength": spec.max if spec.max is not None else MAX_LENGTH.get(spec.type)}
        fieldsets.setdefault(spec.section, []).append(field)
    plugin = specs[0].plugin
    return {"title": f"{_title(group)} settings", "group": group, "plugin": plugin,
            "groups": [(name, _title(name)) for name in groups_of(request.registry)],
            "fieldsets": [(_title(section), fieldsets[section]) for section in sorted(fieldsets, key=_section_order)],
            "errors": errors}


def _section_order(section):
    return section != "general", section == "advanced"  # stable: otherwise as declared


def _choices(request, spec, value):
    """``[(value, label), ...]`` for a choice, a set of choices, a time zone or a currency; a
    stored value that is no longer offered (a font removed from the server) is shown, marked, so
    that the page says what is set; so is a value just refused (shown again as it was sent)."""
    if spec.type in ("choice", "multichoice"):
        offered = [(str(choice), str(choice) if choice != "" else "None") for choice in choices_of(spec, request.registry)]
        if spec.type == "choice" and str(value) not in {choice for choice, _ in offered}:
            offered.insert(0, (str(value), f"{value} (not available)"))
        return offered
    if spec.type in ("timezone", "currency"):
        names = sorted(available_timezones() | {"UTC"} if spec.type == "timezone" else CURRENCY_CODES)
        if spec.type == "currency" and spec.default == "":
            names.insert(0, "")
        return [(name, name or "None") for name in (names if str(value) in names else [str(value), *names])]
    return []
