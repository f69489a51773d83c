"""``storeplatform -c INI events webhooks list | deliveries ID [--limit N] [--failed]``: the
webhooks and their delivery log as plain text tables (the spec keeps the log off the REST API;
the command line and the admin may read it)."""
from sqlalchemy import select

from storeplatform.api import CliError, Parser, site_timezone

from .models import FAILED, Webhook, WebhookDelivery

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
DEFAULT_LIMIT, MAX_LIMIT = 20, 100
ERROR_WIDTH = 60


def add_commands(events_sub):
    webhooks = events_sub.add_parser("webhooks", help="webhooks and their delivery log")
    sub = webhooks.add_subparsers(dest="webhooks_command", metavar="ACTION", parser_class=Parser)
    sub.required = True
    listing = sub.add_parser("list", help="every webhook: id, name, status, topic, url, failures")
    listing.set_defaults(func=cmd_list)
    deliveries = sub.add_parser("deliveries", help="a webhook's deliveries, newest first")
    deliveries.add_argument("webhook_id")
    deliveries.add_argument("--limit", default=str(DEFAULT_LIMIT), help=f"1..{MAX_LIMIT} (default {DEFAULT_LIMIT})")
    deliveries.add_argument("--failed", action="store_true", help="only the failed deliveries")
    deliveries.set_defaults(func=cmd_deliveries)


def table(header, rows):
    """Columns left-aligned, two spaces apart, one header line; no trailing spaces."""
    rows = [[_cell(value) for value in row] for row in rows]
    widths = [max(len(row[i]) for row in [list(header), *rows]) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
                     for row in [list(header), *rows])


def _cell(value):
    if value is None or value == "":
        return "-"
    return " ".join(str(value).split())  # one line whatever the text


def _positive(value, name, maximum=None):
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < 1 or (maximum is not None and number > maximum):
        bounds = f"from 1 to {maximum}" if maximum else "of at least 1"
        raise CliError(f"{name} must be an integer {bounds}, not {value!r}")
    return number


def cmd_list(env, args):
    with env.transaction() as session:
        hooks = session.execute(select(Webhook).order_by(Webhook.id)).scalars().all()
        print(table(("ID", "NAME", "STATUS", "TOPIC", "URL", "FAILURES"),
                    [(h.id, h.name, h.status, h.topic, h.url, h.failures) for h in hooks]))
    return 0


def cmd_deliveries(env, args):
    webhook_id = _positive(args.webhook_id, "the webhook id")
    limit = _positive(args.limit, "--limit", MAX_LIMIT)
    with env.transaction() as session:
        query = select(WebhookDelivery).where(WebhookDelivery.webhook_id == webhook_id)
        if session.get(Webhook, webhook_id) is None and session.execute(query.limit(1)).first() is None:
            # A deleted webhook's rows stay in the log: they are still shown.
            raise CliError(f"no webhook with id {webhook_id}")
        if args.failed:
            query = query.where(WebhookDelivery.status == FAILED)
        rows = session.execute(query.order_by(WebhookDelivery.id.desc()).limit(limit)).scalars().all()
        tz = site_timezone(session)
        print(table(("ID", "TOPIC", "STATUS", "CODE", "MS", "ERROR", "TIME"),
                    [(d.id, d.topic, d.status, d.response_code, d.duration_ms, _short(d.error), _when(d, tz))
                     for d in rows]))
    return 0


def _when(delivery, tz):
    """Finished, else attempted (still sending), else none (pending), in the site time zone."""
    moment = delivery.finished_at or delivery.attempted_at
    return moment.astimezone(tz).strftime(TIME_FORMAT) if moment is not None else None


def _short(error):
    if not error:
        return None
    error = " ".join(error.split())
    return error if len(error) <= ERROR_WIDTH else error[:ERROR_WIDTH - 3] + "..."

