"""Every change the spec names goes through here: the in-process action fires exactly once,
and the change is announced under its webhook topic to the topic listeners.

Webhook delivery (part 2) hooks in with ``add_topic_listener(registry, listener)``; a
listener gets ``(session, topic, object_id, info)`` inside the transaction of the change and
is expected to enqueue its work after commit.
"""
from storeplatform.db import registry_of
from storeplatform.plugins import call_action

LISTENERS_KEY = "events.topic_listeners"


def add_topic_listener(registry, listener):
    registry.setdefault(LISTENERS_KEY, []).append(listener)


def _announce(session, topic, object_id, **info):
    for listener in registry_of(session).get(LISTENERS_KEY, ()):
        listener(session, topic, object_id, info)


def _hook(session, name):
    return getattr(registry_of(session)["plugins"].hook, name)


def post_created(session, kind, post_id, request):
    call_action(_hook(session, f"evt_rest_{kind}_created"), post_id=post_id, request=request)
    _announce(session, f"{kind}.created", post_id)


def post_updated(session, kind, post_id, request):
    call_action(_hook(session, f"evt_rest_{kind}_updated"), post_id=post_id, request=request)
    _announce(session, f"{kind}.updated", post_id)


def post_deleted(session, kind, post_id, force):
    call_action(_hook(session, f"evt_rest_{kind}_deleted"), post_id=post_id, force=force)
    _announce(session, f"{kind}.deleted", post_id, force=force)


def attendee_created(session, attendee):
    # No in-process action in the spec; the topic still exists for webhooks.
    _announce(session, "attendee.created", attendee.id)


def attendee_updated(session, attendee_id, request):
    call_action(_hook(session, "evt_rest_attendee_updated"), attendee_id=attendee_id, request=request)
    _announce(session, "attendee.updated", attendee_id)


def attendee_checked_in(session, attendee):
    call_action(_hook(session, "evt_attendee_checked_in"), attendee_id=attendee.id, attendee=attendee.as_dict())
    _announce(session, "attendee.checked_in", attendee.id)


def attendee_checked_out(session, attendee):
    call_action(_hook(session, "evt_attendee_checked_out"), attendee_id=attendee.id, attendee=attendee.as_dict())
    _announce(session, "attendee.checked_out", attendee.id)
