"""Every change the spec names goes through here: its in-process action fires exactly once,
then the change is announced under its topic with ``evt_topic_announced`` (the webhook outbox
implements it; so may any plugin). Both run inside the transaction of the change."""
from storeplatform.api import call_action, hooks_of


def _action(session, name, /, **kwargs):
    call_action(getattr(hooks_of(session), name), **kwargs)


def _announce(session, topic, object_id, **info):
    _action(session, "evt_topic_announced", session=session, topic=topic, object_id=object_id, info=info)


def post_created(session, kind, post_id, request):
    _action(session, f"evt_rest_{kind}_created", post_id=post_id, request=request)
    _announce(session, f"{kind}.created", post_id)


def post_updated(session, kind, post_id, request):
    _action(session, f"evt_rest_{kind}_updated", post_id=post_id, request=request)
    _announce(session, f"{kind}.updated", post_id)


def post_deleted(session, kind, post_id, force):
    _action(session, f"evt_rest_{kind}_deleted", post_id=post_id, force=force)
    _announce(session, f"{kind}.deleted", post_id, force=force)


def attendee_created(session, attendee):
    # No in-process action in the spec; the topic still exists for webhooks.
    _announce(session, "attendee.created", attendee.id)


def attendee_updated(session, attendee_id, request):
    _action(session, "evt_rest_attendee_updated", attendee_id=attendee_id, request=request)
    _announce(session, "attendee.updated", attendee_id)


def attendee_checked_in(session, attendee):
    _action(session, "evt_attendee_checked_in", attendee_id=attendee.id, attendee=attendee.as_dict())
    _announce(session, "attendee.checked_in", attendee.id)


def attendee_checked_out(session, attendee):
    _action(session, "evt_attendee_checked_out", attendee_id=attendee.id, attendee=attendee.as_dict())
    _announce(session, "attendee.checked_out", attendee.id)
