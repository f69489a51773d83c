"""Absolute URLs of the site and its REST routes, in a request or outside one (tasks, CLI)."""
from ..db import request_of
from ..options import site_options


def rest_url(request, namespace, path=""):
    """``request.rest_url("events/v1", "/events/12")``: the absolute URL of a REST route as the
    client reaches it (``{rest_root}/<namespace><path>``)."""
    return f"{request.application_url}{request.registry.settings['storeplatform.rest_prefix']}/{namespace}{path}"


def site_url(session):
    """The site's base URL: the request's, or the ``site.url`` option outside a request."""
    request = request_of(session)
    if request is not None:
        return request.application_url
    return site_options(session)["site.url"].rstrip("/")


def site_rest_url(session, namespace, path=""):
    """``rest_url`` for code that holds a session, in a request or not (webhook payloads)."""
    prefix = session.info["registry"].settings["storeplatform.rest_prefix"]
    return f"{site_url(session)}{prefix}/{namespace}{path}"
