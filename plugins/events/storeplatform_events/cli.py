"""``storeplatform -c INI events ...``: check tickets in and out at the door, create event
categories (the REST API has no route for them: the spec serves them read-only), and read the
webhooks and their delivery log (``webhooks/commands.py``)."""
import re

from storeplatform.api import CliError, Parser

_COLOR = re.compile(r"#[0-9A-Fa-f]{6}")


def add_commands(subparsers):
    events = subparsers.add_parser("events", help="event tickets: check in, check out; categories; webhooks")
    sub = events.add_subparsers(dest="events_command", metavar="ACTION", parser_class=Parser)
    sub.required = True
    checkin = sub.add_parser("checkin", help="check a ticket in")
    checkin.add_argument("ticket_code")
    checkin.add_argument("--event-id", type=int, default=None)
    checkin.set_defaults(func=cmd_checkin)
    checkout = sub.add_parser("checkout", help="check a ticket out")
    checkout.add_argument("ticket_code")
    checkout.set_defaults(func=cmd_checkout)
    category = sub.add_parser("category", help="event categories")
    category_sub = category.add_subparsers(dest="category_command", metavar="ACTION", parser_class=Parser)
    category_sub.required = True
    create = category_sub.add_parser("create", help="create a category (prints its id)")
    create.add_argument("name")
    create.add_argument("--slug", default="", help="made from the name when empty")
    create.add_argument("--color", default="", help="#RRGGBB")
    create.add_argument("--description", default="")
    create.set_defaults(func=cmd_category_create)
    from .webhooks.commands import add_commands as add_webhook_commands

    add_webhook_commands(sub)


def cmd_checkin(env, args):
    from .checkin import TicketError, check_in
    from .tickets import typed_code

    with env.transaction() as session:
        try:
            attendee, event_name, already = check_in(session, typed_code(args.ticket_code), args.event_id)
        except TicketError as exc:
            raise CliError(f"{exc.error.code}: {exc.message}")
        name = f"{attendee.first_name} {attendee.last_name}".strip()
        print(f"{'already checked in' if already else 'checked in'}: {name} ({event_name or attendee.event_id})")
    return 0


def cmd_checkout(env, args):
    from .checkin import TicketError, check_out
    from .tickets import typed_code

    with env.transaction() as session:
        try:
            attendee, event_name = check_out(session, typed_code(args.ticket_code))
        except TicketError as exc:
            raise CliError(f"{exc.error.code}: {exc.message}")
        name = f"{attendee.first_name} {attendee.last_name}".strip()
        print(f"checked out: {name} ({event_name or attendee.event_id})")
    return 0


def cmd_category_create(env, args):
    from sqlalchemy import select

    from storeplatform.api import Term, slugify

    from .models import CATEGORY_TAXONOMY

    name = args.name.strip()
    if not name or len(name) > 200:
        raise CliError("the name must have 1 to 200 characters")
    if args.color and not _COLOR.fullmatch(args.color):
        raise CliError(f"--color must be #RRGGBB, not {args.color!r}")
    slug = slugify(args.slug or name)
    with env.transaction() as session:
        taken = session.execute(select(Term.id).where(Term.taxonomy == CATEGORY_TAXONOMY, Term.slug == slug)).first()
        if taken is not None:
            raise CliError(f"a category with the slug {slug!r} exists (id {taken.id})")
        term = Term(taxonomy=CATEGORY_TAXONOMY, name=name, slug=slug, color=args.color.lower(),
                    description=args.description)
        session.add(term)
        session.flush()
        print(f"{term.id} {slug}")
    return 0
