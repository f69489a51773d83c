"""Where a request comes from: the client's address and scheme, believing ``X-Forwarded-*``
headers only from the proxies in ``storeplatform.trusted_proxies`` (addresses or networks)."""
import ipaddress

from .errors import INVALID_URL


def parse_trusted_proxies(text):
    """Addresses and networks (``10.0.0.5``, ``10.0.0.0/8``, ``::1``), space or comma separated;
    ValueError naming a bad one."""
    networks = []
    for item in text.replace(",", " ").split():
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"storeplatform.trusted_proxies: {item!r} is not an IP address or network")
    return tuple(networks)


def is_trusted(request, address):
    networks = request.registry.settings["storeplatform.parsed"]["trusted_proxies"]
    if not networks or not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(request):
    """The caller's address; behind a trusted proxy, the right-most X-Forwarded-For hop that is
    not itself a trusted proxy (the hops left of it are whatever the client wrote)."""
    address = request.remote_addr or "unknown"
    if is_trusted(request, address):
        hops = [h.strip() for h in request.environ.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
        while hops and is_trusted(request, hops[-1]):
            hops.pop()
        if hops:
            address = hops[-1]
    return address[:64]


def ingress_tween_factory(handler, registry):
    """Before anything reads the request: a path or a query string that is not UTF-8 is refused
    on every page with ``rest_invalid_url`` (the admin's error views make it their 400 page; a
    view, the router or a route predicate reading it would fail), and behind a trusted proxy the
    request's scheme is the one the client used (``X-Forwarded-Proto``), so that HTTPS-only
    checks and every URL the site writes agree."""

    def ingress_tween(request):
        try:
            request.GET
        except UnicodeDecodeError:
            raise INVALID_URL("The query string is not valid UTF-8.")
        try:
            request.path_info
        except UnicodeDecodeError:
            raise INVALID_URL("The path is not valid UTF-8.")
        proto = request.environ.get("HTTP_X_FORWARDED_PROTO")
        if proto and is_trusted(request, request.remote_addr):
            proto = proto.split(",")[0].strip().lower()
            if proto in ("http", "https"):
                request.scheme = proto
        return handler(request)

    return ingress_tween


def request_is_https(request):
    return request.scheme == "https"
