"""Who is calling: the user and the method that proved it."""
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Identity:
    user: object
    method: str
    # For consumer keys: "read", "write" or "read_write"; None for the other methods.
    key_permissions: str | None = None
    # The id of the credential that proved it, where a method has one to tell (an application
    # password's: what WordPress's "introspect" answers); None otherwise.
    credential_id: int | None = None


@dataclass(frozen=True)
class UserRecord:
    """The columns of a user that requests read (``identity.user`` of the host's methods): a
    value, so that it can be kept per process between requests (by the ``auth`` generation)
    without ever being attached to a session."""
    id: int
    login: str
    email: str
    display_name: str
    role: str
    # The user's ``auth_version`` when the record was read: a JWT issued to this identity
    # carries it, and is refused once the stored version has moved on (accounts.py).
    auth_version: int = 0
    created_at: datetime | None = None
    # The other fields of the user a front end shows, as (name, value) pairs: whatever the
    # user's model gives as ``profile`` (the shop's: first_name, nickname ...), so that showing
    # the caller (``users/me``) reads nothing more.
    profile: tuple = ()
    # An identity is never of a disabled user (every way in refuses one).
    disabled = False

    @classmethod
    def of(cls, user):
        return cls(user.id, user.login, user.email, user.display_name, user.role, user.auth_version or 0,
                   user.created_at, tuple(getattr(user, "profile", ())))
