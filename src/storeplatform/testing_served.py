"""Test sites served over HTTP: ``STOREPLATFORM_TEST_SERVED=waitress`` serves every test site
with development.ini's server, and the tests' requests go through its socket."""
import contextlib
import os
import time


# ``STOREPLATFORM_TEST_SERVED=waitress``: every test site is served over HTTP by the server
# that development.ini starts (our waitress runner's server with that file's server section: its
# thread count, its proxy handling; the pool grows by what its threads need), and the tests talk
# to it over sockets.
SERVED = "STOREPLATFORM_TEST_SERVED"
DEVELOPMENT_INI = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                               "development.ini")


def development_server_section():
    """The ``[server:main]`` settings of development.ini, as its runner receives them."""
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    parser.read(DEVELOPMENT_INI)
    section = dict(parser["server:main"])
    assert section.pop("use") == "egg:storeplatform#waitress", section
    return section


def served_by_environment(wsgi):
    server = os.environ.get(SERVED)
    if not server:
        return None
    if server != "waitress":
        raise ValueError(f"{SERVED} must be waitress, not {server!r}")
    return served_over_http(wsgi, **{**development_server_section(), "host": "127.0.0.1", "port": "0"})


def over_http(base_url):
    """A WSGI app that sends each request to ``base_url`` over HTTP as it is (its Host header
    too, so a test sees the URLs it sees in-process) and answers what the server answered."""
    import re

    from wsgiproxy import HostProxy

    class SameRequest(HostProxy):
        header_map = {}  # no X-Forwarded-* of the proxy's own

        def extract_uri(self, environ):
            return self.uri

    proxy = SameRequest(base_url)
    control = re.compile(r"[\x00-\x20\x7f]")

    def send(environ, start_response):
        # Escaped as a client escapes them on the wire (the proxy sends the rest as it is).
        environ["PATH_INFO"] = control.sub(lambda m: f"%{ord(m.group()):02X}", environ["PATH_INFO"])
        return proxy(environ, start_response)

    return send


@contextlib.contextmanager
def served_over_http(wsgi, **section):
    """Serve ``wsgi`` with the ``waitress`` runner's server and ``section``'s settings (a
    server section of an ini file) on 127.0.0.1, for the block; yields the base URL."""
    import threading

    from waitress import wasyncore

    from .core.db.pool import PER_WEB_THREAD
    from .server import waitress_server

    server = waitress_server(wsgi, {}, **{"port": "0", **section, "host": "127.0.0.1"})
    # The server's threads come on top of what the site already serves (the test's own thread,
    # its workers, a second server of the same site).
    pool = wsgi.registry["db.engine"].pool
    pool.resize(pool.size() + PER_WEB_THREAD * server.adj.threads)
    thread = threading.Thread(target=server.run, name="served-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        # Closed from the server's own loop (closing its sockets from here races its select):
        # with nothing left in its map the loop returns.
        try:
            server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
        except OSError:  # its trigger is closed: the loop has ended already
            pass
        thread.join(timeout=10)
        server.task_dispatcher.shutdown()


def listening(pid):
    """The (address, port) pairs process ``pid`` listens on over TCP (IPv4): its own sockets, read
    from /proc (its descriptors' inodes in the table of its network namespace)."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        with open(f"/proc/{pid}/net/tcp") as fh:
            rows = fh.read().splitlines()[1:]
    except OSError:  # gone
        return set()
    found = set()
    for row in rows:
        parts = row.split()
        if len(parts) > 9 and parts[3] == "0A" and parts[9] in inodes:  # 0A: LISTEN
            address, port = parts[1].split(":")
            found.add((".".join(str(b) for b in bytes.fromhex(address)[::-1]), int(port, 16)))
    return found


def bound_port(proc, host="127.0.0.1", timeout=60.0, output=lambda: ""):
    """The port a server process (``subprocess.Popen`` of ``pserve INI http_port=0``) listens on
    at ``host``, once it does: the port is one the server bound itself, read back from its own
    sockets. (A port found free beforehand and let go, as ``testing.free_port()`` does, can be
    taken by anything on a busy machine before the server binds it: the test then drives
    another site.) ``output``: the server's output so far, for the error."""
    began = time.monotonic()
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited with {proc.returncode} before it listened:\n{output()}")
        ports = sorted(port for address, port in listening(proc.pid) if address == host)
        if ports:
            return ports[0]
        if time.monotonic() - began > timeout:
            raise AssertionError(f"the server did not listen on {host} within {timeout:.0f}s:\n{output()}")
        time.sleep(0.05)
