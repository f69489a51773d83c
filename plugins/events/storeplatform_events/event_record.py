"""An event as the plugin reads it: the one record its REST answers of events are built from (both
variants: ``serialize.event_fields``) and the one its face gives other plugins (``api.py``).

A record holds values, not the session's ORM instances, so that it may be kept between requests
(``@cached``) and handed to another plugin without lending it an object it could change or that
loads more rows behind its back. The fields are the face's promise: a test pins their names
(tests/events/test_face.py), so a change of the tables shows there, not in a third party."""
from collections import namedtuple

from .models import CATEGORY_TAXONOMY

FIELDS = ("id", "title", "slug", "status", "content", "excerpt", "author_id", "created_at", "modified_at",
          "start_date", "start_time", "end_date", "end_time", "timezone", "all_day", "venue_id", "organizer_id",
          "capacity", "event_status", "event_type", "virtual_url", "featured", "featured_image", "categories")


class EventRecord(namedtuple("EventRecord", FIELDS)):
    """``status`` is the post's (publish, draft, private, pending, future, trash), ``event_status``
    the event's own (scheduled, cancelled, postponed, sold-out); dates are ``date``s, times
    ``HH:MM`` texts of the event's ``timezone``; ``created_at``/``modified_at`` UTC datetimes;
    ``venue_id``/``organizer_id``/``author_id`` None when there is none; ``categories`` the ids of
    its event categories, a tuple; ``featured_image`` a dict (shared: read it, never change it) or
    None."""
    __slots__ = ()

    @classmethod
    def of(cls, post, details):
        """The record of an event's post and details rows (``EventDetails``) as the lists read them."""
        return cls(post.id, post.title, post.slug, post.status, post.content, post.excerpt, post.author_id,
                   post.created_at, post.modified_at, details.start_date, details.start_time, details.end_date,
                   details.end_time, details.timezone, details.all_day, details.venue_id, details.organizer_id,
                   details.capacity, details.event_status, details.event_type, details.virtual_url,
                   details.featured, details.featured_image or None,
                   tuple(t.id for t in post.terms if t.taxonomy == CATEGORY_TAXONOMY))
