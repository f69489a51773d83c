"""A page of a test plugin, declared through the plugin API only: a form that writes the site
time zone, refused as a whole when its second field is bad (nothing half-saved)."""
from pathlib import Path

from storeplatform.api import (AdminPage, OptionError, admin_redirect, admin_view, form_values, hookimpl, refuse_form,
                               set_option)

NOTES = AdminPage("notes", "Notes", "/notes", "manage_shop", order=10)
SECRET_PAGE = AdminPage("vault", "Vault", "/vault", "manage_options", order=20)


@admin_view(NOTES, template="admin_test/notes.jinja2")
def show_notes(request):
    return {"title": "Notes", "errors": {}, "values": {}}


@admin_view(NOTES, request_method="POST", template="admin_test/notes.jinja2")
def save_notes(request):
    form = form_values(request)
    errors = {}
    try:
        set_option(request.db, "site.timezone", form.get("timezone", ""))
    except OptionError as exc:
        errors["timezone"] = str(exc)
    if form.get("second") != "ok":
        errors["second"] = "must be ok"
    if errors:
        refuse_form(request)
        return {"title": "Notes", "errors": errors, "values": form}
    return admin_redirect(request, "/notes", notice="Saved.")


@admin_view(NOTES, path="/{id:\\d+}", template="admin_test/notes.jinja2")
def broken_note(request):
    raise RuntimeError("a bug in a plugin's view")


@admin_view(SECRET_PAGE, template="admin_test/notes.jinja2")
def vault(request):
    return {"title": "Vault", "errors": {}, "values": {}}


class NotesPlugin:
    @hookimpl
    def storeplatform_includeme(self, config):
        import sys

        config.add_admin_templates(str(Path(__file__).resolve().parent / "templates"))
        config.add_admin_views(sys.modules[__name__])
