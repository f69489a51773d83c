"""Pyramid security policy: identity from the authentication hooks, permissions are capabilities."""
from pyramid.request import RequestLocalCache

from ..logs import user_var
from .capabilities import user_can


class SecurityPolicy:
    def __init__(self):
        # request.identity is a plain property in Pyramid: compute it once per request.
        self._cache = RequestLocalCache(self._load_identity)

    def _load_identity(self, request):
        hook = request.registry["plugins"].hook
        if getattr(request, "is_admin", False):
            # The admin's pages know one credential, the cookie session, and no other: a browser
            # sends Basic credentials on its own, and a page must not act on them. Its forms
            # carry the token that the admin checks on every unsafe method.
            identity = hook.storeplatform_page_identity(request=request)
        else:
            identity = hook.storeplatform_authenticate(request=request)
        if identity is not None:
            # Every log record made from here on in the request names its user (logs.py).
            user_var.set(getattr(identity.user, "login", None) or str(getattr(identity.user, "id", "?")))
        return identity

    def identity(self, request):
        return self._cache.get_or_create(request)

    def authenticated_userid(self, request):
        identity = request.identity
        return identity.user.id if identity else None

    def permits(self, request, context, permission):
        return user_can(request, permission, context if hasattr(context, "author_id") else None)

    def remember(self, request, userid, **kw):
        return []

    def forget(self, request, **kw):
        return []
