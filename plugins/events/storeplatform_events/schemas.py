"""Colander schemas of the events namespace: they validate requests and feed the schema index.
The generic types (dates, times, ids, URLs) are the host's; the ones here are the events' own."""
import colander

from storeplatform.api import (COLUMN_INT, POSITIVE_ID, POST_STATUSES, DateText, IdList, OptionalId,
                               PaginationSchema, RowId, StrictBoolean, StrictInt, StrictString, TimeText, bound_check,
                               is_url, not_blank, url_or_empty, valid_email, valid_timezone)

from .models import ATTENDEE_STATUSES, EVENT_STATUSES, EVENT_TYPES
from .tickets import typed_code

# A body may set any host post status but the trash (DELETE trashes).
WRITABLE_STATUSES = tuple(status for status in POST_STATUSES if status != "trash")


class EmbedFlag(StrictBoolean):
    """``_embed`` as in a classic CMS: present without a value means true."""

    def deserialize(self, node, cstruct):
        if cstruct == "":
            return True
        return super().deserialize(node, cstruct)


class FeaturedImage(colander.SchemaType):
    """The featured image as an object (id, url, thumbnail, alt), or null for none."""

    KEYS = {"id": int, "url": str, "thumbnail": str, "alt": str}

    def serialize(self, node, appstruct):
        return appstruct

    def deserialize(self, node, cstruct):
        if cstruct is colander.null:
            return colander.null
        if cstruct is None:
            return None
        if not isinstance(cstruct, dict):
            raise colander.Invalid(node, "must be an object with id, url, thumbnail, alt, or null")
        unknown = set(cstruct) - set(self.KEYS)
        if unknown:
            raise colander.Invalid(node, f"unknown key(s): {', '.join(sorted(unknown))}")
        image = {"id": 0, "url": "", "thumbnail": "", "alt": ""}
        for key, value in cstruct.items():
            kind = self.KEYS[key]
            if isinstance(value, bool) or not isinstance(value, kind):
                raise colander.Invalid(node, f"{key} must be {'an integer' if kind is int else 'a string'}")
            image[key] = value
        if image["url"] and not is_url(image["url"]):
            raise colander.Invalid(node, "url must be an http(s) URL")
        if image["thumbnail"] and not is_url(image["thumbnail"]):
            raise colander.Invalid(node, "thumbnail must be an http(s) URL")
        return image


def text_field(name, description="", max_length=None, **kw):
    """An optional text field; ``max_length`` for the columns of bounded width."""
    validator = kw.pop("validator", None)
    if max_length is not None:
        length = colander.Length(max=max_length)
        validator = colander.All(length, validator) if validator else length
    return colander.SchemaNode(StrictString(), name=name, missing=kw.pop("missing", colander.drop),
                               description=description, validator=validator, **kw)


# A venue, organizer or category that exists (``references``); an event that does not end before
# it starts, stored dates included on a partial update (``date_order``).
known_reference = bound_check("references")
in_date_order = bound_check("date_order")
DATE_TYPES = {"start_date": DateText, "start_time": TimeText, "end_date": DateText, "end_time": TimeText}


def typed_dates(raw):
    """The date and time fields of a raw event body as the schema reads them; None when one of
    them is not valid (the schema reports it; the date order cannot be judged)."""
    values = {}
    for field, kind in DATE_TYPES.items():
        if field in raw:
            try:
                value = kind().deserialize(None, raw[field])
            except colander.Invalid:
                return None
            if value is not colander.null:
                values[field] = value
    return values


class CategoryIds(colander.SequenceSchema):
    category = colander.SchemaNode(RowId("categories"), validator=POSITIVE_ID)


# --- bodies -------------------------------------------------------------------------------

class EventBody(colander.MappingSchema):
    title = colander.SchemaNode(StrictString(), validator=not_blank, description="Event title.")
    slug = text_field("slug", "URL slug; made from the title when empty.")
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(WRITABLE_STATUSES),
                                 description="Post status (publish by default on create).")
    content = text_field("content", "Description, HTML allowed.")
    excerpt = text_field("excerpt", "Short description.")
    featured_image = colander.SchemaNode(FeaturedImage(), missing=colander.drop,
                                         description="Object with id, url, thumbnail, alt; null for none.")
    start_date = colander.SchemaNode(DateText(), missing=colander.drop, validator=in_date_order,
                                     description="YYYY-MM-DD (default today).")
    start_time = colander.SchemaNode(TimeText(), missing=colander.drop, validator=in_date_order,
                                     description="HH:MM (default 00:00).")
    end_date = colander.SchemaNode(DateText(), missing=colander.drop, validator=in_date_order,
                                   description="YYYY-MM-DD (default start_date).")
    end_time = colander.SchemaNode(TimeText(), missing=colander.drop, validator=in_date_order,
                                   description="HH:MM (default 23:59).")
    timezone = text_field("timezone", "Time zone name (default the site's).", max_length=64,
                          validator=valid_timezone)
    all_day = colander.SchemaNode(StrictBoolean(), missing=colander.drop)
    venue_id = colander.SchemaNode(OptionalId("venues"), missing=colander.drop, validator=known_reference,
                                   description="Venue id; 0 or null for none.")
    organizer_id = colander.SchemaNode(OptionalId("organizers"), missing=colander.drop, validator=known_reference,
                                       description="Organizer id; 0 or null for none.")
    capacity = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=COLUMN_INT,
                                   description="Maximum attendees (0: not set).")
    event_status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(EVENT_STATUSES))
    event_type = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(EVENT_TYPES))
    virtual_url = text_field("virtual_url", "URL of a virtual event.", validator=url_or_empty)
    featured = colander.SchemaNode(StrictBoolean(), missing=colander.drop)
    categories = CategoryIds(missing=colander.drop, validator=known_reference, description="Category term ids.")


class VenueBody(colander.MappingSchema):
    name = colander.SchemaNode(StrictString(), validator=not_blank, description="Venue name.")
    address = text_field("address")
    city = text_field("city", max_length=200)
    state = text_field("state", max_length=200)
    country = text_field("country", max_length=200)
    postal = text_field("postal", max_length=40)
    capacity = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=COLUMN_INT)
    phone = text_field("phone", max_length=100)
    email = text_field("email", max_length=200, validator=valid_email)
    website = text_field("website", validator=url_or_empty)


class OrganizerBody(colander.MappingSchema):
    name = colander.SchemaNode(StrictString(), validator=not_blank, description="Organizer name.")
    phone = text_field("phone", max_length=100)
    email = text_field("email", max_length=200, validator=valid_email)
    website = text_field("website", validator=url_or_empty)
    facebook = text_field("facebook", validator=url_or_empty)
    twitter = text_field("twitter")
    linkedin = text_field("linkedin", validator=url_or_empty)


class AttendeeUpdate(colander.MappingSchema):
    first_name = text_field("first_name", max_length=200)
    last_name = text_field("last_name", max_length=200)
    email = text_field("email", max_length=200, validator=valid_email)
    phone = text_field("phone", max_length=100)
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(ATTENDEE_STATUSES))


class DeleteQuery(colander.MappingSchema):
    force = colander.SchemaNode(StrictBoolean(), missing=False, description="Delete for good instead of trashing.")


class EmbedQuery(colander.MappingSchema):
    _embed = colander.SchemaNode(EmbedFlag(), missing=False, description="Add the venue and organizer objects.")


# --- list queries ---------------------------------------------------------------------------

def _upper(value):
    return value.upper() if isinstance(value, str) else value


def _order(default):
    return colander.SchemaNode(StrictString(), name="order", missing=default, preparer=_upper,
                               validator=colander.OneOf(("ASC", "DESC")), description=f"ASC or DESC (default {default}).")


def _orderby(choices, default):
    return colander.SchemaNode(StrictString(), name="orderby", missing=default, validator=colander.OneOf(choices),
                               description=f"Sort field (default {default}).")


class EventListQuery(PaginationSchema):
    search = text_field("search", "Matches title, content and excerpt.")
    orderby = _orderby(("date", "title", "modified", "id", "meta_value"), "date")
    order = _order("DESC")
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(EVENT_STATUSES),
                                 description="Event status.")
    category = text_field("category", "Category id or slug.")
    venue = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=colander.Range(min=1))
    organizer = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=colander.Range(min=1))
    start_after = colander.SchemaNode(DateText(), missing=colander.drop, description="Starting on or after (YYYY-MM-DD).")
    start_before = colander.SchemaNode(DateText(), missing=colander.drop,
                                       description="Starting on or before (YYYY-MM-DD).")
    upcoming = colander.SchemaNode(StrictBoolean(), missing=colander.drop, description="Starting today or later.")
    featured = colander.SchemaNode(StrictBoolean(), missing=colander.drop)
    include = colander.SchemaNode(IdList(), missing=colander.drop, description="Comma-separated ids.")
    exclude = colander.SchemaNode(IdList(), missing=colander.drop, description="Comma-separated ids.")
    _embed = colander.SchemaNode(EmbedFlag(), missing=False, description="Add the venue and organizer objects.")


class VenueListQuery(PaginationSchema):
    search = text_field("search", "Matches the name and address.")
    orderby = _orderby(("title", "date", "modified", "id"), "title")
    order = _order("ASC")
    city = text_field("city", "Exact city (case-insensitive).")
    country = text_field("country", "Exact country (case-insensitive).")


class OrganizerListQuery(PaginationSchema):
    search = text_field("search", "Matches the name and email.")
    orderby = _orderby(("title", "date", "modified", "id"), "title")
    order = _order("ASC")


class AttendeeListQuery(PaginationSchema):
    search = text_field("search", "Matches first name, last name, email or ticket code.")
    orderby = _orderby(("created_at", "first_name", "last_name", "email", "status"), "created_at")
    order = _order("DESC")
    event = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=colander.Range(min=1))
    order_id = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=colander.Range(min=1))
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(ATTENDEE_STATUSES))


# --- check-in -------------------------------------------------------------------------------

def _ticket_code():
    return colander.SchemaNode(StrictString(), name="ticket_code", validator=not_blank, preparer=typed_code,
                               description="Ticket code (case and surrounding blanks do not matter).")


class CheckinBody(colander.MappingSchema):
    ticket_code = _ticket_code()
    event_id = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=colander.Range(min=1),
                                   description="Reject the ticket when it belongs to another event.")


class CheckoutBody(colander.MappingSchema):
    ticket_code = _ticket_code()


class RecentQuery(colander.MappingSchema):
    limit = colander.SchemaNode(StrictInt(), missing=10, validator=colander.Range(min=1),
                                description="Number of check-ins (default 10, capped at 50).")


# --- calendar -------------------------------------------------------------------------------

class MonthQuery(colander.MappingSchema):
    year = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=colander.Range(min=1, max=9999),
                               description="Default: the current year (site time zone).")
    month = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=colander.Range(min=1, max=12),
                                description="1 to 12; default: the current month (site time zone).")
    category = text_field("category", "Category id or slug.")


class RangeQuery(colander.MappingSchema):
    start = colander.SchemaNode(DateText(), description="YYYY-MM-DD.")
    end = colander.SchemaNode(DateText(), description="YYYY-MM-DD; at most 365 days after start.")
    category = text_field("category", "Category id or slug.")


class UpcomingQuery(colander.MappingSchema):
    limit = colander.SchemaNode(StrictInt(), missing=5, validator=colander.Range(min=1, max=50))
    category = text_field("category", "Category id or slug.")


class CategoriesQuery(colander.MappingSchema):
    hide_empty = colander.SchemaNode(StrictBoolean(), missing=False,
                                     description="Leave out categories with no published event.")
