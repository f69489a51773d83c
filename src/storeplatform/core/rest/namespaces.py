"""Namespaces: versioned groups of routes with their own error codes, guard and index, each
declared by the plugin that owns it."""
from ..hookspecs import hookimpl
from ..plugins import PluginError, namespace_declared_by, plugin_of_module

NAMESPACES_KEY = "rest.namespaces"


class Namespace:
    """A versioned group of routes, e.g. ``events/v1`` under ``{rest_root}/events/v1``.

    ``unauthenticated_code`` / ``forbidden_code``: error codes for 401 and 403 in this
    namespace. ``guard(request)``: called before any route of the namespace (also unknown
    ones); raise ``RestError`` to refuse. ``index_permission``: a capability needed to read
    the namespace's schema index (None: public). ``declared``: its owner called
    ``config.add_rest_namespace``; ``added_by``: the modules whose services it holds.
    """

    def __init__(self, name, root):
        self.name = name
        self.root = root
        self.unauthenticated_code = "rest_not_logged_in"
        self.forbidden_code = "rest_forbidden"
        self.guard = None
        self.index_permission = None
        self.description = ""
        self.services = []
        self.declared = False
        self.added_by = []

    def configure(self, *, unauthenticated_code=None, forbidden_code=None, guard=None,
                  index_permission=None, description=None):
        """Set the namespace's policies; called by the plugin that owns the namespace."""
        self.declared = True
        if unauthenticated_code:
            self.unauthenticated_code = unauthenticated_code
        if forbidden_code:
            self.forbidden_code = forbidden_code
        if guard is not None:
            self.guard = guard
        if index_permission is not None:
            self.index_permission = index_permission
        if description is not None:
            self.description = description
        return self


def namespace_for_path(registry, path):
    """The namespace a path falls under, or None."""
    best = None
    for ns in registry.get(NAMESPACES_KEY, {}).values():
        if path == ns.root or path.startswith(ns.root + "/"):
            if best is None or len(ns.root) > len(best.root):
                best = ns
    return best


@hookimpl(wrapper=True)
def storeplatform_includeme(config):
    # After every plugin's includeme, whatever the order they ran in: a plugin may add routes
    # to another's namespace before its owner declares it.
    result = yield
    refuse_undeclared_namespaces(config.registry)
    return result


def refuse_undeclared_namespaces(registry):
    """Routes in a namespace that no enabled plugin declared (its owner is off) would serve
    without the owner's switch, guard and error codes: start-up stops naming the owner."""
    for ns in registry.get(NAMESPACES_KEY, {}).values():
        if ns.declared or not ns.services:
            continue
        pm = registry["plugins"]
        adders = sorted({plugin_of_module(pm, module) for module in ns.added_by})
        who = f"plugin {adders[0]!r}" if len(adders) == 1 else "plugins " + ", ".join(map(repr, adders))
        enabled = registry.settings["storeplatform.parsed"]["plugins"]
        owner = namespace_declared_by(ns.name, registry.settings, enabled)
        raise PluginError(f"{who} adds routes to REST namespace {ns.name!r}, which no enabled plugin declares"
                          + (f": it is declared by plugin {owner!r}, add it to storeplatform.plugins" if owner
                             else ": no installed plugin declares it"))
