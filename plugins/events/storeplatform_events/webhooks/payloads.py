"""The JSON envelope and the ``data`` of each topic, built when the change happens; the
envelope's timestamp is kept beside the body (``WebhookDelivery.timestamp``) for the header."""
import json
from datetime import datetime

from storeplatform.api import Post, site_options, site_timezone, site_url

from ..models import Attendee, EventDetails
from ..serialize import event_url

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"


def local_timestamp(session):
    """Now in the site's time zone, as the envelope and the X-EVT-Timestamp header carry it."""
    return datetime.now(site_timezone(session)).strftime(TIMESTAMP_FORMAT)


def event_data(session, event_id):
    post = session.get(Post, event_id)
    details = session.get(EventDetails, event_id)
    if post is None or details is None:
        return None
    # venue_id, organizer_id and capacity travel as text, as the spec says (0: none / unlimited).
    return {
        "id": post.id,
        "title": post.title,
        "status": post.status,
        "start_date": details.start_date.isoformat(),
        "start_time": details.start_time,
        "end_date": details.end_date.isoformat(),
        "end_time": details.end_time,
        "venue_id": str(details.venue_id or 0),
        "organizer_id": str(details.organizer_id or 0),
        "capacity": str(details.capacity or 0),
        "event_status": details.event_status,
        "url": event_url(site_options(session), site_url(session), post.slug),
    }


def attendee_data(session, attendee_id):
    attendee = session.get(Attendee, attendee_id)
    if attendee is None:
        return None
    event = session.get(Post, attendee.event_id)
    return {
        "id": attendee.id,
        "event_id": attendee.event_id,
        "event_name": event.title if event is not None else "",
        "order_id": attendee.order_id or 0,
        "first_name": attendee.first_name,
        "last_name": attendee.last_name,
        "email": attendee.email,
        "ticket_code": attendee.ticket_code,
        "status": attendee.status,
    }


def topic_data(session, topic, object_id, info):
    """``data`` of a fired topic, or None when the object is gone."""
    if topic == "event.deleted":
        return {"id": object_id, "force": bool(info.get("force"))}
    if topic.startswith("event."):
        return event_data(session, object_id)
    return attendee_data(session, object_id)


def envelope_body(topic, webhook_id, timestamp, data):
    """The raw body (bytes) that is signed and sent."""
    envelope = {"topic": topic, "webhook_id": webhook_id, "timestamp": timestamp, "data": data}
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
