"""Random tokens and their keyed hashes (fast: the tokens are random, not guessable words)."""
import functools
import hashlib
import hmac
import secrets
import string

ALPHANUMERIC = string.ascii_letters + string.digits


def random_token(length, alphabet=ALPHANUMERIC):
    return "".join(secrets.choice(alphabet) for _ in range(length))


def keyed_hash(secret, value, purpose):
    """HMAC-SHA256 of ``value`` under the site secret; ``purpose`` separates token kinds."""
    return hmac.digest(_purpose_key(secret, purpose), value.encode(), "sha256").hex()


@functools.lru_cache(maxsize=64)
def _purpose_key(secret, purpose):
    # Derived once per (secret, purpose): nearly every authenticated request hashes a credential.
    return hashlib.sha256(f"{purpose}:{secret}".encode()).digest()


def constant_time_equal(a, b):
    return hmac.compare_digest(str(a).encode(), str(b).encode())
