"""Create, update and delete events, venues, organizers and speakers (host posts plus their detail row).

Used by the REST views, the CLI and demo data alike, so that each action fires once per
change wherever the change comes from.
"""
from dataclasses import dataclass

from sqlalchemy import select

from storeplatform.api import (InvalidParams, Post, Term, delete_post, id_in_range, set_post_terms, site_options,
                               trash_post, unique_slug, utcnow)

from . import actions, queries
from .tickets import cancel_event_tickets
from .models import (CATEGORY_TAXONOMY, EVENT_TYPE, ORGANIZER_TYPE, SPEAKER_TYPE, VENUE_TYPE, EventDetails,
                     OrganizerDetails, SpeakerDetails, VenueDetails)


@dataclass(frozen=True)
class Kind:
    name: str            # event, venue, organizer (hook and topic names)
    post_type: str
    model: type
    title_field: str     # the body field that is the post title
    fields: tuple        # fields of the detail row
    collection: str      # URL segment
    statuses: bool = False   # has a writable post status (publishing needs publish_posts)


EVENT = Kind("event", EVENT_TYPE, EventDetails, "title",
             ("start_date", "start_time", "end_date", "end_time", "timezone", "all_day", "venue_id", "organizer_id",
              "capacity", "event_status", "event_type", "virtual_url", "featured", "featured_image"), "events",
             statuses=True)
VENUE = Kind("venue", VENUE_TYPE, VenueDetails, "name",
             ("address", "city", "state", "country", "postal", "capacity", "phone", "email", "website"), "venues")
ORGANIZER = Kind("organizer", ORGANIZER_TYPE, OrganizerDetails, "name",
                 ("phone", "email", "website", "facebook", "twitter", "linkedin"), "organizers")
# Served by the alternate variant only; the bio is the post's content.
SPEAKER = Kind("speaker", SPEAKER_TYPE, SpeakerDetails, "name",
               ("job_title", "company", "email", "website", "photo"), "speakers", statuses=True)


def reference_problems(session, values):
    """What is wrong with the references of event ``values`` (venue_id, organizer_id,
    categories): ``{field: message}``. Values of another JSON kind are the schema's business and
    are passed over here, so this also reads a raw body (the bound schema's validators)."""
    errors = {}
    refs = {"venue_id": VENUE_TYPE, "organizer_id": ORGANIZER_TYPE}
    wanted = {f: v for f in refs if _is_id(v := values.get(f)) and v}
    if wanted:
        ids = [i for i in wanted.values() if id_in_range(i)]
        found = dict(session.execute(select(Post.id, Post.post_type).where(Post.id.in_(ids))).all()) if ids else {}
        for field, ref in wanted.items():
            if found.get(ref) != refs[field]:
                errors[field] = f"{field.split('_')[0]} {ref} does not exist"
    categories = values.get("categories")
    if isinstance(categories, list) and categories and all(_is_id(i) for i in categories):
        known = set(session.execute(select(Term.id).where(
            Term.taxonomy == CATEGORY_TAXONOMY, Term.id.in_([i for i in categories if id_in_range(i)]))
        ).scalars())
        missing = sorted(set(categories) - known)
        if missing:
            errors["categories"] = "unknown category id(s): " + ", ".join(map(str, missing))
    return errors


def _is_id(value):
    return isinstance(value, int) and not isinstance(value, bool)


# The date and time fields, in the order in which one of them is named when the event would end
# before it starts: the first one the caller sent.
DATE_FIELDS = ("end_date", "end_time", "start_date", "start_time")


def date_order_problems(session, details, values):
    """``{field: message}`` when the event ``details`` (None for a new one) with the typed
    ``values`` applied would end before it starts, with the defaults a new event gets; the
    field named is the first of ``DATE_FIELDS`` in ``values``, so that a partial update of one
    date is answered on that date. The schema's bound validators and the domain share it."""
    def merged(field):
        if field in values:
            return values[field]
        return getattr(details, field) if details is not None else None

    start_date = merged("start_date") or queries.today(session)
    start_time = merged("start_time") or "00:00"
    end_date = merged("end_date") or start_date
    end_time = merged("end_time") or "23:59"
    if (end_date, end_time) >= (start_date, start_time):
        return {}
    field = next((f for f in DATE_FIELDS if f in values), "end_date")
    return {field: "the event ends before it starts"}


def _check_event_values(session, details, values):
    """Check references and the date order of the merged event: values that passed the schema
    but not the data (unknown venue, end before start...) raise InvalidParams. The REST views
    report the same problems while validating (bound schema); this keeps CLI callers safe."""
    errors = {**reference_problems(session, values), **date_order_problems(session, details, values)}
    if errors:
        raise InvalidParams(errors)


def _apply_details(session, kind, details, values, creating):
    for field in kind.fields:
        if field in values:
            value = values[field]
            if field in ("venue_id", "organizer_id"):
                value = value or None
            setattr(details, field, value)
    if kind is EVENT:
        if creating:
            details.start_date = details.start_date or queries.today(session)
            details.start_time = details.start_time or "00:00"
            details.end_date = details.end_date or details.start_date
            details.end_time = details.end_time or "23:59"
            details.timezone = details.timezone or site_options(session)["site.timezone"]
        _check_event_values(session, details, values)


def create(session, kind, values, author_id=None, request=None):
    """A new post of ``kind`` from validated ``values``; fires the created action. Returns (post, details)."""
    title = values[kind.title_field].strip()
    # Validated before anything is written, so that a bad request leaves nothing behind.
    details = kind.model()
    _apply_details(session, kind, details, values, creating=True)
    post = Post(post_type=kind.post_type, title=title, content=values.get("content", ""),
                excerpt=values.get("excerpt", ""), author_id=author_id,
                status=values.get("status", "publish"),
                slug=unique_slug(session, kind.post_type, values.get("slug") or title))
    session.add(post)
    session.flush()
    details.post_id = post.id
    session.add(details)
    if kind is EVENT and values.get("categories"):
        set_post_terms(session, post, CATEGORY_TAXONOMY, values["categories"])
    session.flush()
    actions.post_created(session, kind.name, post.id, request)
    return post, details


def update(session, kind, post, details, values, request=None):
    """Change only the sent fields; fires the updated action."""
    _apply_details(session, kind, details, values, creating=False)
    if kind.title_field in values:
        post.title = values[kind.title_field].strip()
    for field in ("content", "excerpt", "status"):
        if field in values:
            setattr(post, field, values[field])
    if values.get("slug"):
        post.slug = unique_slug(session, kind.post_type, values["slug"], exclude_id=post.id)
    if kind is EVENT and "categories" in values:
        set_post_terms(session, post, CATEGORY_TAXONOMY, values["categories"])
    post.modified_at = utcnow()
    session.flush()
    actions.post_updated(session, kind.name, post.id, request)


def remove(session, kind, post, force):
    """Trash (or delete for good with ``force``); fires the deleted action when something changed.
    Returns True when something changed."""
    if force:
        if kind.post_type == EVENT_TYPE:
            cancel_event_tickets(session, post.id)
        delete_post(session, post)
    else:
        if post.status == "trash":
            return False
        trash_post(post)
        post.modified_at = utcnow()
        session.flush()
    actions.post_deleted(session, kind.name, post.id, force)
    return True
