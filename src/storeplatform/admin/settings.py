"""The settings pages: one per section of the site options (the sections of ``GET
store/v1/settings``), each field drawn from its declared type, default and label, and saved
through ``set_section``, the code of ``PUT store/v1/settings/<section>``."""
from zoneinfo import available_timezones

from pyramid.httpexceptions import HTTPNotFound, HTTPSeeOther

from ..errors import InvalidParams
from ..store.options import section_specs, sections_of, set_section
from .forms import form_values, refuse_form
from .guard import admin_redirect, admin_url
from .pages import AdminPage, admin_view

SETTINGS = AdminPage("settings", "Settings", "/settings", "manage_options", order=90)
SECTION_PATH = "/{section:[a-z0-9_-]+}"
TEMPLATE = "admin/settings.jinja2"


@admin_view(SETTINGS)
def first_section(request):
    sections = sections_of(request.registry)
    if not sections:
        raise HTTPNotFound()
    return HTTPSeeOther(location=admin_url(request, f"/settings/{sections[0]}"))


@admin_view(SETTINGS, path=SECTION_PATH, template=TEMPLATE)
def show_section(request):
    section, specs = _section(request)
    values = request.site_options
    return _values(request, section, specs, {spec.key: values[spec.key] for spec in specs}, {})


@admin_view(SETTINGS, path=SECTION_PATH, request_method="POST", template=TEMPLATE)
def save_section(request):
    section, specs = _section(request)
    form = form_values(request)
    sent = {}
    for spec in specs:
        if spec.key not in form:
            continue  # a field the form did not send keeps its value, as a partial PUT does
        value = form[spec.key]
        if spec.type == "text":
            value = value.replace("\r\n", "\n")  # browsers send textarea lines with CRLF
        sent[spec.key] = value
    try:
        set_section(request.db, section, sent)
    except InvalidParams as exc:
        refuse_form(request)
        stored = request.site_options
        shown = {spec.key: sent.get(spec.key, stored[spec.key]) for spec in specs}
        return _values(request, section, specs, shown, exc.params)
    return admin_redirect(request, f"/settings/{section}", notice=f"{_title(section)} settings saved.")


def _section(request):
    section = request.matchdict["section"]
    specs = section_specs(request.registry, section)
    if not specs:
        raise HTTPNotFound()
    return section, specs


def _title(section):
    return section.replace("_", " ").replace("-", " ").capitalize()


def _values(request, section, specs, values, errors):
    fields = [{"spec": spec, "value": values[spec.key], "error": errors.get(spec.key),
               "choices": _choices(spec, values[spec.key])} for spec in specs]
    return {"title": f"{_title(section)} settings", "section": section,
            "sections": [(name, _title(name)) for name in sections_of(request.registry)],
            "fields": fields, "errors": errors}


def _choices(spec, value):
    if spec.type == "choice":
        return [str(choice) for choice in spec.choices]
    if spec.type == "timezone":
        zones = sorted(available_timezones() | {"UTC"})
        return zones if str(value) in zones else [str(value), *zones]
    return []
