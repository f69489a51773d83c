"""The webhook topics of the spec: the ones that fire, the ones accepted but never fired, and
the test route's own topic."""

FIRED_TOPICS = {
    "event.created": "An event is created in the admin or through the REST API.",
    "event.updated": "An event is saved in the admin or updated through the REST API.",
    "event.deleted": "An event is trashed or permanently deleted (data.force tells which).",
    "attendee.created": "An attendee record is created when tickets are generated for an order.",
    "attendee.updated": "An attendee is updated through PUT /attendees/{id}.",
    "attendee.checked_in": "An attendee is checked in (admin or REST).",
    "attendee.checked_out": "An attendee is checked out (admin or REST).",
}

NEVER_FIRED_TOPICS = {
    "attendee.cancelled": "Accepted for compatibility; never fired.",
    "ticket.sold": "Accepted for compatibility; never fired.",
    "ticket.refunded": "Accepted for compatibility; never fired.",
    "capacity.reached": "Accepted for compatibility; never fired.",
    "event.reminder": "Accepted for compatibility; never fired.",
}

TOPICS = {**FIRED_TOPICS, **NEVER_FIRED_TOPICS}
TEST_TOPIC = "test"


def topics_json():
    return {"topics": [{"name": name, "description": text, "fires": name in FIRED_TOPICS}
                       for name, text in TOPICS.items()]}
