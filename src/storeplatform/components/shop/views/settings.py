"""store/v1 settings: the site options by section (manage_options)."""
from storeplatform.core.rest import Service
from .. import schemas
from ..errors import SETTINGS_INVALID_SECTION
from storeplatform.core.options import choices_of, group_of, section_specs, set_section, specs_of

all_settings = Service("store/v1", "/settings", name="settings", description="Site options by section.")
section = Service("store/v1", "/settings/{section}", name="settings-section",
                  description="The options of one section.")


@all_settings.get(permission="manage_options")
def get_settings(request):
    values = request.site_options
    sections = {}
    for spec in specs_of(request.registry).values():
        sections.setdefault(spec.section, []).append(_option_json(request, spec, values[spec.key]))
    return {"sections": sections}


@section.get(permission="manage_options")
def get_section(request):
    values = request.site_options
    return [_option_json(request, spec, values[spec.key]) for spec in _section_specs(request)]


@section.put(permission="manage_options", body=schemas.SettingsBody())
def put_section(request):
    specs = _section_specs(request)
    # Every bad key and value at once; nothing half-written: the transaction is aborted with
    # the error.
    set_section(request.db, request.matchdict["section"], request.validated)
    values = request.site_options
    return [_option_json(request, spec, values[spec.key]) for spec in specs]


def _section_specs(request):
    name = request.matchdict["section"]
    specs = section_specs(request.registry, name)
    if not specs:
        raise SETTINGS_INVALID_SECTION(f"No settings section {name!r}.")
    return specs


def _option_json(request, spec, value):
    """One option as a client sees it; ``group`` is the settings page of the admin that shows it
    (the declaring plugin's name, or the host's section), ``choices`` the values this site
    accepts for a choice."""
    item = {"id": spec.key, "label": spec.label, "type": spec.type, "value": value, "default": spec.default,
            "section": spec.section, "group": group_of(spec), "description": spec.description}
    if spec.type in ("choice", "multichoice"):
        item["choices"] = list(choices_of(spec, request.registry))
    return item
