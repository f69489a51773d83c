"""Authentication and capabilities."""
from .capabilities import ROLES, require, role_capabilities, user_can
from .identity import Identity
from .policy import SecurityPolicy


def includeme(config):
    config.set_security_policy(SecurityPolicy())
    config.registry["auth.role_capabilities"] = role_capabilities(config.registry["plugins"])


__all__ = ["Identity", "ROLES", "require", "user_can", "role_capabilities"]
