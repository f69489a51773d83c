"""The admin: server-rendered pages under ``{base_url}/admin/`` (Jinja2 through pyramid_jinja2),
the host's login, logout and dashboard, and the directives plugins declare their pages with."""
import inspect

from pyramid.security import NO_PERMISSION_REQUIRED

from .errors import add_admin_error_views
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
    from . import customers, login, orders, products, settings, users

    login.includeme(config)
    add_admin_views(config, settings, users, orders, products, customers)
    add_admin_error_views(config)


def _include_jinja2(config):
    """What ``config.include("pyramid_jinja2")`` does, with this package named rather than
    searched for: its ``includeme`` finds the caller's package through ``inspect.stack()``, which
    reads the source lines of every frame of the stack (~20 ms per site built under the test
    suite's deep stacks, a tenth of a site's configuration)."""
    import sys

    import pyramid_jinja2

    for directive in ("add_jinja2_renderer", "add_jinja2_search_path", "add_jinja2_extension",
                      "get_jinja2_environment"):
        config.add_directive(directive, getattr(pyramid_jinja2, directive))
    config.add_jinja2_renderer(".jinja2", package=sys.modules[__name__])
    config.add_jinja2_search_path(f"{__name__}:", name=".jinja2")


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
