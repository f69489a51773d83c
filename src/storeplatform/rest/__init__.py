"""The REST server: namespaces, one service class, one error body, schema index, pagination."""
from pyramid.renderers import JSON
from pyramid.tweens import MAIN

from ..jsonutil import _default
from .errors import RestError, add_error_views, error_response
from .pagination import PaginationSchema, page_nodes, paginate, set_headers
from .schema import DecimalText, parse_decimal, StrictBoolean, StrictInt, StrictString, deserialize, invalid_params, json_body, make_partial
from .service import Namespace, RestService, namespace, namespace_for_path


def includeme(config):
    settings = config.get_settings()
    settings["handle_exceptions"] = "false"  # our error views, not Cornice's
    config.include("cornice")
    renderer = JSON(ensure_ascii=False)
    renderer.add_adapter(object, lambda value, request: _default(value))
    config.add_renderer("restjson", renderer)
    prefix = settings["storeplatform.rest_prefix"]
    from .index import root_index

    config.add_route("rest-root", prefix + "/")
    config.add_view(root_index, route_name="rest-root", request_method="GET", renderer="restjson")
    config.add_route("rest-root:noslash", prefix)
    config.add_view(root_index, route_name="rest-root:noslash", request_method="GET", renderer="restjson")
    config.add_request_method(lambda request: None, "rest_namespace", reify=True)
    config.add_tween("storeplatform.rest.rest_tween_factory", over=MAIN)


def rest_tween_factory(handler, registry):
    prefix = registry.settings["storeplatform.rest_prefix"]

    def rest_tween(request):
        # The raw WSGI path: decoding a malformed one is the router's job (a 400 error view).
        path = request.environ.get("SCRIPT_NAME", "") + request.environ.get("PATH_INFO", "")
        if path == prefix or path.startswith(prefix + "/"):
            ns = namespace_for_path(registry, path)
            request.rest_namespace = ns
            if ns is not None and ns.guard is not None:
                ns.guard(request)
            # Wrong credentials fail every REST request, public routes included.
            request.identity
        return handler(request)

    return rest_tween


__all__ = [
    "Namespace", "RestService", "RestError", "namespace", "namespace_for_path", "add_error_views",
    "error_response", "PaginationSchema", "page_nodes", "paginate", "set_headers", "deserialize",
    "invalid_params", "json_body", "make_partial", "DecimalText", "parse_decimal", "StrictBoolean", "StrictInt", "StrictString",
]
