"""The nonces seen per consumer key, until their timestamps leave the window."""
from sqlalchemy import BigInteger, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storeplatform.api import Base


class OAuthNonce(Base):
    __tablename__ = "oauth_nonces"
    # The constraint is the replay check: of two requests with one nonce, whichever process
    # they reach, one insert wins.
    __table_args__ = (UniqueConstraint("consumer_key_id", "nonce_hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    consumer_key_id: Mapped[int] = mapped_column(ForeignKey("consumer_keys.id", ondelete="CASCADE"))
    # SHA-256 of the nonce: any length and any character fits, NULs included.
    nonce_hash: Mapped[str] = mapped_column(String(64))
    # Unix time after which the request's timestamp is stale, so the nonce can be forgotten.
    expires_at: Mapped[int] = mapped_column(BigInteger, index=True)
