"""Consumer secrets at rest: AES-GCM under a key derived with HKDF-SHA256 from
``storeplatform.secret``.

Basic authentication compares a keyed hash of the secret; a signature method (an HMAC over the
request, such as OAuth 1.0a's) needs the secret itself, so it is kept sealed beside the hash.
The row's key hash is the associated data: a sealed secret copied onto another key's row does
not open.
"""
import base64
import binascii
import functools
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

VERSION = "v1"


@functools.lru_cache(maxsize=4)
def _cipher(site_secret):
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
               info=b"storeplatform consumer secrets v1").derive(site_secret.encode())
    return AESGCM(key)


def seal(site_secret, key_hash, consumer_secret):
    nonce = os.urandom(12)
    box = _cipher(site_secret).encrypt(nonce, consumer_secret.encode(), key_hash.encode())
    return f"{VERSION}:" + base64.urlsafe_b64encode(nonce + box).decode()


def unseal(site_secret, key_hash, sealed):
    """The consumer secret, or None when ``sealed`` does not open (another site secret, an
    altered row)."""
    version, _, text = sealed.partition(":")
    if version != VERSION:
        return None
    try:
        raw = base64.urlsafe_b64decode(text.encode())
        return _cipher(site_secret).decrypt(raw[:12], raw[12:], key_hash.encode()).decode()
    except (binascii.Error, ValueError, InvalidTag):
        return None
