"""Hook implementations of the events plugin (the entry point)."""
from pathlib import Path

from storeplatform.api import OptionSpec, hookimpl

from .errors import API_DISABLED


@hookimpl
def storeplatform_add_hookspecs(pm):
    from . import hookspecs

    pm.add_hookspecs(hookspecs)


@hookimpl
def storeplatform_migration_locations():
    return [str(Path(__file__).resolve().parent / "migrations" / "versions")]


@hookimpl
def storeplatform_site_options():
    return [
        OptionSpec("events.rest_api_enabled", "bool", True, "advanced", "REST API",
                   description=f"Off: every request under events/v1 answers 403 {API_DISABLED.code}."),
        # The events service contract names this switch and says it is stored with no effect
        # (delivery does not depend on it): kept for REST clients, left off the settings pages,
        # where a switch that does nothing would mislead (docs/decisions.md).
        OptionSpec("events.webhooks_enabled", "bool", True, "advanced", "Webhooks",
                   description="Stored only; webhook delivery does not depend on it (pause a webhook "
                               "instead).", hidden=True),
        OptionSpec("events.permalink_base", "url", "", "general", "Event pages",
                   description="URL where a headless front end shows events (the slug is appended); "
                               "empty: the platform's own page /events/<slug>/."),
        OptionSpec("events.ticket_mail_enabled", "bool", True, "general", "Tickets by e-mail",
                   description="On: when an order's tickets are issued, its billing address gets one message "
                               "with every ticket (QR codes, a PDF per ticket). Resending by hand works either way."),
    ]


@hookimpl
def storeplatform_includeme(config):
    from . import models, webhooks  # noqa: F401  (tables on the shared metadata)
    from .variant import ALTERNATE, api_variant

    webhooks.includeme(config)
    from . import metrics

    metrics.includeme(config)
    # The variant of events/v1 the site serves (an unknown value stops start-up).
    if api_variant(config.registry.settings) == ALTERNATE:
        from .alternate import includeme
    else:
        from .views import includeme
    includeme(config)
    from . import admin_attendees, admin_desk, admin_event_form, admin_events, admin_places, admin_ticket_types, page
    from .webhooks import admin

    page.includeme(config)
    # The admin pages are the same in both variants: they call the domain code, not the API.
    config.add_admin_templates("storeplatform_events:admin_templates")
    config.add_admin_static("events", "storeplatform_events:admin_static")
    config.add_admin_views(admin, admin_desk, admin_events, admin_event_form, admin_ticket_types, admin_places,
                           admin_attendees)
    # The tickets message (#41): composed by the worker from the plugin's own templates.
    from . import admin_order_tickets, ticket_mail

    config.add_mail_templates("storeplatform_events:mail_templates")
    config.add_mail_composer(ticket_mail.KIND, ticket_mail.compose)
    config.add_admin_views(admin_order_tickets)


@hookimpl
def evt_topic_announced(session, topic, object_id, info):
    # The webhook outbox: a pending delivery per active webhook of the topic.
    from .webhooks.outbox import on_topic

    on_topic(session, topic, object_id, info)


@hookimpl
def storeplatform_tasks():
    from .webhooks import declared_tasks

    return declared_tasks()


@hookimpl
def storeplatform_periodic_tasks():
    from storeplatform.api import Periodic, crontab

    from .checkin_history import NOTE_TASK, note_checkin_scans
    from .webhooks import declared_periodic_tasks

    # Every minute, and when a worker starts: the door's scans reach the orders' histories.
    return [*declared_periodic_tasks(), Periodic(NOTE_TASK, crontab(minute="*"), note_checkin_scans, at_start=True)]


@hookimpl
def storeplatform_order_status_changed(order, old_status, new_status):
    from sqlalchemy.orm import object_session

    from .tickets import on_order_status_changed

    on_order_status_changed(object_session(order), order, old_status, new_status)


@hookimpl
def storeplatform_order_refunded(order, refund):
    from sqlalchemy.orm import object_session

    from .tickets import on_order_refunded

    on_order_refunded(object_session(order), order, refund)


@hookimpl
def storeplatform_order_deleted(order):
    from sqlalchemy.orm import object_session

    from .tickets import on_order_deleted

    on_order_deleted(object_session(order), order)


@hookimpl
def storeplatform_user_deleted(user, reassign):
    from sqlalchemy.orm import object_session

    from .tickets import on_user_deleted

    on_user_deleted(object_session(user), user)


@hookimpl
def storeplatform_demo_data(session):
    from .demo import load_demo

    load_demo(session)


@hookimpl
def storeplatform_cli_commands(subparsers):
    from .cli import add_commands

    add_commands(subparsers)


@hookimpl
def storeplatform_admin_dashboard_panels(request):
    from .admin_dashboard import dashboard_panels

    return dashboard_panels(request)


@hookimpl
def storeplatform_admin_order_sections(request, order):
    from .admin_order_tickets import order_sections

    return order_sections(request, order)


@hookimpl
def storeplatform_product_problems(session, values, product):
    from .ticket_types import meta_problems

    return meta_problems(values)


@hookimpl
def storeplatform_product_saved(product, created):
    from sqlalchemy.orm import object_session

    from .ticket_types import product_saved

    product_saved(object_session(product), product)


@hookimpl
def storeplatform_order_line_problems(session, product, quantity):
    from .ticket_types import line_problems

    return line_problems(session, product, quantity)
