"""Authentication mechanics and capabilities: the security policy runs the authentication methods
that components and plugins implement (``storeplatform_authenticate``; the shop's credentials are
one), and maps permissions to the capabilities of the caller's role."""
from .capabilities import ROLES, require, role_capabilities, user_can
from .identity import Identity
from .policy import SecurityPolicy


def includeme(config):
    config.set_security_policy(SecurityPolicy())
    config.registry["auth.role_capabilities"] = role_capabilities(config.registry["plugins"])


__all__ = ["ROLES", "Identity", "require", "role_capabilities", "user_can"]
