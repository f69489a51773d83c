"""The admin: server-rendered pages under ``{base_url}/admin/`` (Jinja2 through pyramid_jinja2),
the host's login, logout and dashboard, and the directives plugins declare their pages with."""
import inspect
import sys

import pyramid_jinja2

from pyramid.security import NO_PERMISSION_REQUIRED

from .errors import add_admin_error_views
from .money import add_money_filter
from .guard import wrap
from .pages import ADMIN_PREFIX, PAGES, AdminPage, admin_view, allowed_methods, route_name

STATIC = "admin/static"


def includeme(config):
    _include_jinja2(config)
    config.add_jinja2_search_path("storeplatform.components.admin:templates", name=".jinja2")
    config.add_request_method(_is_admin, "is_admin", reify=True)
    config.registry[PAGES] = {}
    config.add_directive("add_admin_page", add_admin_page)
    config.add_directive("add_admin_views", add_admin_views)
    config.add_directive("add_admin_templates", add_admin_templates)
    config.add_directive("add_admin_static", add_admin_static)
    config.add_static_view(f"{STATIC}/admin", "storeplatform.components.admin:static", cache_max_age=3600,
                           permission=NO_PERMISSION_REQUIRED)
    from . import bulk, customers, login, order_new, orders, password_pages, products, settings, users

    login.includeme(config)
    password_pages.includeme(config)
    add_admin_views(config, settings, users, orders, order_new, products, customers, bulk)
    add_admin_error_views(config)


def _include_jinja2(config):
    """What ``config.include("pyramid_jinja2")`` does, with this package named rather than
    searched for (its ``includeme`` finds the caller's package through ``inspect.stack()``, which
    reads the source lines of every frame of the stack: ~20 ms per site built under the test
    suite's deep stacks), and with templates named by their place on the search paths only."""
    for directive in ("add_jinja2_search_path", "add_jinja2_extension", "get_jinja2_environment"):
        config.add_directive(directive, getattr(pyramid_jinja2, directive))
    package = sys.modules[__name__]
    factory = _SearchPathRenderers()
    config.add_renderer(".jinja2", factory)
    resolve = pyramid_jinja2.DottedNameResolver(package=package).maybe_resolve

    def register():
        settings = config.get_settings()
        environment = pyramid_jinja2.create_environment_from_options(
            pyramid_jinja2.parse_env_options_from_settings(settings, "jinja2.", resolve, package),
            pyramid_jinja2.parse_loader_options_from_settings(settings, "jinja2.", resolve, package))
        add_money_filter(environment)
        factory.environment = environment
        config.registry.registerUtility(environment, pyramid_jinja2.IJinja2Environment, name=".jinja2")

    config.action(("jinja2-renderer", ".jinja2"), register, order=pyramid_jinja2.ENV_CONFIG_PHASE)
    config.add_jinja2_search_path(f"{__name__}:", name=".jinja2")


class _SearchPathRenderers:
    """The ``.jinja2`` renderer factory: a view's template is looked up on the search paths
    (``add_admin_templates``), where Jinja2's cache keeps it. pyramid_jinja2's own first tries the
    name relative to the view's package, where no admin template is, and Jinja2 does not keep a
    miss: that was a lookup on disk through pkg_resources on every page (its work growing with
    the depth of the install's path)."""

    environment = None  # set by the configuration's action

    def __call__(self, info):
        name = info.name
        return pyramid_jinja2.Jinja2TemplateRenderer(lambda: self.environment.get_template(name))


def _is_admin(request):
    # The raw WSGI path, as the REST tween reads it: decoding a malformed one is the router's job.
    path = request.environ.get("PATH_INFO", "")
    return path == ADMIN_PREFIX or path.startswith(ADMIN_PREFIX + "/")


def add_admin_page(config, page):
    """Directive: an entry of the navigation (an ``AdminPage``); its views come with
    ``add_admin_views``. A name declared twice is refused (two plugins would share a route)."""
    pages = config.registry[PAGES]
    if pages.get(page.name, page) != page:
        raise ValueError(f"admin page {page.name!r} is declared twice")
    pages[page.name] = page


def add_admin_views(config, *modules):
    """Directive: every function of ``modules`` decorated with ``admin_view``, in the order
    declared; their pages are declared on the way."""
    routes = config.registry.setdefault("admin.routes", set())
    for module in modules:
        functions = [obj for _, obj in inspect.getmembers(module, inspect.isfunction)
                     if getattr(obj, "__admin_views__", None)]
        for view in sorted(functions, key=lambda f: f.__code__.co_firstlineno):
            for spec in view.__admin_views__:
                add_admin_page(config, spec.page)
                name = route_name(spec.page, spec.path)
                if name not in routes:
                    config.add_route(name, ADMIN_PREFIX + spec.page.path + spec.path)
                    routes.add(name)
                allowed_methods(config.registry, name).add(spec.request_method)
                config.add_view(wrap(view, spec.capability or spec.page.capability), route_name=name,
                                request_method=spec.request_method, renderer=spec.template,
                                permission=NO_PERMISSION_REQUIRED)


def add_admin_templates(config, spec):
    """Directive: a folder of Jinja2 templates (``"storeplatform_events:admin_templates"``);
    keep them in a sub-folder named after the plugin (``events/webhooks.jinja2``)."""
    config.add_jinja2_search_path(spec, name=".jinja2")


def add_admin_static(config, name, spec):
    """Directive: a folder of static files served at ``{base_url}/admin/static/<name>/``; a
    template links them with ``static_url("storeplatform_events:admin_static/desk.js")``."""
    if name == "admin":
        raise ValueError("the static folder name 'admin' is the host's")
    config.add_static_view(f"{STATIC}/{name}", spec, cache_max_age=3600, permission=NO_PERMISSION_REQUIRED)


__all__ = ["AdminPage", "admin_view", "includeme"]
