"""Tables of the events plugin. Events, venues, organizers and speakers are host posts; their own fields
live here, one row per post (keyed by the post id), so that lists filter and sort in SQL."""
from collections import namedtuple

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storeplatform.api import Base, UTCDateTime, utcnow

EVENT_TYPE = "evt_event"
VENUE_TYPE = "evt_venue"
ORGANIZER_TYPE = "evt_organizer"
SPEAKER_TYPE = "evt_speaker"
CATEGORY_TAXONOMY = "evt_category"

EVENT_STATUSES = ("scheduled", "cancelled", "postponed", "sold-out")
EVENT_TYPES = ("in-person", "virtual", "hybrid")
ATTENDEE_STATUSES = ("active", "cancelled", "checked_in", "checked_out")


class EventDetails(Base):
    __tablename__ = "evt_events"
    __table_args__ = (
        Index("ix_evt_events_start", "start_date", "start_time"),
        Index("ix_evt_events_venue_start", "venue_id", "start_date"),
        Index("ix_evt_events_organizer_start", "organizer_id", "start_date"),
        Index("ix_evt_events_status_start", "event_status", "start_date"),
        {"info": {"generation": "content"}})

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    start_date = mapped_column(Date, nullable=False)
    start_time: Mapped[str] = mapped_column(String(5), default="00:00")
    end_date = mapped_column(Date, nullable=False)
    end_time: Mapped[str] = mapped_column(String(5), default="23:59")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    all_day: Mapped[bool] = mapped_column(Boolean, default=False)
    venue_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id", ondelete="SET NULL"), nullable=True)
    organizer_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id", ondelete="SET NULL"), nullable=True)
    capacity: Mapped[int] = mapped_column(Integer, default=0)
    event_status: Mapped[str] = mapped_column(String(20), default="scheduled")
    event_type: Mapped[str] = mapped_column(String(20), default="in-person")
    virtual_url: Mapped[str] = mapped_column(Text, default="")
    featured: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    featured_image = mapped_column(JSON, nullable=True)


class VenueDetails(Base):
    __tablename__ = "evt_venues"
    __table_args__ = {"info": {"generation": "content"}}

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    address: Mapped[str] = mapped_column(Text, default="")
    city: Mapped[str] = mapped_column(String(200), default="", index=True)
    state: Mapped[str] = mapped_column(String(200), default="")
    country: Mapped[str] = mapped_column(String(200), default="", index=True)
    postal: Mapped[str] = mapped_column(String(40), default="")
    capacity: Mapped[int] = mapped_column(Integer, default=0)
    phone: Mapped[str] = mapped_column(String(100), default="")
    email: Mapped[str] = mapped_column(String(200), default="")
    website: Mapped[str] = mapped_column(Text, default="")


class OrganizerDetails(Base):
    __tablename__ = "evt_organizers"
    __table_args__ = {"info": {"generation": "content"}}

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    phone: Mapped[str] = mapped_column(String(100), default="")
    email: Mapped[str] = mapped_column(String(200), default="")
    website: Mapped[str] = mapped_column(Text, default="")
    facebook: Mapped[str] = mapped_column(Text, default="")
    twitter: Mapped[str] = mapped_column(Text, default="")
    linkedin: Mapped[str] = mapped_column(Text, default="")


class SpeakerDetails(Base):
    """A speaker's own fields (the alternate variant's speakers route; name and bio are the post's
    title and content)."""

    __tablename__ = "evt_speakers"
    __table_args__ = {"info": {"generation": "content"}}

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    job_title: Mapped[str] = mapped_column(String(200), default="")
    company: Mapped[str] = mapped_column(String(200), default="")
    email: Mapped[str] = mapped_column(String(200), default="")
    website: Mapped[str] = mapped_column(Text, default="")
    photo: Mapped[str] = mapped_column(Text, default="")


# Bookkeeping of the plugin, not part of the attendee record hooks and webhooks see.
INTERNAL_COLUMNS = frozenset({"cancelled_by_order"})


class TicketType(Base):
    """What a product that is a ticket for an event (``meta.event_id``) adds to it: the places it
    sells (0: no limit of its own) and the window in which it is sold (either end open). Written
    from the product's ``meta`` whenever the shop saves it (ticket_types.py), so that REST and the
    admin make the same; read by the event's page (its ticket types, by event) and by the order
    that takes places (this row is locked while the places are counted)."""

    __tablename__ = "evt_ticket_types"
    __table_args__ = {"info": {"generation": "store"}}

    product_id: Mapped[int] = mapped_column(ForeignKey("products.id", ondelete="CASCADE"), primary_key=True)
    event_id: Mapped[int] = mapped_column(Integer, nullable=False, index=True)
    capacity: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    sales_start = mapped_column(UTCDateTime, nullable=True)
    sales_end = mapped_column(UTCDateTime, nullable=True)


# The attendees' columns the admin's lists sort by (each with an index of its own).
SORTED = ("last_name", "email", "status", "checked_in_at")


class Attendee(Base):
    """One ticket unit of a paid order. ``event_id`` and ``order_id`` carry no foreign key on
    purpose: deleting an event or an order must not erase the record of what was sold (its
    tickets are cancelled, and detached from a deleted order, instead)."""

    __tablename__ = "evt_attendees"
    __table_args__ = (
        UniqueConstraint("order_item_id", "ticket_index", name="uq_evt_attendees_item_ticket"),
        # The list's default order (newest first, the id breaking ties), of all attendees and of
        # one event's: a page is a walk of the index, from the nearer end.
        Index("ix_evt_attendees_event_created_id", "event_id", "created_at", "id"),
        Index("ix_evt_attendees_created_id", "created_at", "id"),
        # The admin's lists sorted by name (the last name), e-mail, status or check-in time, the
        # id breaking ties: of all attendees and of one event's (evt0013). An event's status and
        # check-in time indexes serve its lookups by those columns as well (evt0015).
        *(Index(f"ix_evt_attendees_{column}_id", column, "id") for column in SORTED),
        *(Index(f"ix_evt_attendees_event_{column}_id", "event_id", column, "id") for column in SORTED),
        # Attendees per status and per event and status, kept by the database: the list's totals.
        {"info": {"counts": (("status",), ("event_id", "status"))}},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(Integer, nullable=False)
    order_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    order_item_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ticket_index: Mapped[int] = mapped_column(Integer, default=0)
    user_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    first_name: Mapped[str] = mapped_column(String(200), default="")
    last_name: Mapped[str] = mapped_column(String(200), default="")
    email: Mapped[str] = mapped_column(String(200), default="")
    phone: Mapped[str] = mapped_column(String(100), default="")
    ticket_code: Mapped[str] = mapped_column(String(40), unique=True)
    status: Mapped[str] = mapped_column(String(20), default="active")
    # Cancelled because its order was cancelled or refunded (not on purpose): only such tickets
    # come back when the order is paid again.
    cancelled_by_order: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    checked_in_at = mapped_column(UTCDateTime, nullable=True)
    checked_out_at = mapped_column(UTCDateTime, nullable=True)
    custom_fields = mapped_column(JSON, nullable=False, default=dict)
    created_at = mapped_column(UTCDateTime, default=utcnow, nullable=False)
    modified_at = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow, nullable=False)


class AttendeeRecord(namedtuple("AttendeeRecord", [column.name for column in Attendee.__table__.columns])):
    """An attendee as the plugin reads it, the one shape its serializers take and its hooks are
    given (as ``as_dict()``): each column of the row as an attribute, in the table's order.

    Made from the row a statement returned (``of_row``: a list page, a lookup, the check-in's
    UPDATE ... RETURNING), without building the ORM's instance, which costs more than reading the
    row; the ORM model ``Attendee`` is for writes, and a write's result is read back with
    ``of``."""
    __slots__ = ()
    # What a statement selects to make records with ``of_row`` (more columns may follow).
    COLUMNS = tuple(Attendee.__table__.columns)

    @classmethod
    def of_row(cls, row):
        return cls._make(row[:len(cls._fields)])

    @classmethod
    def of(cls, attendee):
        """The record of an ``Attendee`` the session holds (after a change through the ORM)."""
        return cls._make(getattr(attendee, name) for name in cls._fields)

    def as_dict(self):
        """The plain values hooks receive as ``attendee``; the plugin's bookkeeping left out."""
        return {name: value for name, value in zip(self._fields, self) if name not in INTERNAL_COLUMNS}


class AttendeeSearch(Base):
    """The four texts an attendee search matches (first name, last name, e-mail, ticket code) as
    one lower-case text, each joined to the next by a space: one row per attendee, written by the
    database itself. Triggers on ``evt_attendees`` (migration evt0016) make it when an attendee is
    made and again when one of the four is written; deleting the attendee deletes it. On
    PostgreSQL a GIN trigram index of it gives a search its candidates
    (``attendee_list.text_holders``).

    A table of its own, not an index of the attendees: an UPDATE that changes an indexed column
    (a check-in's status and time) writes a new entry into every index of the row's table, and
    the trigram index's entry cost the check-in's UPDATE about a third of its time (#39)."""

    __tablename__ = "evt_attendee_search"
    __table_args__ = (
        Index("ix_evt_attendee_search_words", "words", postgresql_using="gin",
              postgresql_ops={"words": "gin_trgm_ops"}).ddl_if(dialect="postgresql"),
    )

    attendee_id: Mapped[int] = mapped_column(ForeignKey("evt_attendees.id", ondelete="CASCADE"), primary_key=True)
    words: Mapped[str] = mapped_column(Text, nullable=False)


class CheckinScan(Base):
    """A ticket of an order checked in or out, recorded by the very statement that moved it (on
    PostgreSQL in the same round trip: ``checkin.py``) and written into the order's history by a
    periodic task, then deleted (``checkin_history.py``): every scan reaches the history, with who
    and when, and the door pays no note, no order lookup and no lock of the order's notes."""

    __tablename__ = "evt_checkin_scans"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    attendee_id: Mapped[int] = mapped_column(Integer, nullable=False)
    order_id: Mapped[int] = mapped_column(Integer, nullable=False)
    action: Mapped[str] = mapped_column(String(20), nullable=False)  # checked_in or checked_out
    at = mapped_column(UTCDateTime, nullable=False)
    user_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    user_name: Mapped[str | None] = mapped_column(String(250), nullable=True)  # None: nobody (the CLI, a task)
