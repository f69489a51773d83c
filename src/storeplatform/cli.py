"""The ``storeplatform -c INI ...`` command line: set-up and admin for site owners and scripts."""
import json
import os
import shlex
import signal
import sys

from huey.consumer import Consumer
from pyramid.paster import get_appsettings, setup_logging

from . import make_config
from .components.audit import cli as audit_cli
from .components.shop import cli as shop_cli
from .core.audit import actor_outside_request
from .core.cli import CliError, Parser, table
from .core.db.pool import PoolTooSmall, fit_pool
from .core.db.session import site_transaction
from .core.errors import InvalidParams, RestError
from .core.health import migrations_check
from .core.migrate import make_revision, upgrade
from .core.plugins import PluginError, call_action
from .core.queue import run_start_tasks
from .core.settings import SettingsError
from .core.options import OptionError, set_option, site_options


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

    _add_option_commands(sub)
    _add_counts_commands(sub)

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
    else:  # --help without a site: the components' commands still show (their hooks, called as pm would)
        shop_cli.storeplatform_cli_commands(subparsers=sub)
        audit_cli.storeplatform_cli_commands(subparsers=sub)
    return parser


def _add_option_commands(sub):
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


def _add_counts_commands(sub):
    counts = sub.add_parser("counts", help="the kept list counts: compare them with their rows, repair them")
    counts_sub = counts.add_subparsers(dest="counts_command", metavar="ACTION", parser_class=Parser)
    counts_sub.required = True
    counts_sub.add_parser("check", help="print every kept count that differs from its rows (exit status 1 if any)"
                          ).set_defaults(func=cmd_counts_check)
    counts_sub.add_parser("repair", help="make every kept count the number of its rows, in one transaction, and "
                                         "print what changed").set_defaults(func=cmd_counts_repair)


def cmd_counts_check(env, args):
    from .core.db.count_repair import count_differences, differ_line

    with env.registry["db.engine"].connect() as connection:
        differences = count_differences(connection)
    if not differences:
        print("every kept count matches its rows")
        return 0
    print(_counts_table(differences, "KEPT", "ROWS"))
    print(f"{differ_line(differences)}: "
          f"storeplatform -c {shlex.quote(args.config)} counts repair rewrites them")
    return 1


def cmd_counts_repair(env, args):
    from .core.db.count_repair import differences_summary, repair_counts

    with env.registry["db.engine"].begin() as connection:
        repaired = repair_counts(connection)
    if not repaired:
        print("every kept count matches its rows: nothing to repair")
        return 0
    print(_counts_table(repaired, "WAS", "NOW"))
    print(f"repaired {differences_summary(repaired)}")
    return 0


def _counts_table(differences, kept, rows):
    """One line per key: its table, its values (``post_type=page status=publish``), the kept
    count and the rows'."""
    def value(text):
        return text if text and not any(c.isspace() or c in '="' for c in text) else json.dumps(text)

    return table(("TABLE", "KEY", kept, rows), [
        (d.table, " ".join(f"{c}={value(v)}" for c, v in zip(d.columns, d.key)), str(d.kept), str(d.rows))
        for d in differences])


def cmd_migrate(env, args):
    upgrade(env.registry)
    print("database is up to date")
    return 0


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
    consumer = _Consumer(huey, workers=args.workers, worker_type="thread", periodic=True, graceful_signal="TERM")
    # Huey starts its worker threads before it installs its signal handlers: a SIGTERM in
    # between killed a worker that was already sending. The signals wait (blocked, then
    # delivered) until the handlers are in place.
    signal.pthread_sigmask(signal.SIG_BLOCK, _CONSUMER_SIGNALS)
    run_start_tasks(env.registry)
    consumer.run()
    return 0


_CONSUMER_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


class _Consumer(Consumer):
    def _set_signal_handlers(self):
        super()._set_signal_handlers()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _CONSUMER_SIGNALS)


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

    from .components.mail.order_messages import QUIET

    with env.transaction() as session:
        session.info[QUIET] = True  # the demo's buyers are made up: no order messages to them
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
    # What the command changes is the site owner's at the command line (the audit log's "cli").
    acting = actor_outside_request.set("cli")
    try:
        config_uri = _config_from_argv(argv)
        env = Environment(config_uri) if config_uri else None
        parser = build_parser(env.registry["plugins"] if env else None)
        args = parser.parse_args(shop_cli.legacy_forms(argv))
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
        actor_outside_request.reset(acting)
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
