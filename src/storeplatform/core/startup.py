"""What a server says and does when it starts: the site address it serves at (``site.url``
follows the port actually served unless the site's owner set the option), and the summary a
development server ends its start-up output with (ready line, admin, REST, demo logins, commands
that work when pasted)."""
import logging
import os
import shlex
import sys

from sqlalchemy import select

from .db.session import site_transaction
from .models import Option
from .options import coerce, site_options

log = logging.getLogger(__name__)

SITE_URL = "site.url"
# Beside the option, the address a server wrote there itself: while the option still holds it
# (or was never set), the next server writes its own; a different value is the owner's, and is
# kept. Not a declared option: site_options and the settings never show it.
SERVED_MARK = "site.url:served"
WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1", "*": "127.0.0.1"}


def served_address(host, port):
    """``http://host:port`` as a browser on this machine reaches a server listening there (a
    listen-everywhere address is reached on loopback; IPv6 literals in brackets)."""
    host = WILDCARDS.get(str(host), str(host))
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{int(port)}"


def follow_served_address(registry, url):
    """Write ``url`` to ``site.url`` unless the owner set it; return ``(value in effect, whether
    it is the served address)``. Links made outside a request (the worker's webhook payloads,
    the CLI) then name the port actually served. An address the option's kind refuses (a host
    name no URL can hold) is not written: OptionError."""
    url = coerce(registry["options.specs"][SITE_URL], url)
    with site_transaction(registry) as session:
        stored = {row.key: row for row in session.execute(
            select(Option).where(Option.key.in_((SITE_URL, SERVED_MARK)))).scalars()}
        option, mark = stored.get(SITE_URL), stored.get(SERVED_MARK)
        # Not the owner's: never stored, the declared default (a settings section saved whole
        # stores it), or what a server wrote.
        servers = {registry["options.specs"][SITE_URL].default, mark.value if mark is not None else None}
        if option is not None and option.value not in servers:
            return option.value, option.value.rstrip("/") == url  # the owner's: kept
        if option is not None and option.value == url and mark is not None and mark.value == url:
            return url, True  # nothing to write (a restart on the same port)
        for key, row in ((SITE_URL, option), (SERVED_MARK, mark)):
            if row is None:
                session.add(Option(key=key, value=url))
            else:
                row.value = url
        return url, True


def served(registry, host, port):
    """The served address, written to ``site.url`` by the rule above; a database that refuses
    the write does not stop the server (the readiness check says what is wrong)."""
    url = served_address(host, port)
    try:
        effective, followed = follow_served_address(registry, url)
    except Exception as exc:  # noqa: BLE001 - start-up goes on; the line says why the option was left
        log.warning("site.url was not updated to the served address %s: %s", url, exc)
        effective, followed = None, False
    return url, effective, followed


# --- the summary ------------------------------------------------------------------------------

def pasteable(path):
    """A path as it works when pasted in the shell the server was started from: relative to the
    current folder when under it (``.venv/bin/storeplatform``), else absolute; quoted."""
    path = os.path.abspath(path)
    here = os.getcwd()
    if path.startswith(here + os.sep):
        path = os.path.relpath(path, here)
    return shlex.quote(path)


def cli_command(ini):
    """The command line of this installation's CLI for the site's ini: the ``storeplatform``
    script beside the running interpreter (the virtualenv's), never a bare name the shell may not
    find."""
    script = os.path.join(os.path.dirname(sys.executable), "storeplatform")
    prefix = pasteable(script) if os.path.exists(script) else f"{pasteable(sys.executable)} -m storeplatform.cli"
    return f"{prefix} -c {pasteable(ini)}"


def switched_off(options):
    """The REST APIs a site option keeps off (the specs want some off until an owner turns them on)."""
    return sorted(key for key, value in options.items() if key.endswith(".rest_api_enabled") and value is False)


def ready_summary(registry, url, ini, effective=None):
    """The lines a development server ends its start-up output with; components and plugins add
    theirs (``storeplatform_start_summary``: the shop's demo logins)."""
    prefix = registry.settings["storeplatform.rest_prefix"]
    command = cli_command(ini) if ini else "storeplatform -c INI"
    lines = [f"storeplatform is ready at {url}/ (Ctrl+C stops it)",
             f"  admin:     {url}/admin/",
             f"  REST API:  {url}{prefix}/  (OpenAPI: {url}{prefix}/openapi.json)"]
    if effective is not None and effective.rstrip("/") != url:
        lines.append(f"  site.url:  {effective} (set by the site's owner: the links the worker and the CLI make)")
    with site_transaction(registry) as session:
        for added in registry["plugins"].hook.storeplatform_start_summary(
                registry=registry, session=session, url=url, command=command)[::-1]:
            lines.extend(added or ())
        off = switched_off(site_options(session))
    for key in off:
        lines.append(f"  off:       the {key.split('.')[0]} REST API; turn it on with {command} option set {key} true")
    warning = counts_warning(registry, command)
    if warning:
        lines.append(f"  counts:    {warning}")
    return lines


def counts_warning(registry, command="storeplatform -c INI"):
    """What is wrong with the kept list counts, naming the command that repairs them, or None
    when every one is the number of its rows (rows written with the triggers off: a restore, a
    bulk load; ``core.db.count_repair``). Counts every counted table: said at start-up, never
    per request. A comparison that fails says nothing here (readiness says what is down)."""
    from .db.count_repair import count_differences, differ_line

    try:
        with registry["db.engine"].connect() as connection:
            differences = count_differences(connection)
    except Exception as exc:  # noqa: BLE001 - start-up goes on
        log.warning("the kept counts were not compared with their rows: %r", exc)
        return None
    if not differences:
        return None
    return (f"{differ_line(differences)} (list totals are wrong): "
            f"repair them with {command} counts repair")
