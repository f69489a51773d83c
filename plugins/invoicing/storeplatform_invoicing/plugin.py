"""Hook implementations of the invoicing plugin (the entry point)."""
from pathlib import Path

from storeplatform.api import Periodic, crontab, hookimpl


@hookimpl
def storeplatform_migration_locations():
    return [str(Path(__file__).resolve().parent / "migrations" / "versions")]


@hookimpl
def storeplatform_site_options():
    from .options import option_specs

    return option_specs()


@hookimpl
def storeplatform_includeme(config):
    from . import admin_invoices, storefront, views
    from .documents import UnbillableOrder
    from .errors import order_not_billable

    config.add_rest_namespace(
        views.NAMESPACE, guard=views.rest_guard, index_permission="manage_shop",
        description="PDF documents (invoice, receipt, credit note, packing slip) of store orders.")
    config.add_rest_services(views)
    config.add_error_translation(UnbillableOrder, order_not_billable)
    storefront.includeme(config)
    config.add_admin_templates("storeplatform_invoicing:admin_templates")
    config.add_admin_static("invoicing", "storeplatform_invoicing:admin_static")
    config.add_admin_views(admin_invoices)


@hookimpl
def storeplatform_order_status_changed(order, old_status, new_status):
    from .documents import on_status_changed

    on_status_changed(order, new_status)


@hookimpl
def storeplatform_mail_attachments(session, kind, context):
    from .mail_attachments import order_attachments

    return order_attachments(session, kind, context)


@hookimpl
def storeplatform_tasks():
    from .jobs import TASK, regenerate_order_task
    from .documents import RENDER_TASK, render_document_task

    return {RENDER_TASK: render_document_task, TASK: regenerate_order_task}


@hookimpl
def storeplatform_periodic_tasks():
    from .documents import sweep_pending_task
    from .jobs import sweep_jobs_task
    from .storefront import purge_rate_windows_task

    return [Periodic("invoicing.sweep_pending", crontab(minute="*/10"), sweep_pending_task),
            Periodic("invoicing.sweep_jobs", crontab(minute="*/10"), sweep_jobs_task),
            Periodic("invoicing.purge_rate_windows", crontab(minute="*/15"), purge_rate_windows_task)]


@hookimpl
def storeplatform_cli_commands(subparsers):
    from .bulk import add_commands

    add_commands(subparsers)


@hookimpl
def storeplatform_demo_data(session):
    from .demo import load_demo

    load_demo(session)


@hookimpl
def storeplatform_admin_dashboard_panels(request):
    from .admin_dashboard import dashboard_panels

    return dashboard_panels(request)


@hookimpl
def storeplatform_admin_order_sections(request, order):
    from .admin_order_documents import order_sections

    return order_sections(request, order)
