"""The host's hook specifications. Plugins implement them with ``@hookimpl``.

Every spec here has a heading with its exact arguments in docs/hooks.md; a test fails when
one has not. Plugins get ``hookimpl`` and ``hookspec`` from ``storeplatform.api``.
"""
import pluggy

hookspec = pluggy.HookspecMarker("storeplatform")
hookimpl = pluggy.HookimplMarker("storeplatform")


@hookspec
def storeplatform_add_hookspecs(pm):
    """Let a plugin add hook specifications of its own with ``pm.add_hookspecs(module)``.

    Called right after the plugin is registered, before any other hook, so that other
    plugins may implement the new hooks.
    """


@hookspec
def storeplatform_includeme(config):
    """Add routes, REST namespaces, services and views to the Pyramid configurator.

    Called once per enabled plugin after the host's own configuration is committed.
    Use ``config.add_rest_namespace(name, ...)`` and ``config.add_rest_services(module, ...)``.
    """


@hookspec
def storeplatform_site_options():
    """Declare site options: return a list of ``storeplatform.api.OptionSpec``.

    Each spec has a key, a type (``storeplatform.core.options.TYPES``: bool, string, text, int,
    decimal, choice, multichoice, timezone, url, email, currency), a default, a section and a
    label; an int or decimal also its min and max. Keys are unique across the site; prefix them
    with the plugin name.
    """


@hookspec
def storeplatform_role_capabilities():
    """Add capabilities to roles: return ``{role: [capability, ...]}``."""


@hookspec
def storeplatform_order_created(order):
    """Action: a store order was created (inside the creating transaction).

    ``sqlalchemy.orm.object_session(order)`` is its session; work that leaves the process
    is enqueued with ``storeplatform.api.enqueue_after_commit``.
    """


@hookspec
def storeplatform_order_status_changed(order, old_status, new_status):
    """Action: an order's status changed from ``old_status`` to ``new_status``.

    Fired once per change, inside the transaction that makes it.
    """


@hookspec
def storeplatform_order_refunded(order, refund):
    """Action: money was given back on ``order``, inside the transaction that records it.

    ``refund`` has ``id``, ``amount`` (Decimal), ``reason``, ``refunded_by`` (a user id or None)
    and ``line_items``: what was given back of each line (``order_item_id``, ``quantity``, 0 for
    money alone, ``refund_total``). Fired before a refund of the whole remainder moves the order
    to ``refunded`` (which fires ``storeplatform_order_status_changed`` as any change does).
    """


@hookspec
def storeplatform_order_deleted(order):
    """Action: an order is about to be deleted for good, inside the deleting transaction.

    Rows of a plugin that belong to the order (tickets, documents) go with it here, so that
    nothing is left pointing at an order that no longer exists.
    """


@hookspec
def storeplatform_product_problems(session, values, product):
    """Collect. What is wrong with a product body beyond the shop's own rules (a plugin's keys
    of ``meta``): ``values`` is the body as sent (a partial update sends some fields; values of
    another JSON kind are the schema's business and are passed over), ``product`` the stored
    product on an update, else None. Return ``{field: message}`` (a field of the body, e.g.
    ``"meta"``) or None. REST and the admin refuse the body with these beside the field.
    """


@hookspec
def storeplatform_product_saved(product, created):
    """Action: a product was created (``created``) or changed, inside that transaction."""


@hookspec
def storeplatform_product_deleted(product):
    """Action: a product is about to be deleted for good, inside the deleting transaction."""


@hookspec
def storeplatform_order_line_problems(session, product, quantity):
    """Collect. What stops ``quantity`` of ``product`` from being ordered now beyond the shop's
    own rules (a ticket's sale window, the places left): ``{"product_id" or "quantity":
    message}`` or None. Called while an order is made, in its transaction: a plugin that counts
    what was sold locks what it counts, so that two orders at once cannot both take the last
    place.
    """


@hookspec
def storeplatform_user_deleted(user, reassign):
    """Action: a user is about to be deleted for good, inside the deleting transaction (the CLI's
    ``user delete``, ``DELETE store/v1/users/{id}``, the admin: ``storeplatform.components.shop.accounts``).

    ``reassign`` is the ``User`` who gets the deleted user's posts, or None (they stay without
    an author). Rows of a plugin that name the user without a foreign key let go of them here,
    so that nothing is left pointing at a user who no longer exists.
    """


@hookspec
def storeplatform_account_link(session, user, purpose, url, expires_at):
    """Action: a link that sets ``user``'s password was made and must reach them: ``purpose``
    ``lost_password`` (they asked for it) or ``welcome`` (the admin or REST made their account
    without a password). ``url`` holds the link's single-use key (the host keeps only its hash);
    ``expires_at`` an aware UTC time. Inside the transaction that makes the link: the mail
    component records the message there (nothing is sent if it aborts).
    """


@hookspec
def storeplatform_audit_event(session, event):
    """Action: an administrative change was reported (``storeplatform.api.audit``), inside the
    transaction that makes it (``session``'s). ``event`` is a ``storeplatform.core.audit.AuditEvent``
    (kind, action, subject, details, actor_id, actor_login, address, at). The audit component
    writes it to the audit log in that transaction: a change rolled back leaves no entry.
    """


@hookspec
def storeplatform_mail_attachments(session, kind, context):
    """Collect. Files to attach to a message about to be recorded (``storeplatform.api.send_mail``):
    return a list of ``storeplatform.api.Attachment``, or nothing. ``kind``: the message's kind
    (``order_completed``...); ``context``: the mapping its sender passed (``{"order_id": 5}``).
    Runs in the sender's transaction, before the message is built.
    """


@hookspec
def storeplatform_mail_message(message, session, kind, context):
    """Filter. The built message (an ``email.message.EmailMessage``) before it is recorded: change
    it in place or return a new one (None keeps it). Its headers are checked again afterwards (a
    line break refused) and its size against ``mail.max_size``; the envelope is read from its
    To and Cc (and the sender's Bcc).
    """


@hookspec(firstresult=True)
def storeplatform_authenticate(request):
    """Authentication method: return a ``storeplatform.api.Identity`` for the request,
    or None when the request carries no credentials of this method.

    The first non-None result wins. Raise ``storeplatform.api.RestError`` (401) when the
    request carries credentials of this method that are wrong.
    """


@hookspec(firstresult=True)
def storeplatform_page_identity(request):
    """Who is calling a page of the admin (``request.is_admin``): an ``Identity`` from the one
    credential a page may act on, the cookie session, or None. Never from what a browser sends
    on its own (Basic credentials): the admin's forms carry a token checked on every unsafe
    method instead. The shop implements it; the first non-None result wins.
    """


@hookspec
def storeplatform_start_summary(registry, session, url, command):
    """Lines for the summary a development server prints once it listens (after the address of
    the admin and the REST API): a list of strings, each a line, or None. ``url``: the address
    served; ``command``: the CLI of this installation for the site's ini, as it works when
    pasted (``.venv/bin/storeplatform -c development.ini``). The shop lists the demo logins.
    """


@hookspec
def storeplatform_demo_data(session):
    """Load demo data into ``session`` (the CLI's ``demo`` command).

    Called once per plugin, after the host's own demo data; must be safe to call on a
    database that already has the plugin's demo data (do nothing then).
    """


@hookspec
def storeplatform_migration_locations():
    """Return the folders holding the plugin's Alembic versions (one branch per distribution)."""


@hookspec
def storeplatform_tasks():
    """Declare background tasks: return ``{name: function}``.

    A task function receives a ``storeplatform.api.TaskContext`` and the arguments it
    was enqueued with (ids, not ORM objects). It runs in a transaction of its own.
    """


@hookspec
def storeplatform_periodic_tasks():
    """Declare periodic tasks: return a list of ``storeplatform.api.Periodic``
    (name, a ``crontab(...)`` schedule, and a task function as for ``storeplatform_tasks``).
    """


@hookspec
def storeplatform_cli_commands(subparsers):
    """Add sub-commands to the ``storeplatform`` command line.

    ``subparsers`` is an ``argparse`` sub-parser action; set ``func`` with
    ``set_defaults(func=callable)``; the callable receives ``(env, args)`` where ``env``
    is a ``storeplatform.cli.Environment`` (``env.registry``, ``env.settings``,
    ``with env.transaction() as session``) and returns the exit status.
    """


@hookspec
def storeplatform_admin_dashboard_panels(request):
    """Collect. Panels of the admin's dashboard (``{base_url}/admin/``) for ``request``'s user:
    return a list of dicts ``{"name", "title", "template", "values", "order"}`` (``values``
    handed to ``template``, which ``admin/dashboard_chart.jinja2``'s ``chart`` macro may draw
    with), or nothing. Return only the panels the user has the capability for (the capability
    of the page the panel's numbers belong to); read with a bounded number of statements.
    """


@hookspec
def storeplatform_admin_order_sections(request, order):
    """Collect. What a plugin shows on an order's admin page (``{base_url}/admin/orders/<id>``):
    a list of dicts ``{"title", "text", "links": [{"label", "url"}]}`` (each key optional but
    ``title``), or nothing. The page is shown to ``manage_shop``; read with a bounded number
    of statements (the invoicing plugin: the order's documents and their PDFs).
    """
