"""The OAuth parameters of a request and the parameters it signed (RFC 5849 section 3.4.1.3),
read with oauthlib: the query string, an ``Authorization: OAuth`` header and a form body."""
from oauthlib.common import urldecode
from oauthlib.oauth1.rfc5849.signature import collect_parameters

from .errors import INVALID_PARAMETER

FORM_TYPE = "application/x-www-form-urlencoded"
# The host refuses larger bodies; a form this large is not read here either.
MAX_FORM_BYTES = 2 * 1024 * 1024


def oauth_header(request):
    """The ``Authorization`` header when its scheme is OAuth, else None."""
    header = request.environ.get("HTTP_AUTHORIZATION", "")
    scheme, _, _ = header.partition(" ")
    return header if scheme.lower() == "oauth" else None


def form_text(request):
    """The body of a flat form (signed parameters), else the empty string (a JSON body is not
    part of an OAuth signature)."""
    if request.content_type != FORM_TYPE or not request.body or len(request.body) > MAX_FORM_BYTES:
        return ""
    try:
        return request.body.decode("utf-8")
    except UnicodeDecodeError:
        raise INVALID_PARAMETER("The form body is not valid UTF-8.")


def carries_oauth(request):
    """Whether the request is an OAuth request: an OAuth Authorization header, or (with no other
    Authorization header) ``oauth_*`` parameters in the query string or a form body."""
    if oauth_header(request) is not None:
        return True
    if request.environ.get("HTTP_AUTHORIZATION"):
        return False  # Basic or Bearer: the host's methods answer
    if any(name.startswith("oauth_") for name in request.GET):
        return True
    return request.content_type == FORM_TYPE and b"oauth_" in request.body[:MAX_FORM_BYTES]


def signed_parameters(request):
    """Every parameter of the request as (name, value) pairs, ``oauth_signature`` included, in
    the order sent."""
    header = oauth_header(request)
    if header is not None and not header[len("OAuth"):].strip():
        header = None  # "OAuth" alone: no parameters (each is then missing)
    try:
        return collect_parameters(
            uri_query=request.query_string, body=urldecode(form_text(request)),
            headers={"Authorization": header} if header else None, exclude_oauth_signature=False)
    except ValueError:  # characters URL-encoded text may not hold, a broken header
        raise INVALID_PARAMETER("The query string, form body or OAuth header is not properly URL-encoded.")
