"""storeplatform: a plugin-based store platform on Pyramid. ``main`` is the WSGI app factory;
plugins use ``storeplatform.api`` and nothing else."""
import os
import sys

from pyramid.config import Configurator
from pyramid.interfaces import IRoutesMapper
from pyramid.tweens import EXCVIEW, INGRESS

from .client import client_address, request_is_https
from .logs import install_record_factory
from .plugins import PluginError, make_plugin_manager
from .queue import start_embedded_consumer
from .rest import add_error_views
from .routing import IndexedRoutesMapper
from .settings import SettingsError, normalize
from .store.options import collect_specs, site_options


def make_config(global_config=None, *, plugins=(), environ=None, **settings):
    """The configurator of a site, with the host and its enabled plugins configured.

    ``plugins``: plugin objects to register beside those the settings name (tests use it
    to register a plugin without installing it). ``environ``: where the ``STOREPLATFORM_*``
    overrides are read (``os.environ`` by default).
    """
    if global_config and "here" in global_config:
        settings.setdefault("here", global_config["here"])
    settings = normalize(settings, os.environ if environ is None else environ)
    pm = make_plugin_manager(settings["storeplatform.parsed"]["plugins"], extra=plugins)
    config = Configurator(settings=settings)
    registry = config.registry
    registry.registerUtility(IndexedRoutesMapper(), IRoutesMapper)
    registry["plugins"] = pm
    registry["options.specs"] = collect_specs(pm)
    config.include(".db")
    config.include(".cache")
    # Before .auth and .rest: its BeforeTraversal subscriber starts the request's span before
    # theirs authenticate the caller (statements of the request all in its trace).
    config.include(".tracing")
    config.include(".auth")
    config.include(".rest")
    config.include(".queue")
    config.include(".store.views")
    config.include(".health")
    config.include(".metrics")
    config.include(".admin")
    config.include(".landing")  # the site root and /favicon.ico (after the admin: its templates)
    _add_request_methods(config)
    config.add_tween("storeplatform.client.ingress_tween_factory", under=EXCVIEW)
    # Over the error views: an error page carries them too.
    config.add_tween("storeplatform.headers.security_headers_tween_factory", over=EXCVIEW)
    # Outermost: the request id and the access record cover every answer, errors included.
    config.add_tween("storeplatform.logs.request_log_tween_factory", under=INGRESS)
    install_record_factory()
    add_error_views(config)
    config.commit()
    # Plugins configure on top of a committed host, as Kinto does.
    pm.hook.storeplatform_includeme(config=config)
    config.commit()
    return config


def _add_request_methods(config):
    config.add_request_method(lambda request: request.registry["plugins"].hook, "hooks", reify=True)
    # Not reified: site_options is cached per transaction and renewed when an option is set.
    config.add_request_method(lambda request: site_options(request.db), "site_options", property=True)
    config.add_request_method(client_address, "client_address", reify=True)
    config.add_request_method(request_is_https, "is_https", property=True)


def _request_class(registry):
    """The request class of the site: Pyramid's, with the methods and properties that the host and
    the plugins add through ``add_request_method`` as attributes of the class. Pyramid applies them
    to every request instead, making a new class for each (``type()`` in
    ``InstancePropertyHelper.apply_properties``), which costs as much as a bare view's own code
    and leaves every attribute lookup of the request without the interpreter's type caches."""
    from pyramid.interfaces import IRequestExtensions, IRequestFactory
    from pyramid.request import Request

    base = registry.queryUtility(IRequestFactory, default=Request)
    extensions = registry.queryUtility(IRequestExtensions)
    if extensions is None:
        return base
    attributes = {**extensions.methods, **dict(extensions.descriptors), "__module__": base.__module__}
    return type(base.__name__, (base,), attributes)


def make_app(config):
    """The WSGI application of a configured site, with its embedded task consumer started
    when the settings ask for one."""
    request_class = _request_class(config.registry)
    config.set_request_factory(request_class)
    config.commit()
    app = config.make_wsgi_app()
    app.request_extensions = None  # the request class has them (request_class)
    if config.registry.settings["storeplatform.parsed"]["embedded_consumer"]:
        start_embedded_consumer(config.registry)
    return app


def main(global_config=None, **settings):
    """The WSGI application factory (``egg:storeplatform``), for pserve and gunicorn: a site that
    cannot serve (a bad setting, a broken plugin, a database or queue that does not answer, a
    schema behind its migrations) stops start-up with one line and exit status 1."""
    from .health import startup_problem

    try:
        config = make_config(global_config, **settings)
        problem = startup_problem(config.registry)
    except (SettingsError, PluginError) as exc:  # their message names the key or the plugin
        problem = str(exc)
    except Exception as exc:  # one line, as the CLI does; nothing half-started is served
        problem = f"{exc.__class__.__name__}: {exc}"
    if problem:
        print(f"storeplatform: error: {problem.splitlines()[0]}", file=sys.stderr, flush=True)
        raise SystemExit(1)
    from .metrics import start_process

    start_process(config.registry, "web")  # with storeplatform.metrics_dir: values in files from here
    return make_app(config)
