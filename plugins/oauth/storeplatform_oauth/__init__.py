"""One-legged OAuth 1.0a (RFC 5849) with the site's consumer keys: an authentication method
through the ``storeplatform_authenticate`` hook (docs/oauth.md)."""
