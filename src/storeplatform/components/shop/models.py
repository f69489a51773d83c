"""Tables of the shop: users and credentials, content, products, orders (the kernel's own, options
and login throttling, are in ``storeplatform.core.models``)."""
from uuid import uuid4

from sqlalchemy import JSON, Boolean, false, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from storeplatform.core.db import counts  # noqa: F401  (list_counts, on the shared metadata)
from storeplatform.core.db.meta import Base
from storeplatform.core.db.types import Money, UTCDateTime, utcnow


# The unique indexes of logins and e-mail addresses, any case (sp0018), and their expressions.
UNIQUE_LOGIN_INDEX, UNIQUE_EMAIL_INDEX = "ux_users_login_lower", "ux_users_email_lower"


PROFILE_COLUMNS = ("first_name", "last_name", "nickname", "url", "description", "locale")


class User(Base):
    __tablename__ = "users"
    # Users per role kept by the database (db/counts.py): the admin's customers list's total.
    # The admin's users list sorted by name or by date joined (accounts.ORDERBY; the login is unique).
    __table_args__ = (Index("ix_users_role_id", "role", "id"), Index("ix_users_display_name_id", "display_name", "id"),
                      Index("ix_users_created_id", "created_at", "id"),
                      # Logins and e-mail addresses are unique whatever their case (#43, sp0018): a
                      # login (or its ``slug``) and an e-mail address are found by these. Declared as
                      # alembic compares PostgreSQL's (its casts left out); SQLite's (the same SQL,
                      # sp0018) cannot be reflected, so are not compared. On a database whose users
                      # had duplicates when sp0018 ran they wait for ``user duplicates --fix``.
                      Index(UNIQUE_LOGIN_INDEX, text("lower(login)"), unique=True).ddl_if(dialect="postgresql"),
                      Index(UNIQUE_EMAIL_INDEX, text("lower(email)"), unique=True,
                            postgresql_where=text("((email)::text <> ''::text)")).ddl_if(dialect="postgresql"),
                      {"info": {"generation": "auth", "counts": (("role",),)}})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    login: Mapped[str] = mapped_column(String(60), unique=True)
    email: Mapped[str] = mapped_column(String(200), default="")
    display_name: Mapped[str] = mapped_column(String(250), default="")
    role: Mapped[str] = mapped_column(String(40))
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    # A disabled user's credentials are refused everywhere until enabled again.
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false(), nullable=False)
    # Raised whenever every session and token issued before must end (password or role change,
    # disabling, "end sessions"): a JWT carries the version it was issued under.
    auth_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0", nullable=False)
    # The profile WordPress's users carry (#43); "" when not given. ``locale`` "": the site's.
    first_name: Mapped[str] = mapped_column(String(250), default="", server_default="", nullable=False)
    last_name: Mapped[str] = mapped_column(String(250), default="", server_default="", nullable=False)
    nickname: Mapped[str] = mapped_column(String(250), default="", server_default="", nullable=False)
    url: Mapped[str] = mapped_column(String(200), default="", server_default="", nullable=False)
    description: Mapped[str] = mapped_column(Text, default="", server_default="", nullable=False)
    locale: Mapped[str] = mapped_column(String(20), default="", server_default="", nullable=False)

    @property
    def profile(self):
        """(name, value) of each profile field: what an identity's record keeps of them."""
        return tuple((name, getattr(self, name)) for name in PROFILE_COLUMNS)


class AppPassword(Base):
    __tablename__ = "app_passwords"
    # Its use (last_used_at, last_ip: written at most once a day) moves no generation: what is
    # kept of a password (an identity) reads none of it, and nobody's identity is read again.
    __table_args__ = (Index("ux_app_passwords_uuid", "uuid", unique=True),
                      {"info": {"generation": "auth", "generation_columns": (
                          "id", "user_id", "name", "token_hash", "created_at", "uuid", "app_id")}})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    # When and from where the password was last used: written at most once a day (credentials.py).
    last_used_at = mapped_column(UTCDateTime, nullable=True)
    last_ip: Mapped[str | None] = mapped_column(String(45), nullable=True)
    # WordPress's names for it (#43): a random UUID (filled for older rows by sp0018; never NULL
    # once written) and the UUID of the application it was made for ("" when none was said).
    uuid: Mapped[str | None] = mapped_column(String(36), default=lambda: str(uuid4()), nullable=True)
    app_id: Mapped[str] = mapped_column(String(36), default="", server_default="", nullable=False)

    user = relationship(User, lazy="joined")


class ConsumerKey(Base):
    __tablename__ = "consumer_keys"
    __table_args__ = {"info": {"generation": "auth"}}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    description: Mapped[str] = mapped_column(String(200), default="")
    permissions: Mapped[str] = mapped_column(String(10))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    secret_hash: Mapped[str] = mapped_column(String(64))
    # The secret itself, sealed (auth/sealed.py), for signature methods; None for keys issued
    # before it was kept (migration sp0006): those work with Basic only.
    secret_sealed: Mapped[str | None] = mapped_column(String(200), nullable=True)
    truncated_key: Mapped[str] = mapped_column(String(7))
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)

    user = relationship(User, lazy="joined")


class AuthSession(Base):
    """A cookie login; the cookie holds a random token, the table its keyed hash."""

    __tablename__ = "auth_sessions"
    __table_args__ = {"info": {"generation": "auth"}}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at = mapped_column(UTCDateTime, nullable=False)

    user = relationship(User, lazy="joined")


class PasswordResetKey(Base):
    """A link's key to set a user's password (a lost password, a new account's first): the mail
    holds the random key, the table its keyed hash. One per user (a new request replaces it);
    used once; good until ``expires_at`` and while the user's ``auth_version`` is the one it was
    issued under (a password or role change, disabling or "end sessions" raise it). No
    generation: nothing kept reads it."""

    __tablename__ = "password_reset_keys"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    purpose: Mapped[str] = mapped_column(String(20))  # lost_password or welcome
    auth_version: Mapped[int] = mapped_column(Integer, nullable=False)
    expires_at = mapped_column(UTCDateTime, nullable=False)


class Post(Base):
    """The content base: plugins keep their own fields in tables keyed by post id."""

    __tablename__ = "posts"
    __table_args__ = (
        # A list of a type and status in each of its orders is a walk of one of these (the id
        # is every list's tie-break): a page reads a page of it, from the nearer end (#30).
        Index("ix_posts_type_status_created_id", "post_type", "status", "created_at", "id"),
        Index("ix_posts_type_status_modified_id", "post_type", "status", "modified_at", "id"),
        Index("ix_posts_type_status_id", "post_type", "status", "id"),
        Index("ix_posts_type_slug", "post_type", "slug"),
        # A list of a type sorted by title: its first 200 characters (an index entry cannot hold
        # any title), the id breaking ties (the events plugin's ``event_list.TITLE_KEY``).
        Index("ix_posts_type_title_id", "post_type", text("substr(title, 1, 200)"), "id"),
        # Case-insensitive substring search: trigram indexes on PostgreSQL; SQLite has none (an
        # empty partial index there, so that both backends have what the models declare).
        *(Index(f"ix_posts_{column}_trgm", column, postgresql_using="gin",
                postgresql_ops={column: "gin_trgm_ops"}, sqlite_where=text("0"))
          for column in ("title", "content", "excerpt")),
        # Posts per type and status, kept by the database (db/counts.py): a list's total is a lookup.
        {"info": {"generation": "content", "counts": (("post_type", "status"),)}})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    post_type: Mapped[str] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(Text, default="")
    slug: Mapped[str] = mapped_column(String(200), default="")
    content: Mapped[str] = mapped_column(Text, default="")
    excerpt: Mapped[str] = mapped_column(Text, default="")
    author_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    status: Mapped[str] = mapped_column(String(20), default="publish")
    # The status a trashed post had, so that restoring it is possible.
    trashed_status: Mapped[str | None] = mapped_column(String(20), nullable=True)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    modified_at = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow, nullable=False)

    terms = relationship("Term", secondary="post_terms", lazy="selectin", order_by="Term.id")


class Term(Base):
    __tablename__ = "terms"
    __table_args__ = (UniqueConstraint("taxonomy", "slug"), {"info": {"generation": "content"}})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    taxonomy: Mapped[str] = mapped_column(String(40), index=True)
    name: Mapped[str] = mapped_column(String(200))
    slug: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    color: Mapped[str] = mapped_column(String(20), default="")


class PostTerm(Base):
    __tablename__ = "post_terms"
    __table_args__ = {"info": {"generation": "content"}}

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    term_id: Mapped[int] = mapped_column(ForeignKey("terms.id", ondelete="CASCADE"), primary_key=True, index=True)


class Product(Base):
    __tablename__ = "products"
    # Products per status kept by the database (db/counts.py): the admin list's total is a lookup.
    __table_args__ = (Index("ix_products_status_id", "status", "id"),
                      # The admin's list sorted by name or price (products.ORDERBY).
                      Index("ix_products_name_id", "name", "id"), Index("ix_products_price_id", "regular_price", "id"),
                      {"info": {"generation": "store", "counts": (("status",),)}})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(250))
    sku: Mapped[str | None] = mapped_column(String(100), unique=True, nullable=True)
    type: Mapped[str] = mapped_column(String(20), default="simple")
    status: Mapped[str] = mapped_column(String(20), default="publish")
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), nullable=True, index=True)
    regular_price = mapped_column(Money, nullable=True)
    sale_price = mapped_column(Money, nullable=True)
    sale_from = mapped_column(UTCDateTime, nullable=True)
    sale_to = mapped_column(UTCDateTime, nullable=True)
    meta = mapped_column(JSON, nullable=False, default=dict)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    modified_at = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow, nullable=False)


# The billing name and e-mail address of an order as one lower-case text (JSON's ->> on both
# backends), indexed for the admin's search; written as PostgreSQL reads it back (its grouping
# parentheses), so that comparing the migrated database with the models finds the same index.
ORDER_BILLING_TEXT = ("lower((((COALESCE(billing ->> 'first_name', '') || ' ') || COALESCE(billing ->> 'last_name', ''))"
                      " || ' ') || COALESCE(billing ->> 'email', ''))")


# A guest buyer's key: the billing e-mail address of an order without an account, lower-cased and
# trimmed (the index ix_orders_guest_email is of this very expression).
ORDER_GUEST_EMAIL = "lower(trim(billing ->> 'email'))"


class Order(Base):
    __tablename__ = "orders"
    __table_args__ = (Index("ix_orders_status_id", "status", "id"),
                      # Orders of a range of days (the dashboard's sales per day): a walk of the index.
                      Index("ix_orders_created_id", "created_at", "id"),
                      # The admin's list sorted by total (orders.ORDERBY).
                      Index("ix_orders_total_id", "total", "id"),
                      # A page of customers' order counts and totals: their orders, not every order.
                      Index("ix_orders_customer_id", "customer_id"),
                      # The admin's search of billing names and addresses (admin/orders.py): a GIN
                      # trigram index of that expression on PostgreSQL only (SQLite can reflect no
                      # expression index: it would warn at every migration that rebuilds orders).
                      Index("ix_orders_billing_trgm", text(ORDER_BILLING_TEXT),
                            postgresql_using="gin").ddl_if(dialect="postgresql"),
                      # A guest buyer (no account) is their billing e-mail address, lower-cased and
                      # trimmed (shop/customers.py): the orders by that expression (not partial:
                      # PostgreSQL estimates with no partial index's statistics; migration sp0015).
                      # Declared as PostgreSQL reads it back; SQLite's (the same index of
                      # ORDER_GUEST_EMAIL) cannot be reflected, so is not compared.
                      Index("ix_orders_guest_email", text("lower(TRIM(BOTH FROM billing ->> 'email'))"))
                      .ddl_if(dialect="postgresql"),
                      {"info": {"generation": "store", "counts": (("status",),)}})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    order_key: Mapped[str] = mapped_column(String(64), unique=True)
    currency: Mapped[str] = mapped_column(String(3))
    billing = mapped_column(JSON, nullable=False, default=dict)
    customer_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    total = mapped_column(Money, nullable=False)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    modified_at = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow, nullable=False)

    line_items = relationship("OrderItem", lazy="selectin", order_by="OrderItem.id",
                              cascade="all, delete-orphan", back_populates="order")

    @property
    def number(self):
        return str(self.id)


class OrderItem(Base):
    __tablename__ = "order_items"
    __table_args__ = {"info": {"generation": "store"}}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id", ondelete="CASCADE"), index=True)
    product_id: Mapped[int | None] = mapped_column(ForeignKey("products.id", ondelete="SET NULL"), nullable=True, index=True)
    name: Mapped[str] = mapped_column(String(250))
    quantity: Mapped[int] = mapped_column(Integer)
    unit_price = mapped_column(Money, nullable=False)
    total = mapped_column(Money, nullable=False)

    order = relationship(Order, back_populates="line_items")


class OrderNote(Base):
    """A line of an order's history: written by the store as things happen (a status change, a
    refund, a plugin's document) or by a person (the admin's note form, REST). ``author`` is the
    name of who acted as it was then ("system" when nobody did: a task, the CLI), kept as text
    so that the history reads the same after the user is renamed or deleted. Its own generation:
    a note (a document made, a person's remark) leaves what the shop keeps (products, orders,
    documents) kept; what reads notes is keyed by both."""

    __tablename__ = "order_notes"
    __table_args__ = {"info": {"generation": "order_notes"}}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id", ondelete="CASCADE"), index=True)
    note: Mapped[str] = mapped_column(Text)
    # True: meant for the customer to read; False: private to the staff.
    customer_note: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    # True: typed by a person; False: written by the store as something happened.
    added_by_user: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    author_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    author: Mapped[str] = mapped_column(String(250))
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)


class Refund(Base):
    """Money given back on an order, with what was given back of each line (``line_items``)."""

    __tablename__ = "order_refunds"
    __table_args__ = {"info": {"generation": "store"}}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id", ondelete="CASCADE"), index=True)
    amount = mapped_column(Money, nullable=False)
    reason: Mapped[str] = mapped_column(Text, default="")
    refunded_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)

    line_items = relationship("RefundLine", lazy="selectin", order_by="RefundLine.id", cascade="all, delete-orphan",
                              back_populates="refund")


class RefundLine(Base):
    """What a refund gave back of one line of the order: units (``quantity``, 0 for money alone)
    and money (``refund_total``, 0 for units alone)."""

    __tablename__ = "order_refund_lines"
    __table_args__ = {"info": {"generation": "store"}}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    refund_id: Mapped[int] = mapped_column(ForeignKey("order_refunds.id", ondelete="CASCADE"), index=True)
    order_item_id: Mapped[int] = mapped_column(ForeignKey("order_items.id", ondelete="CASCADE"), index=True)
    quantity: Mapped[int] = mapped_column(Integer, default=0)
    refund_total = mapped_column(Money, nullable=False)

    refund = relationship(Refund, back_populates="line_items")
