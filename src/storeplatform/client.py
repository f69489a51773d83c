"""Where a request comes from: the client's address and scheme, believing ``X-Forwarded-*``
headers only from the addresses in ``storeplatform.trusted_proxies``."""


def _trusted(request):
    return request.registry.settings["storeplatform.parsed"]["trusted_proxies"]


def client_address(request):
    """The caller's address; behind a trusted proxy, the last X-Forwarded-For hop that is
    not itself a trusted proxy (the earlier hops are whatever the client wrote)."""
    trusted = _trusted(request)
    address = request.remote_addr or "unknown"
    if address in trusted:
        hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",") if h.strip()]
        while hops and hops[-1] in trusted:
            hops.pop()
        if hops:
            address = hops[-1]
    return address[:64]


def request_is_https(request):
    if request.remote_addr in _trusted(request):
        forwarded = request.headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
        if forwarded:
            return forwarded == "https"
    return request.scheme == "https"
