"""JSON of the alternate variant: the standard objects under the variant's names (``renames.py``)
with what it alone has (an event's ``venue``/``organizer`` as ``{id, name}`` and ``registered``;
speakers), each filtered once, in the shape the variant serves. The looked-up parts of a page of
events (names, registrations) are read in one query each."""
from sqlalchemy import func, select

from storeplatform.api import Post, apply_filters, local_datetime

from ..event_record import EventRecord
from ..models import ORGANIZER_TYPE, VENUE_TYPE, Attendee
from ..serialize import event_fields, item_links, venue_fields
from . import renames

EVENT_JSON = renames.Renames({**renames.EVENT.names, "permalink": "link"})
# The standard's post status and its combined date-times: the variant has neither.
EVENT_ONLY_STANDARD = ("status", "start_datetime", "end_datetime")


def reshaped(data, renamed, dropped=()):
    return {renamed.names.get(key, key): value for key, value in data.items() if key not in dropped}


def place_names(session, rows):
    """{id: name} of the published venues and organizers the events in ``rows`` name."""
    ids = {d.venue_id for _, d in rows if d.venue_id} | {d.organizer_id for _, d in rows if d.organizer_id}
    if not ids:
        return {}
    return dict(session.execute(select(Post.id, Post.title).where(
        Post.id.in_(sorted(ids)), Post.status == "publish",
        Post.post_type.in_((VENUE_TYPE, ORGANIZER_TYPE)))).all())


def registrations(session, event_ids):
    """{event id: attendees not cancelled}."""
    if not event_ids:
        return {}
    return dict(session.execute(
        select(Attendee.event_id, func.count()).where(Attendee.event_id.in_(sorted(event_ids)),
                                                       Attendee.status != "cancelled")
        .group_by(Attendee.event_id)).all())


def _reference(item_id, names):
    return {"id": item_id, "name": names[item_id]} if item_id in names else None


def event_json(request, post, details, tz, names, registered):
    data = reshaped(event_fields(request, EventRecord.of(post, details), tz), EVENT_JSON, EVENT_ONLY_STANDARD)
    data["venue"] = _reference(details.venue_id, names)
    data["organizer"] = _reference(details.organizer_id, names)
    data["registered"] = registered
    return apply_filters(request.hooks.evt_rest_event_response, data, post=post, request=request)


def events_json(request, rows, tz):
    """The events of ``rows`` ((post, details) pairs): three queries whatever their number."""
    names = place_names(request.db, rows)
    counts = registrations(request.db, [post.id for post, _ in rows])
    return [event_json(request, post, details, tz, names, counts.get(post.id, 0)) for post, details in rows]


def venue_json(request, post, details, tz, event_count):
    # Renamed before its filter runs, so that evt_rest_prepare_venue sees the shape it returns.
    data = reshaped(venue_fields(request, post, details, tz, event_count), renames.VENUE)
    return apply_filters(request.hooks.evt_rest_prepare_venue, data, post=post, request=request)


def speaker_json(request, post, details, tz):
    data = {
        "id": post.id,
        "name": post.title,
        "slug": post.slug,
        "status": post.status,
        "bio": post.content,
        "job_title": details.job_title,
        "company": details.company,
        "email": details.email,
        "website": details.website,
        "photo": details.photo,
        "date_created": local_datetime(post.created_at, tz),
        "date_modified": local_datetime(post.modified_at, tz),
        "_links": item_links(request, "speakers", post.id),
    }
    return apply_filters(request.hooks.evt_rest_prepare_speaker, data, post=post, request=request)


def iso_local(value, tz):
    """ISO 8601 with the offset, in the site time zone (the variant's check-in times), or None."""
    return value.astimezone(tz).isoformat(timespec="seconds") if value is not None else None
