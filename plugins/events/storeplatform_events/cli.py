"""``storeplatform -c INI events ...``: check tickets in and out at the door (the admin path)."""
from storeplatform.api import CliError, Parser


def add_commands(subparsers):
    events = subparsers.add_parser("events", help="event tickets: check in, check out")
    sub = events.add_subparsers(dest="events_command", metavar="ACTION", parser_class=Parser)
    sub.required = True
    checkin = sub.add_parser("checkin", help="check a ticket in")
    checkin.add_argument("ticket_code")
    checkin.add_argument("--event-id", type=int, default=None)
    checkin.set_defaults(func=cmd_checkin)
    checkout = sub.add_parser("checkout", help="check a ticket out")
    checkout.add_argument("ticket_code")
    checkout.set_defaults(func=cmd_checkout)


def cmd_checkin(env, args):
    from .checkin import TicketError, check_in

    with env.transaction() as session:
        try:
            attendee, event_name, already = check_in(session, args.ticket_code.strip(), args.event_id)
        except TicketError as exc:
            raise CliError(f"{exc.error.code}: {exc.message}")
        name = f"{attendee.first_name} {attendee.last_name}".strip()
        print(f"{'already checked in' if already else 'checked in'}: {name} ({event_name or attendee.event_id})")
    return 0


def cmd_checkout(env, args):
    from .checkin import TicketError, check_out

    with env.transaction() as session:
        try:
            attendee, event_name = check_out(session, args.ticket_code.strip())
        except TicketError as exc:
            raise CliError(f"{exc.error.code}: {exc.message}")
        name = f"{attendee.first_name} {attendee.last_name}".strip()
        print(f"checked out: {name} ({event_name or attendee.event_id})")
    return 0
