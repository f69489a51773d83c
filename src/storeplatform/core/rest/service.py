"""Namespaces and services: a REST resource is declared once, at module level, and added to a
site with ``config.add_rest_services(...)``.

    checkin = Service("events/v1", "/checkin", description="Check a ticket in.")

    @checkin.post(permission="manage_shop", body=CheckinBody())
    def post_checkin(request): ...

A ``Service`` holds only the declaration; each site (configurator) builds its own Cornice
service from it under that site's ``{rest_root}``, so one module serves any number of apps and
Cornice stays replaceable behind this module. Validation, permissions and error bodies are ours.
"""
from pyramid.config import PHASE1_CONFIG
from pyramid.exceptions import ConfigurationError
from cornice import Service as CorniceService

from ..auth.capabilities import require
from ..db import READ_ONLY_VIEWS
from ..kept_answers import cached_answers, reading_validator
from ..values import id_in_range
from .answers import answered
from .index import PLACEHOLDER, namespace_index
from .namespaces import NAMESPACES_KEY, Namespace
from .preconditions import precondition_validator, verified
from .schema import deserialize, json_body, query_cstruct


class Service:
    """A REST resource: ``path`` under the namespace's root (``/checkin``,
    ``/attendees/{id:\\d+}``), and its views by method.

    View options: ``permission`` (a capability name, or a callable ``(request)`` that raises a
    ``RestError``; checked before validation), ``query`` / ``body`` (colander mapping schemas;
    the validated values are in ``request.validated``), ``body_reader`` (``(request) -> dict``,
    the raw body to validate when ``json_body(request)`` is not the right reading), ``bind``
    (``(request) -> dict``: the body schema is bound with it, for deferred validators that check
    references beside the other fields, so every bad parameter is reported at once),
    ``response`` (the response shape for the schema index), ``permission_description``
    (the capability the index names when ``permission`` is a callable) and ``read_only`` (a
    POST that only computes, such as a price: its session refuses writes and, on a database
    server, runs without a transaction, as GET's does) and ``cache`` (``"public"``: its answers
    may be kept by the host, ``storeplatform.cache``; a GET's, HEAD's or a ``read_only`` view's).
    A GET's kept answers carry an ETag and answer If-None-Match; the service's writes then take
    If-Match, If-None-Match and If-Unmodified-Since (``rest/preconditions.py``).
    """

    def __init__(self, namespace, path, *, name=None, description=""):
        self.namespace = namespace
        self.path = path
        # Route names are ``<namespace>:<name>`` (unique across the site).
        self.name = f"{namespace}:{name or path}"
        self.description = description
        self.views = []

    def add_view(self, method, view, **options):
        self.views.append((method.upper(), view, options))
        return view

    def _decorator(self, method, options):
        def decorate(view):
            return self.add_view(method, view, **options)

        return decorate

    def get(self, **options):
        return self._decorator("GET", options)

    def post(self, **options):
        return self._decorator("POST", options)

    def put(self, **options):
        return self._decorator("PUT", options)

    def patch(self, **options):
        return self._decorator("PATCH", options)

    def delete(self, **options):
        return self._decorator("DELETE", options)


class RestService(CorniceService):
    """The Cornice service a site builds from a ``Service``."""

    renderer = "restjson"
    # Errors are raised as RestError by our validators and rendered by the error views.
    default_validators = []

    def __init__(self, *, namespace, **kwargs):
        super().__init__(**kwargs)
        self.namespace = namespace
        self.docs = {}
        self.read_only_methods = set()
        # (validators, kept_answer, cache kind) of the GET whose answers carry an ETag: what the
        # service's writes compare their preconditions with.
        self.tagged_read = None

    def add_view(self, method, view, *, permission=None, query=None, body=None, body_reader=None, bind=None,
                 response=None, permission_description=None, read_only=False, cache=None, **kwargs):
        method = method.upper()
        if read_only:
            self.read_only_methods.add(method)
        if cache not in (None, "public"):
            raise ConfigurationError(f"{self.name} {method}: cache must be \"public\" or None, not {cache!r}")
        if cache and not (read_only or method in ("GET", "HEAD")):
            raise ConfigurationError(f"{self.name} {method}: only a view that reads (GET, or read_only) may be cached")
        self.docs[method] = {
            "query": query,
            "body": body,
            "permission": permission_description or (permission if isinstance(permission, str) else None),
            "response": response,
        }
        validators = [_path_validator(integer_path_params(self.path)), _permission_validator(permission),
                      _schema_validator(query, body, body_reader or json_body, bind)]
        view_name = f"{view.__module__}.{getattr(view, '__qualname__', type(view).__qualname__)}"
        view = answered(view)
        if cache:
            view = cached_answers(view, self.name, method, view_name)
            if method == "GET":
                # A write's preconditions validate the GET's input: always (they use no kept answer).
                self.tagged_read = (tuple(validators), view.kept_answer, view.kind)
            validators[-1] = view.unless_known(validators[-1])
            validators.insert(0, reading_validator)
        elif method in WRITES and not read_only:
            # After the permission (who may not write learns nothing of the resource), before the
            # body is read (RFC 9110 13.2.1).
            validators.insert(2, precondition_validator(self))
            view = verified(view)
        kwargs.setdefault("permission", None)
        super().add_view(method, view, validators=validators, **kwargs)


WRITES = ("PUT", "PATCH", "POST", "DELETE")


def _permission_validator(permission):
    def validate(request, **kwargs):
        if permission is None:
            return
        if callable(permission):
            permission(request)
        else:
            require(request, permission)

    return validate


def integer_path_params(path):
    """Names of the path parameters written ``{name:\\d+}``."""
    return tuple(m.group(1) for m in PLACEHOLDER.finditer(path) if (m.group(2) or "").startswith(r"\d"))


def path_id(text):
    """An integer path parameter as an id: the number, or 0 (which names no row) when it is
    beyond the integer columns, so that the route's own not-found answer follows and no
    oversized number ever reaches the database or ``int()``'s digit limit."""
    # The route's \d+ also matches other scripts' digits ("٣"): those name no row either.
    if len(text) > 10 or not text.isascii():
        return 0
    value = int(text)
    return value if id_in_range(value) else 0


def _path_validator(path_ids):
    def validate(request, **kwargs):
        # First, so that a permission callable can load the item of the path.
        request.validated = {name: path_id(request.matchdict[name]) for name in path_ids}

    return validate


def _schema_validator(query, body, body_reader, bind):
    def validate(request, **kwargs):
        validated = request.validated
        if query is not None:
            validated.update(deserialize(query, query_cstruct(request, query)))
        if body is not None:
            schema = body.bind(**bind(request)) if bind is not None else body
            validated.update(deserialize(schema, body_reader(request)))
        request.validated = validated

    return validate


def namespace(config_or_registry, name):
    """The namespace called ``name`` (e.g. ``"events/v1"``) of a site, made on first use."""
    registry = getattr(config_or_registry, "registry", config_or_registry)
    namespaces = registry.setdefault(NAMESPACES_KEY, {})
    if name not in namespaces:
        prefix = registry.settings["storeplatform.rest_prefix"]
        namespaces[name] = Namespace(name, f"{prefix}/{name.strip('/')}")
        if hasattr(config_or_registry, "add_route"):
            _add_index_route(config_or_registry, namespaces[name])
    return namespaces[name]


def add_rest_namespace(config, name, **policies):
    """Config directive: make (or extend) a namespace and set its policies
    (``unauthenticated_code``, ``forbidden_code``, ``guard``, ``index_permission``, ``description``)."""
    return namespace(config, name).configure(**policies)


def add_rest_services(config, *sources):
    """Config directive: add services to the site. Each source is a ``Service`` or a module,
    whose module-level ``Service`` objects are added in the order they are declared. A namespace
    nobody declares by the end of the plugins' configuration stops start-up (namespaces.py)."""
    for source in sources:
        services = [source] if isinstance(source, Service) else \
            [value for value in vars(source).values() if isinstance(value, Service)]
        for service in services:
            # Who added it, for that start-up error: the module of its views (or of the source).
            module = next((view.__module__ for _, view, _ in service.views), getattr(source, "__name__", ""))
            namespace(config, service.namespace).added_by.append(module)
            _add_service(config, service)


def _add_service(config, service):
    ns = namespace(config, service.namespace)
    built = RestService(name=service.name, path=ns.root + service.path, description=service.description,
                        namespace=ns)
    for method, view, options in service.views:
        built.add_view(method, view, **options)
    read_only = config.registry.setdefault(READ_ONLY_VIEWS, set())
    read_only.update((method, service.name) for method in built.read_only_methods)
    ns.services.append(built)
    config.action(None, lambda: config.add_cornice_service(built), order=PHASE1_CONFIG)


def _add_index_route(config, ns):
    route = f"rest-index:{ns.name}"
    config.add_route(route, ns.root + "/")
    config.add_view(namespace_index, route_name=route, request_method="GET", renderer="restjson")
    config.add_route(route + ":noslash", ns.root)
    config.add_view(namespace_index, route_name=route + ":noslash", request_method="GET", renderer="restjson")
