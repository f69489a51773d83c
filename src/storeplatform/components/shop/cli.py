"""The shop's commands of ``storeplatform -c INI``: users, their application passwords and
sessions, and consumer keys. Every rule is ``accounts``', as for REST and the admin."""
import getpass
import sys

from sqlalchemy import func, select

from storeplatform.core.cli import CliError, Parser, table
from storeplatform.core.errors import RestError
from storeplatform.core.hookspecs import hookimpl
from storeplatform.core.values import is_digits

from . import accounts, duplicates, user_keys
from .accounts import OWNER
from .models import ConsumerKey


@hookimpl
def storeplatform_cli_commands(subparsers):
    user = subparsers.add_parser("user", help="users and application passwords")
    user_sub = user.add_subparsers(dest="user_command", metavar="ACTION", parser_class=Parser)
    user_sub.required = True
    create = user_sub.add_parser("create", help="create a user with a role")
    create.add_argument("login")
    create.add_argument("--role", required=True)
    create.add_argument("--email", default="")
    create.add_argument("--password")
    create.set_defaults(func=cmd_user_create)
    add_account_commands(user_sub)
    add_app_password_commands(user_sub)
    add_consumer_key_commands(subparsers)


def add_consumer_key_commands(subparsers):
    ck = subparsers.add_parser("consumer-key", help="store consumer keys")
    ck_sub = ck.add_subparsers(dest="ck_command", metavar="ACTION", parser_class=Parser)
    ck_sub.required = True
    ck_create = ck_sub.add_parser("create", help="issue a consumer key and secret (printed once)")
    ck_create.add_argument("login")
    ck_create.add_argument("--permissions", default="read_write", choices=("read", "write", "read_write"))
    ck_create.add_argument("--description", default="")
    ck_create.set_defaults(func=cmd_consumer_key)
    ck_list = ck_sub.add_parser("list", help="the consumer keys (of one user), and which are Basic-only")
    ck_list.add_argument("login", nargs="?")
    ck_list.set_defaults(func=cmd_consumer_key_list)
    ck_revoke = ck_sub.add_parser("revoke", help="revoke a consumer key (refused at the next request)")
    ck_revoke.add_argument("key", metavar="KEY_OR_ID", help="the key's id (consumer-key list) or the whole ck_ key")
    ck_revoke.set_defaults(func=cmd_consumer_key_revoke)


def _find_user(session, login):
    return accounts.find_user(session, OWNER, login)


def cmd_user_create(env, args):
    # The rules (login, role, e-mail, password) are accounts.py's, as for REST and the admin.
    with env.transaction() as session:
        user = accounts.create_user(session, OWNER, login=args.login, role=args.role, email=args.email,
                                    password=args.password)
        print(user.id)
    return 0


def cmd_app_password(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        _, password = user_keys.issue_app_password(session, OWNER, user, args.name)
    print(password)
    return 0


def cmd_consumer_key(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        key, secret = user_keys.issue_consumer_key(session, OWNER, user, args.permissions, args.description)
        basic_only = _basic_only_keys(session, user)
    print(f"{key} {secret}")
    if basic_only:
        print(f"note: {args.login} has {basic_only} older consumer key(s) that are Basic-only: their secrets "
              "were stored only as hashes and cannot be recovered, so they cannot sign requests (OAuth 1.0a); "
              "this new key can ('consumer-key list' shows which)", file=sys.stderr)
    return 0


BASIC_ONLY = "Basic only (issued before secrets were kept: cannot sign requests)"


def _basic_only_keys(session, user):
    stmt = select(func.count()).select_from(ConsumerKey).where(
        ConsumerKey.user_id == user.id, ConsumerKey.secret_sealed.is_(None))
    return session.execute(stmt).scalar_one()


def cmd_consumer_key_list(env, args):
    with env.transaction() as session:
        stmt = select(ConsumerKey).order_by(ConsumerKey.id)
        if args.login is not None:
            stmt = stmt.where(ConsumerKey.user_id == _find_user(session, args.login).id)
        rows = [(str(k.id), k.user.login, "ck_..." + k.truncated_key, k.permissions,
                 "Basic and signed requests" if k.secret_sealed else BASIC_ONLY,
                 " ".join(k.description.split()) or "-")
                for k in session.execute(stmt).scalars()]
    print(table(("ID", "USER", "KEY", "PERMISSIONS", "USE", "DESCRIPTION"), rows))
    return 0


def cmd_consumer_key_revoke(env, args):
    with env.transaction() as session:
        row = user_keys.revoke_consumer_key(session, OWNER, args.key)
        print(f"revoked consumer key {row.id} (ck_...{row.truncated_key}) of {row.user.login}")
    return 0


# --- accounts (#28): every rule is accounts.py's, as for REST and the admin ------------------

APP_PASSWORD_ACTIONS = ("create", "list", "revoke")


def add_account_commands(user_sub):
    listing = user_sub.add_parser("list", help="the users: id, login, role, e-mail, state")
    listing.add_argument("--role", help="only users with this role")
    listing.add_argument("--search", help="text in the login, e-mail or name")
    listing.set_defaults(func=cmd_user_list)
    set_password = user_sub.add_parser(
        "set-password", help="a new password (asked twice on a terminal, else one line of stdin); "
                             "ends the user's cookie sessions and JWTs")
    set_password.add_argument("login")
    set_password.set_defaults(func=cmd_user_set_password)
    set_role = user_sub.add_parser("set-role", help="a new role; ends the user's cookie sessions and JWTs")
    set_role.add_argument("login")
    set_role.add_argument("role")
    set_role.set_defaults(func=cmd_user_set_role)
    disable = user_sub.add_parser("disable", help="refuse every credential of the user: sessions and JWTs end, "
                                                  "application passwords and consumer keys are revoked")
    disable.add_argument("login")
    disable.set_defaults(func=cmd_user_disable)
    enable = user_sub.add_parser("enable", help="let a disabled user log in again")
    enable.add_argument("login")
    enable.set_defaults(func=cmd_user_enable)
    remove = user_sub.add_parser("delete", help="delete a user for good; posts go to --reassign or stay "
                                                "without an author, orders stay as guest orders")
    remove.add_argument("login")
    remove.add_argument("--reassign", metavar="LOGIN", help="the user who gets the deleted user's posts")
    remove.set_defaults(func=cmd_user_delete)
    set_email = user_sub.add_parser("set-email", help="a new e-mail address (\"\" for none); refused when "
                                                       "another user has it, in any case")
    set_email.add_argument("login")
    set_email.add_argument("email")
    set_email.set_defaults(func=cmd_user_set_email)
    rename = user_sub.add_parser("rename", help="a new login (to resolve logins that differ only in case); "
                                                "sessions and credentials stay")
    rename.add_argument("login")
    rename.add_argument("new_login")
    rename.set_defaults(func=cmd_user_rename)
    dupes = user_sub.add_parser("duplicates", help="the logins and e-mail addresses several users share (any "
                                                  "case); --fix makes the unique indexes once none is left")
    dupes.add_argument("--fix", action="store_true", help="make the unique index of each column without "
                                                          "duplicates left (migration sp0018 left it out)")
    dupes.set_defaults(func=cmd_user_duplicates)
    user_sessions = user_sub.add_parser("sessions", help="a user's cookie sessions and JWTs")
    sessions_sub = user_sessions.add_subparsers(dest="sessions_command", metavar="ACTION", parser_class=Parser)
    sessions_sub.required = True
    end = sessions_sub.add_parser("end", help="end every cookie session and JWT of the user (application "
                                             "passwords and consumer keys stay)")
    end.add_argument("login")
    end.set_defaults(func=cmd_user_sessions_end)


def add_app_password_commands(user_sub):
    app_password = user_sub.add_parser("app-password", help="application passwords: create (printed once), "
                                                            "list, revoke")
    app_sub = app_password.add_subparsers(dest="app_password_command", metavar="ACTION", parser_class=Parser)
    app_sub.required = True
    create = app_sub.add_parser("create", help="issue an application password (prints only the password); "
                                               "'user app-password LOGIN' says the same")
    create.add_argument("login")
    create.add_argument("--name", default="cli")
    create.set_defaults(func=cmd_app_password)
    listing = app_sub.add_parser("list", help="a user's application passwords: id, name, created, last used "
                                              "(day and address)")
    listing.add_argument("login")
    listing.set_defaults(func=cmd_app_password_list)
    revoke = app_sub.add_parser("revoke", help="revoke an application password (or --all of the user's)")
    revoke.add_argument("login")
    revoke.add_argument("id", nargs="?", help="the password's id (app-password list)")
    revoke.add_argument("--all", action="store_true", help="every application password of the user")
    revoke.set_defaults(func=cmd_app_password_revoke)


def legacy_forms(argv):
    """``user app-password LOGIN [--name NAME]``, the form before #28, is
    ``user app-password create LOGIN``: scripts written for it keep working (a user whose login
    is an action's name is reached with ``create`` written out)."""
    for i in range(len(argv) - 2):
        if argv[i:i + 2] == ["user", "app-password"] and (i == 0 or argv[i - 1] not in ("-c", "--config")):
            if argv[i + 2] not in (*APP_PASSWORD_ACTIONS, "-h", "--help"):
                return [*argv[:i + 2], "create", *argv[i + 2:]]
            break
    return argv


def cmd_user_list(env, args):
    with env.transaction() as session:
        rows = [(str(u.id), u.login, u.role, u.email or "-", "disabled" if u.disabled else "active",
                 " ".join((u.display_name or "").split()) or "-")
                for u in accounts.list_users(session, OWNER, search=args.search, role=args.role)]
    print(table(("ID", "LOGIN", "ROLE", "EMAIL", "STATE", "NAME"), rows))
    return 0


def read_new_password(stdin=None):
    """The new password: asked twice without echo on a terminal, else the first line of stdin
    (without its line end), so that scripts can pipe it in."""
    stdin = stdin or sys.stdin
    if stdin.isatty():
        first = getpass.getpass("New password: ")
        if getpass.getpass("The same again: ") != first:
            raise CliError("the two passwords differ; nothing changed")
        return first
    line = stdin.readline()
    return line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith("\n") else line


def cmd_user_set_password(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        password = read_new_password()
        accounts.set_password(session, OWNER, user, password)
    print(f"password of {args.login} changed: its cookie sessions and JWTs have ended")
    return 0


def cmd_user_set_role(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        before = user.role
        accounts.set_role(session, OWNER, user, args.role)
    if before == args.role:
        print(f"{args.login} is {args.role} already: nothing changed")
    else:
        print(f"{args.login} is now {args.role} (was {before}): its cookie sessions and JWTs have ended")
    return 0


def cmd_user_disable(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        if user.disabled:
            print(f"{args.login} is disabled already")
            return 0
        accounts.disable_user(session, OWNER, user)
    print(f"{args.login} disabled: sessions and JWTs ended, application passwords and consumer keys revoked")
    return 0


def cmd_user_enable(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        was = user.disabled
        accounts.enable_user(session, OWNER, user)
    print(f"{args.login} enabled" if was else f"{args.login} is not disabled: nothing changed")
    return 0


def cmd_user_delete(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        reassign = None
        if args.reassign is not None:
            try:
                reassign = _find_user(session, args.reassign)
            except RestError:
                raise CliError(f"--reassign: no user with login {args.reassign!r}")
        done = accounts.delete_user(session, OWNER, user, reassign=reassign)
    posts = (f"{done['posts']} post(s) moved to {args.reassign}" if reassign is not None
             else f"{done['posts']} post(s) kept without an author")
    print(f"deleted {args.login}: {posts}, {done['orders']} order(s) kept as guest orders")
    return 0


def cmd_user_set_email(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        accounts.update_user(session, OWNER, user, email=args.email)
    print(f"e-mail address of {args.login} is now {args.email or '(none)'}")
    return 0


def cmd_user_rename(env, args):
    with env.transaction() as session:
        accounts.rename_user(session, OWNER, _find_user(session, args.login), args.new_login)
    print(f"{args.login} is now {args.new_login}")
    return 0


def cmd_user_duplicates(env, args):
    """Each group of users sharing a login or an e-mail address (any case), and the commands
    that resolve them; with --fix, the missing unique indexes made where none is left."""
    with env.transaction() as session:
        found = duplicates.duplicates(session)
        made, blocked = duplicates.make_missing_indexes(session) if args.fix else ([], [])
        missing = duplicates.missing_indexes(session) if not args.fix else blocked
    rows = [("login", str(user_id), login, "-") for group in found["login"] for user_id, login in group]
    rows += [("email", str(user_id), login, email) for group in found["email"] for user_id, login, email in group]
    if rows:
        print(table(("SHARED", "ID", "LOGIN", "EMAIL"), rows))
        print("resolve each: user set-email LOGIN EMAIL, user rename LOGIN NEW_LOGIN, or user delete LOGIN "
              "--reassign LOGIN; then user duplicates --fix")
    else:
        print("no login or e-mail address is shared by several users")
    for name in made:
        print(f"made the unique index {name}")
    if missing:
        print(f"missing unique index(es): {', '.join(missing)}" + ("" if args.fix else " (user duplicates --fix)"))
        return 1 if args.fix else 0
    return 0


def cmd_user_sessions_end(env, args):
    with env.transaction() as session:
        ended = accounts.end_sessions(session, OWNER, _find_user(session, args.login))
    print(f"ended {ended} cookie session(s) and every JWT of {args.login}")
    return 0


def cmd_app_password_list(env, args):
    with env.transaction() as session:
        rows = [(str(row.id), " ".join(row.name.split()) or "-", row.created_at.strftime("%Y-%m-%d %H:%M UTC"),
                 # Recorded at most once a day (credentials.record_use), from this address.
                 f"{row.last_used_at:%Y-%m-%d} {row.last_ip or ''}".strip() if row.last_used_at else "never")
                for row in user_keys.list_app_passwords(session, OWNER, _find_user(session, args.login))]
    print(table(("ID", "NAME", "CREATED", "LAST_USED"), rows))
    return 0


def cmd_app_password_revoke(env, args):
    if args.all == (args.id is not None):
        raise CliError("give the password's id (user app-password list LOGIN) or --all, not both")
    with env.transaction() as session:
        user = _find_user(session, args.login)
        if args.all:
            count = user_keys.revoke_app_passwords(session, OWNER, user)
            print(f"revoked {count} application password(s) of {args.login}")
            return 0
        if not is_digits(args.id) or len(args.id) > 10:
            raise CliError(f"the id must be a number, not {args.id!r}")
        row = user_keys.revoke_app_password(session, OWNER, user, int(args.id))
        print(f"revoked application password {row.id} ({row.name}) of {args.login}")
    return 0


