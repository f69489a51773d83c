"""Random tokens and their keyed hashes (fast: the tokens are random, not guessable words)."""
import hashlib
import hmac
import secrets
import string

ALPHANUMERIC = string.ascii_letters + string.digits


def random_token(length, alphabet=ALPHANUMERIC):
    return "".join(secrets.choice(alphabet) for _ in range(length))


def keyed_hash(secret, value, purpose):
    """HMAC-SHA256 of ``value`` under the site secret; ``purpose`` separates token kinds."""
    key = hashlib.sha256(f"{purpose}:{secret}".encode()).digest()
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()


def constant_time_equal(a, b):
    return hmac.compare_digest(str(a).encode(), str(b).encode())
