"""The ``storeplatform -c INI ...`` command line: set-up and admin for site owners and scripts."""
import argparse
import json
import os
import shlex
import sys

from huey.consumer import Consumer
from pyramid.paster import get_appsettings, setup_logging
from sqlalchemy import func, select

from . import make_config
from .auth import ROLES
from .auth.methods import new_app_password, new_consumer_key
from .auth.passwords import hash_password
from .db.pool import PoolTooSmall, fit_pool
from .db.session import site_transaction
from .health import migrations_check
from .migrate import make_revision, upgrade
from .plugins import PluginError, call_action
from .queue import run_start_tasks
from .settings import SettingsError
from .store.models import ConsumerKey, User
from .store.options import OptionError, set_option, site_options


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
    app_password = user_sub.add_parser("app-password", help="issue an application password (printed once)")
    app_password.add_argument("login")
    app_password.add_argument("--name", default="cli")
    app_password.set_defaults(func=cmd_app_password)

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
    user = session.execute(select(User).where(User.login == login)).scalar_one_or_none()
    if user is None:
        raise CliError(f"no user with login {login!r}")
    return user


def cmd_user_create(env, args):
    roles = set(env.registry["auth.role_capabilities"]) | set(ROLES)
    if args.role not in roles:
        raise CliError(f"unknown role {args.role!r} (roles: {', '.join(sorted(roles))})")
    if not args.login or len(args.login) > 60 or any(c.isspace() for c in args.login):
        raise CliError("login must be 1 to 60 characters without spaces")
    with env.transaction() as session:
        if session.execute(select(User.id).where(User.login == args.login)).first():
            raise CliError(f"a user with login {args.login!r} exists already")
        user = User(login=args.login, role=args.role, email=args.email, display_name=args.login,
                    password_hash=hash_password(args.password) if args.password else None)
        session.add(user)
        session.flush()
        print(user.id)
    return 0


def cmd_app_password(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        password = new_app_password(session, env.settings["storeplatform.secret"], user, args.name)
    print(password)
    return 0


def cmd_consumer_key(env, args):
    with env.transaction() as session:
        user = _find_user(session, args.login)
        key, secret = new_consumer_key(session, env.settings["storeplatform.secret"], user, args.permissions,
                                       args.description)
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
    # SIGTERM (what service managers send) stops gracefully: the tasks under way finish and
    # what they handed to background threads is written; SIGINT stops at once.
    consumer = Consumer(huey, workers=args.workers, worker_type="thread", periodic=True, graceful_signal="TERM")
    run_start_tasks(env.registry)
    consumer.run()
    return 0


def cmd_demo(env, args):
    from .store.demo import DEMO_PASSWORD, DEMO_USERS

    with env.transaction() as session:
        call_action(env.registry["plugins"].hook.storeplatform_demo_data, session=session)
        options = site_options(session)
    ini = args.config
    print("demo data loaded")
    print(f"logins (password {DEMO_PASSWORD}): " + ", ".join(f"{login} ({role})" for login, role, *_ in DEMO_USERS))
    print(f"an application password for REST clients: storeplatform -c {ini} user app-password admin")
    # The switches of the site that are off (the specs keep some APIs off until an owner turns them on).
    for key, value in sorted(options.items()):
        if key.endswith(".rest_api_enabled") and value is False:
            print(f"off: the {key.split('.')[0]} REST API; turn it on with "
                  f"storeplatform -c {ini} option set {key} true")
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
        args = parser.parse_args(argv)
        if args.func is not cmd_migrate:
            require_schema_at_head(env, config_uri)
        return args.func(env, args) or 0
    except CliError as exc:
        # Usage errors carry the program name already (argparse style, exit 2); others do not.
        usage = str(exc).startswith("storeplatform")
        print(str(exc) if usage else f"storeplatform: error: {exc}", file=sys.stderr)
        return 2 if usage else 1
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
