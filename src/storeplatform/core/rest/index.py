"""The schema index: ``GET {rest_root}/`` and ``GET {rest_root}/<namespace>/``."""
import re

from ..auth.capabilities import require
from ..errors import RestError
from .namespaces import NAMESPACES_KEY, namespace_for_path
from .schema import describe


def root_index(request):
    """The namespaces a request could reach: one whose guard refuses it (an API switched off)
    is not listed, so that the index does not reveal it either."""
    namespaces = sorted(name for name, ns in request.registry.get(NAMESPACES_KEY, {}).items()
                        if guard_allows(ns, request))
    prefix = request.registry.settings["storeplatform.rest_prefix"]

    return {
        "name": request.site_options["site.title"],
        "url": request.application_url,
        "namespaces": namespaces,
        "routes": {f"/{name}": {"namespace": name, "_links": {"self": request.application_url + prefix + f"/{name}/"}}
                   for name in namespaces},
    }


def guard_allows(ns, request):
    if ns.guard is None:
        return True
    try:
        ns.guard(request)
    except RestError:
        return False
    return True


def namespace_index(request):
    ns = namespace_for_path(request.registry, request.path.rstrip("/"))
    if ns.index_permission:
        require(request, ns.index_permission)
    return describe_namespace(request, ns)


def describe_namespace(request, ns):
    prefix = request.registry.settings["storeplatform.rest_prefix"]
    routes = {}
    for service in ns.services:
        endpoints = []
        for method in sorted(service.docs):
            doc = service.docs[method]
            args = path_args(service.path)
            args.update(describe(doc["query"], "query"))
            args.update(describe(doc["body"], "body"))
            endpoint = {"methods": [method], "args": args, "permission": doc["permission"]}
            if doc["response"] is not None:
                endpoint["response"] = doc["response"]
            endpoints.append(endpoint)
        routes[PLACEHOLDER.sub(r"{\1}", service.path[len(prefix):])] = {
            "namespace": ns.name,
            "description": service.description,
            "methods": sorted(service.docs),
            "endpoints": endpoints,
        }
    return {"namespace": ns.name, "description": ns.description, "routes": routes}


# ``{name}`` or ``{name:regex}``, the regex may hold one level of braces (``\d{1,18}``).
PLACEHOLDER = re.compile(r"\{(\w+)(?::((?:[^{}]|\{[^{}]*\})+))?\}")


def path_args(path):
    """Arguments of the route pattern itself: ``{id:\\d+}`` is a required integer."""
    return {
        m.group(1): {"type": "integer" if (m.group(2) or "").startswith(r"\d") else "string", "required": True,
                     "location": "path"}
        for m in PLACEHOLDER.finditer(path)
    }
