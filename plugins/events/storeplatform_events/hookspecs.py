"""Hooks the events plugin adds (documented in docs/events-hooks.md).

Actions fire once per change, inside the transaction that makes it, whether the change came
through REST, the CLI or demo data (``request`` is None outside a web request). Filters
receive the response data first and return it (or None to keep it unchanged).
"""
from storeplatform.api import hookspec


@hookspec
def evt_rest_event_created(post_id, request):
    """Action: an event was created."""


@hookspec
def evt_rest_event_updated(post_id, request):
    """Action: an event was updated."""


@hookspec
def evt_rest_event_deleted(post_id, force):
    """Action: an event was trashed (``force`` False) or deleted for good (``force`` True)."""


@hookspec
def evt_rest_venue_created(post_id, request):
    """Action: a venue was created."""


@hookspec
def evt_rest_venue_updated(post_id, request):
    """Action: a venue was updated."""


@hookspec
def evt_rest_venue_deleted(post_id, force):
    """Action: a venue was trashed or deleted for good."""


@hookspec
def evt_rest_organizer_created(post_id, request):
    """Action: an organizer was created."""


@hookspec
def evt_rest_organizer_updated(post_id, request):
    """Action: an organizer was updated."""


@hookspec
def evt_rest_organizer_deleted(post_id, force):
    """Action: an organizer was trashed or deleted for good."""


@hookspec
def evt_rest_attendee_updated(attendee_id, request):
    """Action: an attendee was updated through PUT /attendees/{id}."""


@hookspec
def evt_attendee_checked_in(attendee_id, attendee):
    """Action: an attendee was checked in; ``attendee`` is the record as a dict
    (``AttendeeRecord.as_dict()`` of the row the change returned)."""


@hookspec
def evt_attendee_checked_out(attendee_id, attendee):
    """Action: an attendee was checked out; ``attendee`` is the record as a dict
    (``AttendeeRecord.as_dict()`` of the row the change returned)."""


@hookspec
def evt_topic_announced(session, topic, object_id, info):
    """Action: every change above, announced under its topic (``event.created``,
    ``venue.deleted``, ``attendee.checked_in``...) after its own action; ``object_id`` is the
    item's or the attendee's id, ``info`` a dict of extras (``force`` for ``*.deleted``).
    Inside the transaction of the change: work that leaves the process is enqueued after
    commit. The plugin's webhook outbox implements it for the webhook topics."""


@hookspec
def evt_rest_prepare_event(data, post, request):
    """Filter: the JSON of an event (``post`` is the host Post) before it is returned."""


@hookspec
def evt_rest_prepare_venue(data, post, request):
    """Filter: the JSON of a venue before it is returned."""


@hookspec
def evt_rest_prepare_organizer(data, post, request):
    """Filter: the JSON of an organizer before it is returned."""


@hookspec
def evt_rest_prepare_attendee(data, attendee, request):
    """Filter: the JSON of an attendee before it is returned; ``attendee`` is the record as a dict
    (``AttendeeRecord.as_dict()``), the same on every route."""


# --- the alternate variant (``events.api_variant = alternate``) -------------------------------

@hookspec
def evt_rest_speaker_created(post_id, request):
    """Action: a speaker was created."""


@hookspec
def evt_rest_speaker_updated(post_id, request):
    """Action: a speaker was updated."""


@hookspec
def evt_rest_speaker_deleted(post_id, force):
    """Action: a speaker was trashed or deleted for good."""


@hookspec
def evt_rest_prepare_speaker(data, post, request):
    """Filter: the JSON of a speaker before it is returned."""


@hookspec
def evt_rest_event_response(data, post, request):
    """Filter: the JSON of an event of the alternate variant (its own shape) before it is
    returned; the alternate variant's counterpart of ``evt_rest_prepare_event``."""
