"""Colander schemas of the alternate variant: the fields and parameters its spec renames or
adds. Everything else (types, validators) is the standard schemas' own."""
import colander

from storeplatform.api import (
    COLUMN_INT,
    POSITIVE_ID,
    DateText,
    OptionalId,
    PaginationSchema,
    StrictBoolean,
    StrictInt,
    StrictString,
    TimeText,
    not_blank,
    url_or_empty,
    valid_email,
    valid_timezone,
)

from ..models import ATTENDEE_STATUSES, EVENT_STATUSES, EVENT_TYPES
from ..schemas import (
    WRITABLE_STATUSES,
    CategoryIds,
    FeaturedImage,
    _text,
    in_date_order,
    known_reference,
)


class EventBody(colander.MappingSchema):
    title = colander.SchemaNode(StrictString(), validator=not_blank, description="Event title.")
    slug = _text("slug", "URL slug; made from the title when empty.")
    description = _text("description", "Description, HTML allowed.")
    excerpt = _text("excerpt", "Short description.")
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(EVENT_STATUSES),
                                 description="Event status (scheduled by default).")
    type = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(EVENT_TYPES),
                               description="Event type (in-person by default).")
    start_date = colander.SchemaNode(DateText(), missing=colander.drop, validator=in_date_order,
                                     description="YYYY-MM-DD (default today).")
    start_time = colander.SchemaNode(TimeText(), missing=colander.drop, validator=in_date_order,
                                     description="HH:MM (default 00:00).")
    end_date = colander.SchemaNode(DateText(), missing=colander.drop, validator=in_date_order,
                                   description="YYYY-MM-DD (default start_date).")
    end_time = colander.SchemaNode(TimeText(), missing=colander.drop, validator=in_date_order,
                                   description="HH:MM (default 23:59).")
    timezone = _text("timezone", "Time zone name (default the site's).", max_length=64, validator=valid_timezone)
    all_day = colander.SchemaNode(StrictBoolean(), missing=colander.drop)
    venue = colander.SchemaNode(OptionalId("venues"), missing=colander.drop, validator=known_reference,
                                description="Venue id; 0 or null for none.")
    organizer = colander.SchemaNode(OptionalId("organizers"), missing=colander.drop, validator=known_reference,
                                    description="Organizer id; 0 or null for none.")
    capacity = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=COLUMN_INT,
                                   description="Maximum attendees (0: not set).")
    virtual_url = _text("virtual_url", "URL of a virtual event.", validator=url_or_empty)
    featured = colander.SchemaNode(StrictBoolean(), missing=colander.drop)
    featured_image = colander.SchemaNode(FeaturedImage(), missing=colander.drop,
                                         description="Object with id, url, thumbnail, alt; null for none.")
    categories = CategoryIds(missing=colander.drop, validator=known_reference, description="Category term ids.")


class VenueBody(colander.MappingSchema):
    name = colander.SchemaNode(StrictString(), validator=not_blank, description="Venue name.")
    address = _text("address")
    city = _text("city", max_length=200)
    state = _text("state", max_length=200)
    country = _text("country", max_length=200)
    postal_code = _text("postal_code", max_length=40)
    capacity = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=COLUMN_INT)
    phone = _text("phone", max_length=100)
    email = _text("email", max_length=200, validator=valid_email)
    website = _text("website", validator=url_or_empty)


class SpeakerBody(colander.MappingSchema):
    name = colander.SchemaNode(StrictString(), validator=not_blank, description="Speaker name.")
    slug = _text("slug", "URL slug; made from the name when empty.")
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(WRITABLE_STATUSES),
                                 description="Post status (publish by default on create).")
    bio = _text("bio", "Biography, HTML allowed.")
    job_title = _text("job_title", max_length=200)
    company = _text("company", max_length=200)
    email = _text("email", max_length=200, validator=valid_email)
    website = _text("website", validator=url_or_empty)
    photo = _text("photo", "URL of a photo.", validator=url_or_empty)


# --- list queries ---------------------------------------------------------------------------

class EventListQuery(PaginationSchema):
    type = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(EVENT_TYPES),
                               description="Event type.")
    after = colander.SchemaNode(DateText(), missing=colander.drop, description="Starting on or after (YYYY-MM-DD).")
    before = colander.SchemaNode(DateText(), missing=colander.drop, description="Starting on or before (YYYY-MM-DD).")
    category = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=POSITIVE_ID,
                                   description="Category id.")
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(EVENT_STATUSES),
                                 description="Event status.")
    search = _text("search", "Matches title, description and excerpt.")


class SpeakerListQuery(PaginationSchema):
    search = _text("search", "Matches the name, job title and company.")


class AttendeeListQuery(PaginationSchema):
    event_id = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=POSITIVE_ID, description="Event id.")
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(ATTENDEE_STATUSES))
    search = _text("search", "Matches the name (first, last or both) or the email.")


class CalendarQuery(colander.MappingSchema):
    year = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=colander.Range(min=1, max=9999),
                               description="Default: the current year (site time zone).")
    month = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=colander.Range(min=1, max=12),
                                description="1 to 12; default: the current month (site time zone).")
    category = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=POSITIVE_ID,
                                   description="Category id.")
