"""Admin pages as plugins declare them: a navigation entry (``AdminPage``) and the views under
it (``admin_view``), collected from a module by ``config.add_admin_views``."""
from dataclasses import dataclass

ADMIN_PREFIX = "/admin"
PAGES = "admin.pages"


@dataclass(frozen=True)
class AdminPage:
    """One entry of the admin's navigation. ``path`` is under ``{base_url}/admin`` (``"/webhooks"``);
    ``capability`` gates the page and every view declared under it; ``order`` sorts the
    navigation (then the title); ``section`` is the heading the entry is listed under
    (``"Shop"``, ``"Events"``, ``"Site"``...): sections follow one another in the order of
    their first page; pages with no section (``""``) come last, under "More" when other pages
    have sections."""

    name: str
    title: str
    path: str
    capability: str
    order: int = 100
    section: str = ""


@dataclass(frozen=True)
class AdminViewSpec:
    page: AdminPage
    path: str
    template: str | None
    request_method: str
    capability: str | None


def admin_view(page, path="", template=None, request_method="GET", capability=None):
    """Declare a view of an admin page at module level::

        @admin_view(WEBHOOKS, template="events/webhooks.jinja2")
        def list_webhooks(request):
            return {"webhooks": [...]}          # rendered inside the admin layout

    ``path`` is appended to the page's path (``"/{id:\\d+}/edit"``); ``capability`` defaults
    to the page's. The view is reached only by a logged-in user with the capability (others
    are sent to the login page or get a 403 page), every unsafe method is checked for the form
    token first, and a dict it returns is rendered with ``template`` (which extends
    ``admin/layout.jinja2``). ``config.add_admin_views(module)`` registers them."""
    spec = AdminViewSpec(page, path, template, request_method.upper(), capability)

    def decorate(view):
        specs = getattr(view, "__admin_views__", None)
        if specs is None:
            specs = view.__admin_views__ = []
        specs.append(spec)
        return view

    return decorate


def route_name(page, path):
    return f"admin:{page.name}{path}"


def pages_of(registry):
    """Every declared page, in navigation order."""
    return sorted(registry.get(PAGES, {}).values(), key=lambda p: (p.order, p.title.lower(), p.name))


def visible_pages(request):
    from storeplatform.core.auth import user_can

    return [page for page in pages_of(request.registry) if user_can(request, page.capability)]


def allowed_methods(registry, route_name):
    """The methods an admin route has views for (the ``Allow`` header of its 405 page)."""
    return registry.setdefault("admin.methods", {}).setdefault(route_name, set())
