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
    from gunicorn.config import get_default_config_file

    # A logger class named in the section or in a gunicorn config file (named there, or
    # ./gunicorn.conf.py) is the site owner's: theirs is kept.
    if "logger_class" not in kw and "config" not in kw and get_default_config_file() is None:
        kw["logger_class"] = "storeplatform.gunicorn_logging.SiteLogger"
    serve(app, global_conf, host=host, port=str(_port(global_conf, port)), **kw)
