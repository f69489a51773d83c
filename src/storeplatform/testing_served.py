"""Test sites served over HTTP: ``STOREPLATFORM_TEST_SERVED=waitress`` serves every test site
with development.ini's server, and the tests' requests go through its socket."""
import contextlib
import os


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
