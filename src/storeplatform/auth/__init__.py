"""Authentication and capabilities."""
from .capabilities import ROLES, require, role_capabilities, user_can
from .identity import Identity
from .methods import (
    ConsumerKeyCredentials,
    consumer_key_credentials,
    require_consumer_key_permission,
)
from .policy import SecurityPolicy


def includeme(config):
    config.set_security_policy(SecurityPolicy())
    config.registry["auth.role_capabilities"] = role_capabilities(config.registry["plugins"])


__all__ = ["ROLES", "ConsumerKeyCredentials", "Identity", "consumer_key_credentials", "require", "require_consumer_key_permission", "role_capabilities", "user_can"]
