"""JSON of events, venues, organizers, attendees and calendar events.

The ``evt_rest_prepare_*`` filters run on every response carrying one of the first four.
"""
from storeplatform.api import apply_filters, local_datetime

from .event_record import EventRecord

# The REST namespace of the plugin (its services are declared in views/ and webhooks/views.py).
NAMESPACE = "events/v1"
PLAIN = "%Y-%m-%d %H:%M:%S"


def plain_local(value, tz):
    """``YYYY-MM-DD HH:MM:SS`` in the site time zone (check-in times), or None."""
    return value.astimezone(tz).strftime(PLAIN) if value is not None else None


def event_url(options, site, slug):
    """Where an event is shown: ``events.permalink_base`` + slug (a headless site's front end), else
    the platform's own public page ``{site}/events/<slug>/``."""
    base = options["events.permalink_base"].strip()
    return f"{base.rstrip('/')}/{slug}/" if base else f"{site}/events/{slug}/"


def item_links(request, collection, item_id):
    return {"self": [{"href": request.rest_url(NAMESPACE, f"/{collection}/{item_id}")}],
            "collection": [{"href": request.rest_url(NAMESPACE, f"/{collection}")}]}


def event_json(request, post, details, tz, embed=None):
    """``embed``: None, or ``(venues, organizers)`` dicts of prepared objects by id."""
    data = event_fields(request, EventRecord.of(post, details), tz)
    if embed is not None:
        venues, organizers = embed
        data["venue"] = venues.get(details.venue_id)
        data["organizer"] = organizers.get(details.organizer_id)
    return apply_filters(request.hooks.evt_rest_prepare_event, data, post=post, request=request)


def event_fields(request, event, tz):
    """An event's JSON before its filter (the alternate variant renames and adds fields first),
    from its ``EventRecord``: the record the plugin's face gives other plugins, so that what REST
    answers and what a plugin reads cannot part."""
    start_dt = f"{event.start_date.isoformat()}T{event.start_time}:00"
    end_dt = f"{event.end_date.isoformat()}T{event.end_time}:00"
    return {
        "id": event.id,
        "title": event.title,
        "slug": event.slug,
        "status": event.status,
        "content": event.content,
        "excerpt": event.excerpt,
        "permalink": event_url(request.site_options, request.application_url, event.slug),
        "date_created": local_datetime(event.created_at, tz),
        "date_modified": local_datetime(event.modified_at, tz),
        "featured_image": event.featured_image,
        "start_date": event.start_date.isoformat(),
        "start_time": event.start_time,
        "end_date": event.end_date.isoformat(),
        "end_time": event.end_time,
        "start_datetime": start_dt,
        "end_datetime": end_dt,
        "timezone": event.timezone,
        "all_day": event.all_day,
        "venue_id": event.venue_id or 0,
        "organizer_id": event.organizer_id or 0,
        "capacity": event.capacity,
        "event_status": event.event_status,
        "event_type": event.event_type,
        "virtual_url": event.virtual_url,
        "featured": event.featured,
        "categories": list(event.categories),
        "_links": item_links(request, "events", event.id),
    }


def venue_json(request, post, details, tz, event_count):
    return apply_filters(request.hooks.evt_rest_prepare_venue, venue_fields(request, post, details, tz, event_count),
                         post=post, request=request)


def venue_fields(request, post, details, tz, event_count):
    """A venue's JSON before its filter (the alternate variant renames a field first)."""
    return {
        "id": post.id,
        "name": post.title,
        "slug": post.slug,
        "address": details.address,
        "city": details.city,
        "state": details.state,
        "country": details.country,
        "postal": details.postal,
        "capacity": details.capacity,
        "phone": details.phone,
        "email": details.email,
        "website": details.website,
        "date_created": local_datetime(post.created_at, tz),
        "date_modified": local_datetime(post.modified_at, tz),
        "event_count": event_count,
        "_links": item_links(request, "venues", post.id),
    }


def organizer_json(request, post, details, tz, event_count):
    data = {
        "id": post.id,
        "name": post.title,
        "slug": post.slug,
        "phone": details.phone,
        "email": details.email,
        "website": details.website,
        "facebook": details.facebook,
        "twitter": details.twitter,
        "linkedin": details.linkedin,
        "date_created": local_datetime(post.created_at, tz),
        "date_modified": local_datetime(post.modified_at, tz),
        "event_count": event_count,
        "_links": item_links(request, "organizers", post.id),
    }
    return apply_filters(request.hooks.evt_rest_prepare_organizer, data, post=post, request=request)


def qr_code_url(request, ticket_code):
    return request.rest_url(NAMESPACE, f"/tickets/{ticket_code}/qr")


def attendee_json(request, attendee, event_name, tz):
    """``attendee``: an ``AttendeeRecord`` (the attendee's one read shape; the filter gets its
    ``as_dict()``)."""
    data = {
        "id": attendee.id,
        "event_id": attendee.event_id,
        "event_name": event_name or "",
        "order_id": attendee.order_id or 0,
        "order_number": str(attendee.order_id) if attendee.order_id else "",
        "user_id": attendee.user_id or 0,
        "first_name": attendee.first_name,
        "last_name": attendee.last_name,
        "email": attendee.email,
        "phone": attendee.phone,
        "ticket_code": attendee.ticket_code,
        "status": attendee.status,
        "checked_in_at": plain_local(attendee.checked_in_at, tz),
        "checked_out_at": plain_local(attendee.checked_out_at, tz),
        "custom_fields": attendee.custom_fields or {},
        "date_created": local_datetime(attendee.created_at, tz),
        "date_modified": local_datetime(attendee.modified_at, tz),
        "qr_code_url": qr_code_url(request, attendee.ticket_code),
        "_links": item_links(request, "attendees", attendee.id),
    }
    prepare = request.hooks.evt_rest_prepare_attendee
    if not prepare.get_hookimpls():  # no filter to give the record to: not made for each attendee
        return data
    return apply_filters(prepare, data, attendee=attendee.as_dict(), request=request)


def attendee_summary(attendee, event_name):
    """The short attendee object of check-in responses (``attendee``: an ``AttendeeRecord``)."""
    return {
        "id": attendee.id,
        "name": f"{attendee.first_name} {attendee.last_name}".strip(),
        "email": attendee.email,
        "ticket_code": attendee.ticket_code,
        "status": attendee.status,
        "event_id": attendee.event_id,
        "event_name": event_name or "",
    }


def calendar_event_json(options, site_url, row, categories):
    """A calendar event from a row of plain columns and its categories (id, name, slug, color)."""
    image = row.featured_image or {}
    start_date, end_date = row.start_date.isoformat(), row.end_date.isoformat()
    return {
        "id": row.id,
        "title": row.title,
        "slug": row.slug,
        "url": event_url(options, site_url, row.slug),
        "start_date": start_date,
        "start_time": row.start_time,
        "end_date": end_date,
        "end_time": row.end_time,
        "all_day": row.all_day,
        "start": f"{start_date}T{row.start_time}:00",
        "end": f"{end_date}T{row.end_time}:00",
        "venue": row.venue_name or "",
        "venue_id": row.venue_id or 0,
        "categories": categories,
        "color": categories[0]["color"] if categories else "",
        "thumbnail": image.get("thumbnail") or image.get("url") or "",
        "event_status": row.event_status,
        "event_type": row.event_type,
        "featured": row.featured,
    }
