"""``storeplatform -c INI audit list [--user LOGIN] [--kind KIND] [--action ACTION] [--since DAY]
[--until DAY] [--limit N]``: the audit log's newest entries as a plain text table, times in the
site's time zone; read through ``entries``, as the admin's page and REST read it."""
import re
from datetime import date

from storeplatform.core.cli import CliError, Parser, table
from storeplatform.core.hookspecs import hookimpl
from storeplatform.core.jsonutil import dumps
from storeplatform.core.options import site_timezone

from .entries import COLUMNS, day_problem, entries_select, entry_conditions, utc_bounds

DEFAULT_LIMIT, MAX_LIMIT = 50, 1000
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@hookimpl
def storeplatform_cli_commands(subparsers):
    audit = subparsers.add_parser("audit", help="the audit log: who changed what, when, from which address")
    audit_sub = audit.add_subparsers(dest="audit_command", metavar="ACTION", parser_class=Parser)
    audit_sub.required = True
    listing = audit_sub.add_parser("list", help="the newest entries first: id, time, user, address, kind, action, "
                                                "subject, details")
    listing.add_argument("--user", help="only the changes of this login (as recorded), or cli, system, anonymous")
    listing.add_argument("--kind", help="only this kind (users, credentials, settings, webhooks...)")
    listing.add_argument("--action", help="only this action (created, role_changed, changed...)")
    listing.add_argument("--since", metavar="YYYY-MM-DD", help="from this day on (the site's time zone)")
    listing.add_argument("--until", metavar="YYYY-MM-DD", help="up to this day, included")
    listing.add_argument("--limit", default=str(DEFAULT_LIMIT), help=f"1..{MAX_LIMIT} (default {DEFAULT_LIMIT})")
    listing.set_defaults(func=cmd_audit_list)


def _day(text, name):
    if text is None:
        return None
    try:
        if not _DAY.fullmatch(text.strip()):
            raise ValueError
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise CliError(f"{name} must be a date as YYYY-MM-DD, not {text!r}")
    problem = day_problem(day)
    if problem:
        raise CliError(f"{name} {problem}")
    return day


def _limit(text):
    text = text.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 6 and 1 <= int(text) <= MAX_LIMIT):
        raise CliError(f"--limit must be an integer from 1 to {MAX_LIMIT}, not {text!r}")
    return int(text)


def _cell(value):
    if value is None or value == "":
        return "-"
    return " ".join(str(value).split())  # one line whatever the text


def cmd_audit_list(env, args):
    since, until = _day(args.since, "--since"), _day(args.until, "--until")
    if since and until and since > until:
        raise CliError("--since must not be after --until")
    limit = _limit(args.limit)
    with env.transaction() as session:
        tz = site_timezone(session)
        start, end = utc_bounds(tz, since, until)
        conditions = entry_conditions(user=args.user, kind=args.kind, action=args.action, start=start, end=end)
        rows = session.execute(entries_select(conditions, *COLUMNS).limit(limit)).all()
    print(table(("ID", "TIME", "USER", "ADDRESS", "KIND", "ACTION", "SUBJECT", "DETAILS"),
                [_row(r, tz) for r in rows]))
    return 0


def _row(r, tz):
    who = r.actor_login if r.actor_id is None else f"{r.actor_login} (#{r.actor_id})"
    return tuple(_cell(v) for v in (r.id, r.created_at.astimezone(tz).strftime(TIME_FORMAT), who, r.address, r.kind,
                                    r.action, r.subject, dumps(r.details) if r.details else ""))
