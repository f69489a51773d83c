"""Mail (#41): messages recorded in the transaction of the change that makes them and sent by
the task queue.

``send_mail`` (``outbox``) builds a message with the standard library's ``email`` package
(``messages``), lets plugins add attachments and change it (``storeplatform_mail_attachments``,
``storeplatform_mail_message``) and records the whole message (its bytes) with one INSERT; the
queue sends it after commit (``tasks``) over SMTP, or, with no server set, writes it as an
``.eml`` file under ``var/mail`` (``transports``); temporary failures are retried with back-off
by the sweep, which also settles what a dead worker left. ``render_mail`` (``templating``) makes
a message's text and HTML from a Jinja2 template pair a site may override. The admin's Mail log
(``admin``) shows every message, its server's answer, Retry and Resend; so the component builds
on the admin. The host's own messages: the account links (``account_messages``) and the buyer's
"order received" and "order completed" (``order_messages``, on the shop's order status hook: so
the component builds on the shop too)."""
from .settings import SETTINGS  # noqa: F401  (the app factory reads the component's ini keys)
from .outbox import add_mail_composer
from .templating import add_mail_templates


def includeme(config):
    from storeplatform.core.errors import invalid_params_error

    from . import admin, models  # noqa: F401  (the table on the shared metadata)
    from .messages import MailError
    from .order_messages import add_order_composers
    from .outbox import waiting_figures

    # A REST view that lets a MailError out answers 400 rest_invalid_param naming the field.
    config.add_error_translation(MailError, lambda exc: invalid_params_error({exc.field: exc.message}))

    config.add_directive("add_mail_templates", add_mail_templates)
    config.add_directive("add_mail_composer", add_mail_composer)
    config.add_mail_templates("storeplatform.components.mail:templates/messages")
    add_order_composers(config)
    config.add_admin_templates("storeplatform.components.mail:templates")
    config.add_admin_views(admin)
    # Read when the metrics are scraped (the observability component's directive), not per request.
    config.add_scrape_gauge("mail_waiting", "Mail messages waiting to be sent (recorded, not yet sent or "
                            "failed).", lambda registry: _figures(registry)[0])
    config.add_scrape_gauge("mail_queue_age_seconds", "Age of the oldest mail message waiting to be sent "
                            "(0 when none waits).", lambda registry: _figures(registry)[1])

    def _figures(registry):
        from storeplatform.core.db.session import site_transaction

        with site_transaction(registry) as session:
            return waiting_figures(session)
