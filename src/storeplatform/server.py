"""Paste server runners that take their port from ``pserve INI http_port=N`` (default in the ini).

PasteDeploy never lets a command-line variable override a value written in the ini file, so
``%(http_port)s`` cannot have a default there; these runners read the variable instead.
"""


def _port(global_conf, port):
    return int(global_conf.get("http_port") or port)


def waitress(app, global_conf, host="127.0.0.1", port="6543", **kw):
    from waitress import serve

    serve(app, host=host, port=_port(global_conf, port), **kw)


def gunicorn(app, global_conf, host="127.0.0.1", port="6543", **kw):
    from gunicorn.app.pasterapp import serve

    serve(app, global_conf, host=host, port=str(_port(global_conf, port)), **kw)
