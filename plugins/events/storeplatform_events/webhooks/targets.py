"""Where a webhook may be delivered: the URL rules checked at save, and the address check made
when connecting (every redirect hop included), so that DNS cannot be used to reach internal
services after the URL was accepted (SSRF)."""
import ipaddress
import socket
import time
from urllib.parse import urlsplit

from requests.adapters import HTTPAdapter
from requests.exceptions import ReadTimeout
from requests.structures import CaseInsensitiveDict
from requests_hardened.ip_filter import EXTRA_BLOCKED_NET_RANGES, InvalidIPAddress
from requests_hardened.ip_filter_adapter import IPFilterAdapter
from urllib3.util.connection import allowed_gai_family

from .connections import POOL_CLASSES

MAX_URL_LENGTH = 2000


class RefusedAddress(InvalidIPAddress):
    """The target resolves to an address deliveries must not reach (a requests error, so a
    refused hop is a failed delivery like a connection error)."""


def _plain(ip):
    # ::ffff:127.0.0.1 is the IPv4 loopback in IPv6 clothing; judge the IPv4 address.
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def address_refused(ip, trusted_networks=()):
    """True when ``ip`` is loopback, private, link-local, multicast, reserved, unspecified or
    in requests-hardened's extra blocked ranges (CG-NAT, NAT64, 6to4 ...), unless trusted."""
    ip = _plain(ipaddress.ip_address(ip))
    if any(ip in net for net in trusted_networks if net.version == ip.version):
        return False
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved
            or ip.is_unspecified or any(ip in net for net in EXTRA_BLOCKED_NET_RANGES if net.version == ip.version))


def url_problem(url, policy):
    """Why ``url`` cannot be a webhook URL (a message), or None. With private targets refused,
    every address the host name resolves to must be public."""
    if not url or len(url) > MAX_URL_LENGTH:
        return f"must be an http or https URL of at most {MAX_URL_LENGTH} characters"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http or https URL with a host name"
    if any(ch.isspace() for ch in url):
        return "must not contain white space"
    if policy.allow_private_targets:
        return None
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return f"host {parts.hostname} does not resolve"
    for info in infos:
        address = info[4][0].split("%", 1)[0]
        if address_refused(address, policy.trusted_networks):
            return f"resolves to {address}, a loopback, private or link-local address, which is not allowed"
    return None


def pinned_address(hostname, port, trusted_networks):
    """Resolve once, check the address and return it for the connection (so the address that
    was checked is the one connected to)."""
    try:
        infos = socket.getaddrinfo(hostname, port, family=allowed_gai_family(), type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise InvalidIPAddress(f"host {hostname} does not resolve") from exc
    address = infos[0][4][0].split("%", 1)[0]
    if address_refused(address, trusted_networks):
        raise RefusedAddress(f"{hostname} resolves to {address}, which deliveries may not reach")
    ip = _plain(ipaddress.ip_address(address))
    return f"[{ip}]" if ip.version == 6 else str(ip)


class DeadlineMixin:
    """One time-out for the whole delivery: each redirect hop gets only the time left; and the
    connections of ``connections`` (kept alive between deliveries, the callback before the
    first request is written)."""

    deadline = None

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = POOL_CLASSES

    def send(self, request, timeout=None, **kwargs):
        if self.deadline is not None:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise ReadTimeout("the delivery used up its time-out", request=request)
            timeout = remaining
        return super().send(request, timeout=timeout, **kwargs)


class DeadlineAdapter(DeadlineMixin, HTTPAdapter):
    pass


class PinnedAddressAdapter(DeadlineMixin, IPFilterAdapter):
    """requests-hardened's adapter (Host header, TLS SNI and certificate check against the
    host name while connecting to the pinned address) with our address rule and trusted
    networks instead of its fixed loopback switch."""

    def __init__(self, is_https_proto, trusted_networks=()):
        super().__init__(is_https_proto=is_https_proto, allow_loopback=False, tls_sni_support=True)
        self._trusted_networks = tuple(trusted_networks)

    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        host_params, pool_kwargs = HTTPAdapter.build_connection_pool_key_attributes(self, request, verify, cert)
        request.headers = CaseInsensitiveDict(request.headers or {})
        hostname = host_params["host"]
        port = host_params["port"]
        host_header = f"[{hostname}]" if ":" in hostname else hostname
        if port is not None:
            host_header += f":{port}"
        request.headers["Host"] = host_header
        if self._is_https_proto:
            pool_kwargs["assert_hostname"] = hostname
            pool_kwargs["server_hostname"] = hostname
        host_params["host"] = pinned_address(hostname, port or (443 if self._is_https_proto else 80),
                                             self._trusted_networks)
        return host_params, pool_kwargs
