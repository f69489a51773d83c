"""Namespaces and the one service class every REST route is made with.

Cornice does the routing and method dispatch; validation, permissions and error bodies are
ours, so that Cornice stays replaceable behind ``Namespace.service``.
"""
from pyramid.config import PHASE1_CONFIG
from cornice import Service

from .errors import RestError
from .schema import deserialize, json_body, query_cstruct

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

    def service(self, config, name, path, description=""):
        """Make a service at ``{rest_root}/<namespace><path>``; add views with its
        ``get``/``post``/``put``/``delete`` decorators or ``add_view``. It is registered with
        Pyramid when the configuration is committed, after its views were added."""
        service = RestService(
            name=f"{self.name}:{name}",
            path=self.root + path,
            description=description,
            namespace=self,
            route_path=path,
        )
        self.services.append(service)
        config.action(None, lambda: config.add_cornice_service(service), order=PHASE1_CONFIG)
        return service


class RestService(Service):
    renderer = "restjson"
    # Errors are raised as RestError by our validators and rendered by the error views.
    default_validators = []

    def __init__(self, *, namespace, route_path, **kwargs):
        super().__init__(**kwargs)
        self.namespace = namespace
        self.route_path = route_path
        self.docs = {}

    def add_view(self, method, view, *, permission=None, query=None, body=None, response=None,
                 permission_description=None, **kwargs):
        """Add a view for ``method``.

        ``permission``: a capability name, or a callable ``(request)`` that raises
        ``RestError``; checked before validation. ``query`` / ``body``: colander mapping
        schemas for the query string and the JSON body; the validated values are in
        ``request.validated``. ``response``: a description of the response shape, for the
        schema index.
        """
        method = method.upper()
        validators = [_permission_validator(permission), _schema_validator(query, body)]
        self.docs[method] = {
            "query": query,
            "body": body,
            "permission": permission_description or (permission if isinstance(permission, str) else None),
            "response": response,
        }
        kwargs.setdefault("permission", None)
        super().add_view(method, view, validators=validators, **kwargs)


def _permission_validator(permission):
    def validate(request, **kwargs):
        if permission is None:
            return
        if callable(permission):
            permission(request)
        else:
            from ..auth.capabilities import require

            require(request, permission)

    return validate


def _schema_validator(query, body):
    def validate(request, **kwargs):
        validated = {}
        if query is not None:
            validated.update(deserialize(query, query_cstruct(request)))
        if body is not None:
            validated.update(deserialize(body, json_body(request)))
        request.validated = validated

    return validate


def namespace(config, name):
    """The namespace called ``name`` (e.g. ``"events/v1"``), made on first use.

    The owning plugin configures it; a third party may add services to it.
    """
    namespaces = config.registry.setdefault(NAMESPACES_KEY, {})
    if name not in namespaces:
        prefix = config.registry.settings["storeplatform.rest_prefix"]
        namespaces[name] = Namespace(name, f"{prefix}/{name.strip('/')}")
        _add_index_route(config, namespaces[name])
    return namespaces[name]


def namespace_for_path(registry, path):
    """The namespace a path falls under, or None."""
    best = None
    for ns in registry.get(NAMESPACES_KEY, {}).values():
        if path == ns.root or path.startswith(ns.root + "/"):
            if best is None or len(ns.root) > len(best.root):
                best = ns
    return best


def _add_index_route(config, ns):
    from .index import namespace_index

    route = f"rest-index:{ns.name}"
    config.add_route(route, ns.root + "/")
    config.add_view(namespace_index, route_name=route, request_method="GET", renderer="restjson")
    config.add_route(route + ":noslash", ns.root)
    config.add_view(namespace_index, route_name=route + ":noslash", request_method="GET", renderer="restjson")


__all__ = ["Namespace", "RestService", "RestError", "namespace", "namespace_for_path"]
