"""Pyramid security policy: identity from the authentication hook, permissions are capabilities."""
from pyramid.request import RequestLocalCache

from .capabilities import user_can


class SecurityPolicy:
    def __init__(self):
        # request.identity is a plain property in Pyramid: compute it once per request.
        self._cache = RequestLocalCache(self._load_identity)

    def _load_identity(self, request):
        return request.registry["plugins"].hook.storeplatform_authenticate(request=request)

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
