"""The ``storeplatform -c INI ...`` command line: set-up and admin for site owners and scripts."""
import argparse
import getpass
import json
import os
import shlex
import sys

from huey.consumer import Consumer
from pyramid.paster import get_appsettings, setup_logging
from sqlalchemy import func, select

from . import make_config
from .components.shop import accounts
from .components.shop.accounts import OWNER
from .core.db.pool import PoolTooSmall, fit_pool
from .core.db.session import site_transaction
from .core.errors import InvalidParams, RestError
from .core.health import migrations_check
from .core.migrate import make_revision, upgrade
from .core.plugins import PluginError, call_action
from .core.queue import run_start_tasks
from .core.settings import SettingsError
from .components.shop.models import ConsumerKey
from .core.options import OptionError, set_option, site_options
from .core.values import is_digits


class CliError(Exception):
    """A clear one-line message for stderr; exit status 1."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        # One clear line, not argparse's usage block.
        raise CliError(f"{self.prog}: {message}")


class Environment:
    """What a command gets: the site's registry and a way to run a transaction."""

    def __init__(self, config_uri, overrides=None):
        if not os.path.exists(config_uri):
            raise CliError(f"config file not found: {config_uri}")
        setup_logging(config_uri)
        settings = dict(get_appsettings(config_uri))
        settings["huey.embedded_consumer"] = "false"  # a command never runs the web worker
        settings.update(overrides or {})
        self.config = make_config({"here": os.path.dirname(os.path.abspath(config_uri))}, **settings)
        self.registry = self.config.registry
        self.settings = self.registry.settings

    def transaction(self):
        """A session in a transaction of its own, committed at the end unless an error."""
        return site_transaction(self.registry)

    def close(self):
        """Give the command's connections back to the database (a command may run in a process
        that goes on: a test, a script calling ``main``)."""
        self.registry["db.engine"].dispose()


def build_parser(pm=None):
    parser = Parser(prog="storeplatform", description="Storeplatform site administration.",
                    epilog=None if pm is not None else
                    "The enabled plugins add commands of their own (events, invoicing ...): "
                    "give the site's ini, e.g. storeplatform -c development.ini --help, to list them.")
    parser.add_argument("-c", "--config", required=True, metavar="INI", help="the site's ini file")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    sub.add_parser("migrate", help="upgrade the database of the host and every enabled plugin"
                   ).set_defaults(func=cmd_migrate)

    user = sub.add_parser("user", help="users and application passwords")
    user_sub = user.add_subparsers(dest="user_command", metavar="ACTION", parser_class=Parser)
    user_sub.required = True
    create = user_sub.add_parser("create", help="create a user with a role")
    create.add_argument("login")
    create.add_argument("--role", required=True)
    create.add_argument("--email", default="")
    create.add_argument("--password")
    create.set_defaults(func=cmd_user_create)
    add_account_commands(user_sub)

    ck = sub.add_parser("consumer-key", help="store consumer keys")
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

    option = sub.add_parser("option", help="site options")
    option_sub = option.add_subparsers(dest="option_command", metavar="ACTION", parser_class=Parser)
    option_sub.required = True
    get = option_sub.add_parser("get", help="print an option's value")
    get.add_argument("key")
    get.set_defaults(func=cmd_option_get)
    set_ = option_sub.add_parser("set", help="set an option")
    set_.add_argument("key")
    set_.add_argument("value")
    set_.set_defaults(func=cmd_option_set)

    worker = sub.add_parser("worker", help="run a standalone task consumer")
    worker.add_argument("--workers", type=int, default=4)
    worker.set_defaults(func=cmd_worker)

    sub.add_parser("demo", help="load demo data").set_defaults(func=cmd_demo)

    rev = sub.add_parser("db-revision", help="(developers) autogenerate a migration of a distribution")
    rev.add_argument("package")
    rev.add_argument("-m", "--message", required=True)
    rev.add_argument("--path", required=True, help="the distribution's versions folder")
    rev.add_argument("--branch")
    rev.add_argument("--depends-on")
    rev.set_defaults(func=cmd_db_revision)

    if pm is not None:
        pm.hook.storeplatform_cli_commands(subparsers=sub)
    return parser


def cmd_migrate(env, args):
    upgrade(env.registry)
    print("database is up to date")
    return 0


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
        _, password = accounts.issue_app_password(session, OWNER, user, args.name)
    print(password)
    return 0


def cmd_consumer_key(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        key, secret = accounts.issue_consumer_key(session, OWNER, user, args.permissions, args.description)
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
    print(_table(("ID", "USER", "KEY", "PERMISSIONS", "USE", "DESCRIPTION"), rows))
    return 0


def cmd_consumer_key_revoke(env, args):
    with env.transaction() as session:
        row = accounts.revoke_consumer_key(session, OWNER, args.key)
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
    user_sessions = user_sub.add_parser("sessions", help="a user's cookie sessions and JWTs")
    sessions_sub = user_sessions.add_subparsers(dest="sessions_command", metavar="ACTION", parser_class=Parser)
    sessions_sub.required = True
    end = sessions_sub.add_parser("end", help="end every cookie session and JWT of the user (application "
                                             "passwords and consumer keys stay)")
    end.add_argument("login")
    end.set_defaults(func=cmd_user_sessions_end)
    app_password = user_sub.add_parser("app-password", help="application passwords: create (printed once), "
                                                            "list, revoke")
    app_sub = app_password.add_subparsers(dest="app_password_command", metavar="ACTION", parser_class=Parser)
    app_sub.required = True
    create = app_sub.add_parser("create", help="issue an application password (prints only the password); "
                                               "'user app-password LOGIN' says the same")
    create.add_argument("login")
    create.add_argument("--name", default="cli")
    create.set_defaults(func=cmd_app_password)
    listing = app_sub.add_parser("list", help="a user's application passwords: id, name, created")
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
    print(_table(("ID", "LOGIN", "ROLE", "EMAIL", "STATE", "NAME"), rows))
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


def cmd_user_sessions_end(env, args):
    with env.transaction() as session:
        ended = accounts.end_sessions(session, OWNER, _find_user(session, args.login))
    print(f"ended {ended} cookie session(s) and every JWT of {args.login}")
    return 0


def cmd_app_password_list(env, args):
    with env.transaction() as session:
        rows = [(str(row.id), " ".join(row.name.split()) or "-", row.created_at.strftime("%Y-%m-%d %H:%M UTC"))
                for row in accounts.list_app_passwords(session, OWNER, _find_user(session, args.login))]
    print(_table(("ID", "NAME", "CREATED"), rows))
    return 0


def cmd_app_password_revoke(env, args):
    if args.all == (args.id is not None):
        raise CliError("give the password's id (user app-password list LOGIN) or --all, not both")
    with env.transaction() as session:
        user = _find_user(session, args.login)
        if args.all:
            count = accounts.revoke_app_passwords(session, OWNER, user)
            print(f"revoked {count} application password(s) of {args.login}")
            return 0
        if not is_digits(args.id) or len(args.id) > 10:
            raise CliError(f"the id must be a number, not {args.id!r}")
        row = accounts.revoke_app_password(session, OWNER, user, int(args.id))
        print(f"revoked application password {row.id} ({row.name}) of {args.login}")
    return 0


def _table(header, rows):
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in (header, *rows))


def cmd_option_get(env, args):
    with env.transaction() as session:
        try:
            value = site_options(session)[args.key]
        except KeyError:
            raise CliError(f"unknown option {args.key!r}")
    print(option_text(value))
    return 0


def cmd_option_set(env, args):
    with env.transaction() as session:
        try:
            value = set_option(session, args.key, args.value)
        except OptionError as exc:
            raise CliError(str(exc))
    print(option_text(value))
    return 0


def option_text(value):
    """An option's value as ``option get`` and ``option set`` print it: text as it is, anything
    else as JSON (``true``, ``3``), so that what set prints can be set again."""
    return value if isinstance(value, str) else json.dumps(value)


def cmd_worker(env, args):
    huey = env.registry["queue.huey"]
    if huey.immediate:
        raise CliError("huey.url is memory://: tasks run at once, there is nothing for a worker to do")
    if args.workers < 1:
        raise CliError("--workers must be at least 1")
    try:
        fit_pool(env.registry, web_threads=0, task_threads=args.workers)
    except PoolTooSmall as exc:
        raise CliError(str(exc))
    _worker_metrics(env.registry)
    # SIGTERM (what service managers send) stops gracefully: the tasks under way finish and
    # what they handed to background threads is written; SIGINT stops at once.
    consumer = Consumer(huey, workers=args.workers, worker_type="thread", periodic=True, graceful_signal="TERM")
    run_start_tasks(env.registry)
    consumer.run()
    return 0


def _worker_metrics(registry):
    """With storeplatform.metrics_dir, the worker's values (task runs, its pool) go to the files
    the web processes of this machine scrape; its gauges leave the sums when it exits."""
    import atexit

    from .components.observability import metrics

    metrics.start_process(registry, "worker")
    if metrics.directory() is not None:
        atexit.register(metrics.process_exited, os.getpid())


def cmd_demo(env, args):
    from .components.shop.demo import demo_logins
    from .core.startup import cli_command, switched_off

    with env.transaction() as session:
        call_action(env.registry["plugins"].hook.storeplatform_demo_data, session=session)
    with env.transaction() as session:
        logins = demo_logins(session)
        off = switched_off(site_options(session))
    # The commands as they work when pasted: this installation's script (.venv/bin/storeplatform).
    command = cli_command(args.config)
    print("demo data loaded")
    if logins:
        from .components.shop.demo import DEMO_PASSWORD

        print(f"logins (password {DEMO_PASSWORD}): " + ", ".join(f"{login} ({role})" for login, role in logins))
        print(f"an application password for REST clients: {command} user app-password {logins[0][0]}")
    # The switches of the site that are off (the specs keep some APIs off until an owner turns them on).
    for key in off:
        print(f"off: the {key.split('.')[0]} REST API; turn it on with {command} option set {key} true")
    return 0


def cmd_db_revision(env, args):
    make_revision(env.registry, args.package, args.message, args.path, args.branch, args.depends_on)
    return 0


def require_schema_at_head(env, config_uri):
    """Every command but ``migrate`` works on a schema at the heads of the host and the enabled
    plugins: a database never migrated, or behind a new release, gets one line naming the
    command to run instead of the first missing table's database error."""
    with env.registry["db.engine"].connect() as connection:
        check = migrations_check(env.registry, connection, ini=shlex.quote(config_uri))
    if check != "ok":
        raise CliError(f"the database schema is {check}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    env = None
    try:
        config_uri = _config_from_argv(argv)
        env = Environment(config_uri) if config_uri else None
        parser = build_parser(env.registry["plugins"] if env else None)
        args = parser.parse_args(legacy_forms(argv))
        if args.func is not cmd_migrate:
            require_schema_at_head(env, config_uri)
        return args.func(env, args) or 0
    except CliError as exc:
        # Usage errors carry the program name already (argparse style, exit 2); others do not.
        usage = str(exc).startswith("storeplatform")
        print(str(exc) if usage else f"storeplatform: error: {exc}", file=sys.stderr)
        return 2 if usage else 1
    except InvalidParams as exc:  # the accounts' rules and the like: "field: what is wrong"
        print(f"storeplatform: error: {exc}", file=sys.stderr)
        return 1
    except RestError as exc:  # a refusal of the domain (accounts: no such user, last administrator ...)
        print(f"storeplatform: error: {exc.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except (SettingsError, PluginError) as exc:  # their message names the key or the plugin
        print(f"storeplatform: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # one clear line: database errors and the like
        print(f"storeplatform: error: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if env is not None:
            env.close()


def _config_from_argv(argv):
    """The ini path, read before the full parse so that plugins can add commands."""
    for i, arg in enumerate(argv):
        if arg in ("-c", "--config") and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--config="):
            return arg.split("=", 1)[1]
        if arg.startswith("-c") and len(arg) > 2:
            return arg[2:]
    if any(a in ("-h", "--help") for a in argv):
        return None
    raise CliError("storeplatform: the -c INI option is required")


if __name__ == "__main__":
    sys.exit(main())
