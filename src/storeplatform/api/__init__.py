"""The plugin API: everything a plugin (ours or a third party's) uses of the host, and with
``storeplatform.api.advanced`` the only modules of ``storeplatform`` a plugin imports (a test
keeps it so). docs/plugins.md describes every name of both.

This is the everyday face: the names the plugins use. ``storeplatform.api.advanced`` holds what
few plugins need (driver statements, transactions of their own, the registry behind a session,
consumer-key checks for an authentication method, migration steps, and the less used helpers:
more of the error catalogue, value parsing, the admin's list internals, the shop's order status
and sale checks).

Besides these names, a plugin gets, inside a web request:

- ``request.db``: the session of the request's transaction;
- ``request.validated``: query and body, checked by the view's schemas;
- ``request.identity``: who is calling (``.user``, ``.method``), or None;
- ``request.hooks``: the site's plugin hooks (``request.hooks.evt_rest_prepare_event``);
- ``request.site_options``: every site option by key (read once per transaction);
- ``request.rest_url(namespace, path)``: the absolute URL of a REST route (``site_rest_url``
  with a session, in a request or not);
- ``request.client_address`` and ``request.is_https``: believing forwarded headers only from
  ``storeplatform.trusted_proxies``;

and, in ``storeplatform_includeme(config)``, the config directives
``config.add_rest_namespace(name, ...)``, ``config.add_rest_services(module_or_service, ...)``
and ``config.add_error_translation(DomainError, to_rest_error)``; ``config.add_mail_templates(spec)``
for mail template pairs (``render_mail``) and ``config.add_mail_composer(kind, composer)`` for
the messages a worker composes (``queue_mail``); for admin pages
``config.add_admin_views(module, ...)``, ``config.add_admin_templates(spec)`` and
``config.add_admin_static(name, spec)``; for metrics read when they are scraped
``config.add_scrape_gauge(name, documentation, read, labels=())``.
"""
from huey import crontab

from ..components.admin.forms import form_values, refuse_form
from ..components.admin.guard import admin_redirect, admin_url
from ..components.admin.listing import csv_response, export_filename, list_query, page_of, query_values
from ..components.admin.pages import AdminPage, admin_view
from ..components.mail.messages import Attachment, InlineImage, MailError
from ..components.mail.outbox import queue_mail, send_mail
from ..components.mail.templating import render_mail
from ..core.audit import audit
from ..core.auth import Identity, require, user_can
from ..core.cache import cached
from ..core.cli import CliError, Parser
from ..core.db import Base, get_by_id, get_or_404, hooks_of
from ..core.db.counts import count_rows
from ..core.db.records import record_of
from ..core.db.types import UTCDateTime, utcnow
from ..core.errors import FORBIDDEN, NO_ROUTE, NOT_LOGGED_IN, ErrorCode, InvalidParams, RestError
from ..core.hookspecs import hookimpl, hookspec
from ..core.metrics import counter, histogram
from ..core.plugins import apply_filters, call_action, plugin_enabled
from ..core.queue import Periodic, enqueue_after_commit, enqueue_now
from ..core.rest import PaginationSchema, Service, deserialize, json_body, make_partial, paginate
from ..core.rest.urls import site_url
from ..core.rest.types import (COLUMN_INT, POSITIVE_ID, DateText, DecimalText, IdList, OptionalId, RowId, StrictBoolean,
                          StrictInt, StrictString, TimeText, bound_check, is_url, not_blank, once,
                          url_or_empty, valid_email, valid_timezone)
from ..core.settings import SettingsError
from ..components.shop.content import POST_STATUSES, delete_post, local_datetime, set_post_terms, slugify, trash_post, unique_slug
from ..components.shop.models import Order, OrderItem, Post, PostTerm, Product, Term, User
from ..components.shop.money import CURRENCY_SYMBOLS, currency_format, format_money, round_money
from ..core.options import OptionError, OptionSpec, set_option, site_options, site_timezone
from ..components.shop.order_notes import acting_user, add_order_note
from ..components.shop.orders import PAID_STATUSES, STATUSES as ORDER_STATUSES, create_order
from ..components.shop.products import create_product, current_price, delete_product, update_product
from ..components.shop.schemas import validate_product
from ..core.values import id_in_range, is_digits, parse_decimal

__all__ = [
    # hooks
    "hookimpl", "hookspec", "apply_filters", "call_action", "hooks_of", "plugin_enabled",
    # cache (with a service view's ``cache="public"``; a kept value holds records, never ORM instances)
    "cached", "record_of",
    # errors
    "RestError", "ErrorCode", "InvalidParams", "NOT_LOGGED_IN", "FORBIDDEN", "NO_ROUTE",
    # REST
    "Service", "site_url", "PaginationSchema", "paginate", "deserialize", "json_body", "make_partial",
    # schema types and validators
    "StrictBoolean", "StrictInt", "StrictString", "DecimalText", "DateText", "TimeText", "OptionalId", "RowId",
    "IdList", "COLUMN_INT", "POSITIVE_ID", "not_blank", "is_url", "url_or_empty", "valid_email",
    "valid_timezone", "bound_check", "once",
    # values
    "parse_decimal", "id_in_range", "is_digits",
    # auth
    "Identity", "require", "user_can",
    # the audit log: audit(session_or_request, kind, action, subject, details) in the change's transaction
    "audit",
    # database
    "Base", "UTCDateTime", "utcnow", "get_by_id", "get_or_404", "count_rows",
    # store models and services
    "User", "Post", "Term", "PostTerm", "Product", "Order", "OrderItem",
    "POST_STATUSES", "slugify", "unique_slug", "trash_post", "delete_post", "set_post_terms", "local_datetime",
    "ORDER_STATUSES", "PAID_STATUSES", "create_order", "current_price",
    # an order's history: add_order_note(session, order_or_id, note, customer_note=False, added_by_user=False)
    "add_order_note", "acting_user",
    "validate_product", "create_product", "update_product", "delete_product",
    # settings: raise SettingsError("key must be ..., not 'x'") for a bad ini value (start-up stops with that line)
    "SettingsError",
    # options and money
    "OptionSpec", "OptionError", "site_options", "set_option", "site_timezone",
    "CURRENCY_SYMBOLS", "currency_format", "format_money", "round_money",
    # mail: send_mail(session, to=, subject=, text=, html=None, ...) -> id, recorded in the session's transaction
    # queue_mail(session, kind, context) -> id: composed by a worker with config.add_mail_composer(kind, f)
    "send_mail", "queue_mail", "render_mail", "Attachment", "InlineImage", "MailError",
    # tasks
    "Periodic", "crontab", "enqueue_after_commit", "enqueue_now",
    # command line
    "CliError", "Parser",
    # metrics (storeplatform_<name>, for Prometheus)
    "counter", "histogram",
    # admin pages
    "AdminPage", "admin_view", "admin_url", "admin_redirect", "form_values", "refuse_form",
    # admin lists and their CSV exports
    "list_query", "query_values", "page_of", "csv_response", "export_filename",
]
