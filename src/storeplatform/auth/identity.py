"""Who is calling: the user and the method that proved it."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    user: object
    method: str
    # For consumer keys: "read", "write" or "read_write"; None for the other methods.
    key_permissions: str | None = None
