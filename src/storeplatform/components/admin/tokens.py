"""The admin's form token: what proves that an unsafe request comes from one of its own pages.

Logged in, it is the session's REST nonce (the keyed hash of the session token and a 12-hour
tick, 80 bits), so a page's script may also send it as ``X-Nonce`` to the REST API. Before
login, the login form carries the keyed hash of a random cookie of its own (double submit: a
cross-site form can neither read nor set that cookie)."""
from storeplatform.components.shop.credentials import SESSION_COOKIE, make_nonce, nonce_is_valid
from storeplatform.core.auth.tokens import constant_time_equal, keyed_hash, random_token

FIELD = "csrf_token"
HEADERS = ("X-CSRF-Token", "X-Nonce")
LOGIN_COOKIE = "storeplatform_admin_login"


def session_token(request):
    """The form token of the logged-in user's session."""
    return make_nonce(request, request.cookies.get(SESSION_COOKIE, ""))


def sent_token(request, form):
    for header in HEADERS:
        if request.headers.get(header):
            return request.headers[header]
    return form.get(FIELD, "")


def session_token_is_valid(request, token):
    session = request.cookies.get(SESSION_COOKIE, "")
    return bool(session and token) and nonce_is_valid(request, session, token)


def login_token(request):
    """The login form's token; sets the cookie it is derived from when there is none yet."""
    seed = request.cookies.get(LOGIN_COOKIE, "")
    if len(seed) != 32 or not seed.isalnum():
        seed = random_token(32)
        request.response.set_cookie(LOGIN_COOKIE, seed, httponly=True, samesite="Strict",
                                    secure=request.is_https, path="/")
    return _login_hash(request, seed)


def login_token_is_valid(request, token):
    seed = request.cookies.get(LOGIN_COOKIE, "")
    return bool(seed and token) and constant_time_equal(_login_hash(request, seed), token)


def _login_hash(request, seed):
    return keyed_hash(request.registry.settings["storeplatform.secret"], seed, "admin_login")[:20]
