"""Namespaces: versioned groups of routes with their own error codes, guard and index."""

NAMESPACES_KEY = "rest.namespaces"


class Namespace:
    """A versioned group of routes, e.g. ``events/v1`` under ``{rest_root}/events/v1``.

    ``unauthenticated_code`` / ``forbidden_code``: error codes for 401 and 403 in this
    namespace. ``guard(request)``: called before any route of the namespace (also unknown
    ones); raise ``RestError`` to refuse. ``index_permission``: a capability needed to read
    the namespace's schema index (None: public).
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

    def configure(self, *, unauthenticated_code=None, forbidden_code=None, guard=None,
                  index_permission=None, description=None):
        """Set the namespace's policies; called by the plugin that owns the namespace."""
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
