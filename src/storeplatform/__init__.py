"""storeplatform: a plugin-based store platform on Pyramid. ``main`` is the WSGI app factory;
plugins use ``storeplatform.api`` and nothing else."""
import os
import sys

from pyramid.config import Configurator
from pyramid.interfaces import IRoutesMapper
from pyramid.tweens import EXCVIEW, INGRESS

from .core.client import client_address, request_is_https
from .core.logs import install_record_factory
from .core.plugins import PluginError, make_plugin_manager
from .core.queue import start_embedded_consumer
from .core.rest import add_error_views, check_traversers, quiet_cornice
from .core.routing import IndexedRoutesMapper
from .core.settings import SettingsError, normalize
from .core.options import collect_specs, site_options
from .components import PLUGINS
from .components.mail import SETTINGS as MAIL_SETTINGS
from .components.observability import metrics, tracing


# The kernel, then the components on it (storeplatform.components), in this order. The observers
# come before the kernel parts they observe: the tracing's BeforeTraversal subscriber starts the
# request's span before .auth and .rest authenticate the caller (statements of the request all in
# its trace), and both set the queue's observation points (core/observe.py) before .queue binds
# the tasks. The audit log and the mail log after the admin (their pages); the landing page (the site root,
# /favicon.ico) after the admin: its templates.
HOST_PARTS = (
    ".core.db", ".core.cache",
    ".components.observability.tracing", ".components.observability.metrics",
    ".core.auth", ".core.rest", ".core.queue",
    ".components.shop.views", ".core.health", ".components.admin", ".components.audit", ".components.mail",
    ".components.admin.landing",
)

# The components' own ini keys, read beside the kernel's.
SETTINGS_SECTIONS = (metrics.SETTINGS, tracing.SETTINGS, MAIL_SETTINGS)


def site_settings(settings, environ):
    """The site's settings: the kernel's and its components' (``core.settings.normalize``)."""
    return normalize(settings, environ, SETTINGS_SECTIONS)


def make_config(global_config=None, *, plugins=(), environ=None, **settings):
    """The configurator of a site, with the host and its enabled plugins configured.

    ``plugins``: plugin objects to register beside those the settings name (tests use it
    to register a plugin without installing it). ``environ``: where the ``STOREPLATFORM_*``
    overrides are read (``os.environ`` by default).
    """
    if global_config and "here" in global_config:
        settings.setdefault("here", global_config["here"])
    settings = site_settings(settings, os.environ if environ is None else environ)
    pm = make_plugin_manager(settings["storeplatform.parsed"]["plugins"], extra=plugins, components=PLUGINS)
    config = Configurator(settings=settings)
    registry = config.registry
    registry.registerUtility(IndexedRoutesMapper(), IRoutesMapper)
    registry["plugins"] = pm
    registry["options.specs"] = collect_specs(pm)
    for part in HOST_PARTS:
        config.include(part)
    _add_request_methods(config)
    config.add_tween("storeplatform.core.client.ingress_tween_factory", under=EXCVIEW)
    # Over the error views: an error page carries them too.
    config.add_tween("storeplatform.core.headers.security_headers_tween_factory", over=EXCVIEW)
    # Outermost: the request id and the access record cover every answer, errors included.
    config.add_tween("storeplatform.core.logs.request_log_tween_factory", under=INGRESS)
    install_record_factory()
    add_error_views(config)
    config.commit()
    # Plugins configure on top of a committed host, as Kinto does.
    pm.hook.storeplatform_includeme(config=config)
    config.commit()
    check_traversers(config.registry)
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
    quiet_cornice(config.registry)
    app = config.make_wsgi_app()
    app.request_extensions = None  # the request class has them (request_class)
    if config.registry.settings["storeplatform.parsed"]["embedded_consumer"]:
        start_embedded_consumer(config.registry)
    return app


def main(global_config=None, **settings):
    """The WSGI application factory (``egg:storeplatform``), for pserve and gunicorn: a site that
    cannot serve (a bad setting, a broken plugin, a database or queue that does not answer, a
    schema behind its migrations) stops start-up with one line and exit status 1."""
    from .core.health import startup_problem

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
    metrics.start_process(config.registry, "web")  # with storeplatform.metrics_dir: values in files from here
    return make_app(config)
