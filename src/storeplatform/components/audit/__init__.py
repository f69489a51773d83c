"""The audit log (#40): who changed what, when, from which address.

Every layer reports its administrative changes through the kernel (``storeplatform.core.audit``,
``storeplatform.api.audit``); this component records them (``hooks``: the
``storeplatform_audit_event`` implementation writes the entry in the change's own transaction),
keeps them within the owner's bounds (a periodic task), and shows them to administrators
(``view_audit_log``): the admin's Audit log page with its CSV export (``admin``), the REST
namespace ``audit/v1`` (``views``) and ``storeplatform audit list`` (``cli``). It builds on the
admin (its page)."""
from . import admin, views

NAMESPACE = views.NAMESPACE


def includeme(config):
    config.add_rest_namespace(NAMESPACE, description="The audit log: who changed what, when, from which address.")
    config.add_rest_services(views)
    config.add_admin_templates("storeplatform.components.audit:templates")
    config.add_admin_views(admin)
