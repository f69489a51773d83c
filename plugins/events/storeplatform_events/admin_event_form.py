"""Making and changing an event in the admin (``edit_posts``, publishing with ``publish_posts``,
as REST): the form's text is typed as REST's body would be, checked by REST's schema with the
same rules across fields and rows (references, date order), and saved by ``posts`` (the same
actions and webhooks). A venue or an organizer can be made on the spot, in the same
transaction: a form refused leaves nothing behind.

Up to ``SELECT_LIMIT`` venues (organizers) the form offers them in a <select>; beyond, a field
takes a name or an id (#40): the submit resolves it (one place: taken; several: shown again
beside the field to choose from; none: refused there), and ``admin_static/event_form.js``
suggests names as they are typed, from REST's list."""
from urllib.parse import urlsplit

from pyramid.httpexceptions import HTTPForbidden, HTTPNotFound
from sqlalchemy import select

from storeplatform.api import POST_STATUSES as ALL_POST_STATUSES
from storeplatform.api import (InvalidParams, Post, PostTerm, Term, admin_redirect, admin_view, count_rows, deserialize,
                               form_values, get_by_id, id_in_range, is_digits, make_partial, once, refuse_form,
                               site_options, user_can)

from . import posts, queries, schemas
from .admin_events import EVENTS
from .models import CATEGORY_TAXONOMY, EVENT_STATUSES, EVENT_TYPE, EVENT_TYPES, ORGANIZER_TYPE, VENUE_TYPE, EventDetails
from .posts import EVENT, ORGANIZER, VENUE
from .serialize import NAMESPACE

FORM = "events/event_form.jinja2"
ONE = r"/{id:\d+}"
TEXT_FIELDS = ("title", "content", "excerpt", "start_date", "start_time", "end_date", "end_time", "timezone",
               "event_status", "event_type", "virtual_url", "status")
CHECKBOXES = ("all_day", "featured")
PLACES = {"venue_id": (VENUE, VENUE_TYPE, "new_venue"), "organizer_id": (ORGANIZER, ORGANIZER_TYPE, "new_organizer")}
NEW = "new"  # the choice of a place made on the spot, named in its own field
# Up to this many venues (organizers) the form lists them in a <select>; beyond, the field takes a
# name or an id (a page of thousands of options weighed 245 KB and grew with the site).
SELECT_LIMIT = 200
MATCHES_SHOWN = 10  # the places shown to choose from when a typed name matches several
FIND, PICK = "-find", "-pick"  # venue_id-find: the name or id typed; venue_id-pick: a match chosen
LIVE = tuple(status for status in ALL_POST_STATUSES if status != "trash")  # a place not trashed
POST_STATUSES = ("publish", "draft", "pending", "private")
LABELS = {"title": "Title", "content": "Description", "excerpt": "Summary", "start_date": "Starts on",
          "start_time": "at", "end_date": "Ends on", "end_time": "at", "timezone": "Time zone",
          "all_day": "All day", "venue_id": "Venue", "organizer_id": "Organizer", "capacity": "Capacity",
          "event_status": "Event status", "event_type": "Kind", "virtual_url": "Online at",
          "featured": "Featured", "categories": "Categories", "status": "Visibility"}


def typed_body(form, known_categories):
    """The form's fields as REST's JSON body would carry them: numbers as integers where the
    text is one (otherwise the text, which the schema refuses beside its field), checkboxes as
    booleans, the ticked categories as a list of ids."""
    body = {name: form[name].strip() for name in TEXT_FIELDS if name in form}
    for name in ("start_time", "end_time"):
        if body.get(name) == "":
            del body[name]  # as an empty date: REST's default (00:00, the day's end), or unchanged
    for name in CHECKBOXES:
        if name in form:
            body[name] = form[name] == "true"
    capacity = form.get("capacity", "").strip()
    if capacity or "capacity" in form:
        body["capacity"] = int(capacity) if is_digits(capacity) and len(capacity) <= 12 else (capacity or 0)
    for field in PLACES:
        value = form.get(field, "").strip()
        if field in form and value != NEW:
            body[field] = int(value) if is_digits(value) and len(value) <= 12 else (value or None)
    if "categories-sent" in form:
        body["categories"] = [term_id for term_id in known_categories if form.get(f"category-{term_id}") == "true"]
    return body


def validated(request, body, details=None):
    """``body`` checked as ``POST`` (or, for ``details``, ``PUT``) events/v1/events checks it."""
    db = request.db

    def date_order():
        dates = schemas.typed_dates(body)
        return {} if dates is None else posts.date_order_problems(db, details, dates)

    schema = schemas.EventBody() if details is None else make_partial(schemas.EventBody())
    bound = schema.bind(references=once(lambda: posts.reference_problems(db, body)), date_order=once(date_order))
    values = deserialize(bound, body)
    if values.get("status") in ("publish", "private") and not user_can(request, "publish_posts"):
        raise InvalidParams({"status": "you may save a draft or submit it for review; publishing is an editor's"})
    return values


def places_made_on_the_spot(request, form, body):
    """Make the venue and the organizer the form names as new (``{field: message}`` of those it
    cannot) and put their ids in ``body``."""
    problems = {}
    for field, (kind, _, name_field) in PLACES.items():
        if form.get(field, "").strip() != NEW:
            continue
        name = form.get(name_field, "").strip()
        if not name:
            problems[field] = f"name the new {kind.name}"
            continue
        try:
            values = deserialize(schemas.VenueBody() if kind is VENUE else schemas.OrganizerBody(), {"name": name})
        except InvalidParams as exc:
            problems[field] = exc.params.get("name", f"the new {kind.name} cannot be made")
            continue
        post, _ = posts.create(request.db, kind, values, author_id=request.identity.user.id, request=request)
        body[field] = post.id
    return problems


def place_id(text):
    """The id ``text`` is, or None (letters, or a number beyond the ids)."""
    return int(text) if is_digits(text) and len(text) <= 12 and id_in_range(int(text)) else None


def live_places(post_type):
    return select(Post.id, Post.title).where(Post.post_type == queries.constant(post_type),
                                             Post.status != queries.constant("trash"))


def found_places(db, post_type, text):
    """The places ``text`` names, ``MATCHES_SHOWN + 1`` at most: the one of that id; else those
    of that name (case aside); else those whose name contains it."""
    ident = place_id(text)
    if ident is not None:
        rows = db.execute(live_places(post_type).where(Post.id == ident)).all()
        if rows:
            return rows
    by_title = live_places(post_type).order_by(Post.title, Post.id).limit(MATCHES_SHOWN + 1)
    exact = queries.like_pattern(text)[1:-1]  # the name itself, its wildcards escaped
    return (db.execute(by_title.where(Post.title.ilike(exact, escape="\\"))).all()
            or db.execute(by_title.where(queries.ilike(Post.title, text))).all())


def places_found(request, form, body):
    """Resolve the places typed by name or id (the fields above ``SELECT_LIMIT``) into ``body``:
    ``({field: message}, {field: matches to choose from})`` of those that name no place or several."""
    db = request.db
    problems, matches = {}, {}
    for field, (kind, post_type, _) in PLACES.items():
        if field + FIND not in form or form.get(field, "").strip() == NEW:
            continue
        text = form[field + FIND].strip()
        picked = place_id(form.get(field + PICK, "").strip())
        kept = place_id(form.get(field, "").strip())
        if picked is not None:  # chosen among the matches shown (REST's check says if it is one)
            body[field] = picked
            continue
        if not text:
            body[field] = None
            continue
        if kept is not None:  # the place shown (or suggested) under its name: kept, even trashed since
            title = db.execute(select(Post.title).where(Post.id == kept, Post.post_type == post_type)).scalar()
            if title is not None and title.strip().casefold() == text.casefold():
                body[field] = kept
                continue
        rows = found_places(db, post_type, text)
        if len(rows) == 1:
            body[field] = rows[0].id
            continue
        body.pop(field, None)
        if rows:
            problems[field] = f"several {kind.name}s match “{text}”: choose one"
            matches[field] = rows
        else:
            problems[field] = f"no {kind.name} is named “{text}” or has that id"
    return problems, matches


def category_choices(db):
    return db.execute(select(Term.id, Term.name).where(Term.taxonomy == CATEGORY_TAXONOMY)
                      .order_by(Term.name)).all()


def place_choices(request, values, errors, matches):
    """Per place field: the <select>'s options (``("select", rows)``) when the places are
    ``SELECT_LIMIT`` at most (counted from the kept counts, not loaded), else the text field's
    state (``("find", {...})``: the id and the name shown, the matches of an ambiguous name)."""
    db = request.db
    shown, finders = {}, {}
    for field, (_, post_type, _) in PLACES.items():
        if count_rows(db, Post, post_type=post_type, status=LIVE) <= SELECT_LIMIT:
            shown[field] = ("select", db.execute(live_places(post_type).order_by(Post.title)).all())
        else:
            finders[field] = place_id(str(values.get(field) or "").strip()) if field not in errors else None
    known = [ident for ident in finders.values() if ident is not None]
    titles = dict(db.execute(select(Post.id, Post.title).where(Post.id.in_(known))).all()) if known else {}
    for field, ident in finders.items():
        found = matches.get(field, ())
        title = titles.get(ident)
        shown[field] = ("find", {
            "id": ident if title is not None else "",
            "find": title if title is not None else values.get(field + FIND, ""),
            "matches": found[:MATCHES_SHOWN], "more": len(found) > MATCHES_SHOWN,
            "suggest": urlsplit(request.rest_url(NAMESPACE, "/" + PLACES[field][0].collection)).path})
    return shown


def form_page(request, event, values, errors, matches=None):
    places = place_choices(request, values, errors, matches or {})
    return {"title": f"Edit {event.title}" if event else "New event", "event": event, "values": values,
            "errors": errors, "labels": LABELS, "venues": places["venue_id"], "organizers": places["organizer_id"],
            "categories": category_choices(request.db), "event_statuses": [(s, s) for s in EVENT_STATUSES],
            "event_types": [(t, t) for t in EVENT_TYPES],
            "post_statuses": POST_STATUSES, "can_publish": user_can(request, "publish_posts"),
            "site_timezone": site_options(request.db)["site.timezone"]}


def shown(post, details, category_ids):
    """What the form shows of a stored event."""
    values = {"title": post.title, "content": post.content, "excerpt": post.excerpt, "status": post.status,
              "categories": category_ids}
    for field in EVENT.fields:
        value = getattr(details, field)
        if field in ("start_date", "end_date"):
            value = value.isoformat() if value else ""
        values[field] = "" if value is None else value
    return values


def load(request):
    """The event of the URL (not a trashed one) that the user may edit, and its details."""
    post = get_by_id(request.db, Post, request.matchdict["id"])
    if post is None or post.post_type != EVENT_TYPE or post.status == "trash":
        raise HTTPNotFound()
    if not user_can(request, "edit_post", post):
        raise HTTPForbidden()
    return post, request.db.get(EventDetails, post.id)


def submitted(request):
    """(form, typed body, problems of the places typed or made on the spot, the matches of a
    place's name that names several) of a POST."""
    form = form_values(request)
    body = typed_body(form, [term_id for term_id, _ in category_choices(request.db)])
    problems, matches = places_found(request, form, body)
    return form, body, {**problems, **places_made_on_the_spot(request, form, body)}, matches


def shown_again(form, body):
    """The values a refused form is shown with: what was sent, as it was typed."""
    values = {**form, **{k: v for k, v in body.items() if k != "categories"}}
    values["categories"] = body.get("categories", [])
    for field in PLACES:
        if form.get(field, "").strip() == NEW:
            values[field] = NEW  # made on the spot and undone with the form: still to be made
    return values


@admin_view(EVENTS, path="/new", template=FORM, capability="edit_posts")
def new_event(request):
    options = site_options(request.db)
    return form_page(request, None, {"status": "publish" if user_can(request, "publish_posts") else "pending",
                                     "event_status": "scheduled", "event_type": "in-person",
                                     "start_date": queries.today(request.db).isoformat(), "start_time": "19:00",
                                     "timezone": options["site.timezone"], "categories": []}, {})


@admin_view(EVENTS, path="/new", request_method="POST", template=FORM, capability="edit_posts")
def create_event(request):
    form, body, problems, matches = submitted(request)
    try:
        values = validated(request, body)
        if problems:
            raise InvalidParams(problems)
        post, _ = posts.create(request.db, EVENT, values, author_id=request.identity.user.id, request=request)
    except InvalidParams as exc:
        refuse_form(request)
        return form_page(request, None, shown_again(form, body), {**problems, **exc.params}, matches)
    return admin_redirect(request, f"/events/{post.id}", notice=f"{post.title} created.")


@admin_view(EVENTS, path=ONE + "/edit", template=FORM, capability="edit_posts")
def edit_event(request):
    post, details = load(request)
    category_ids = set(request.db.execute(select(PostTerm.term_id).where(
        PostTerm.post_id == post.id)).scalars())
    return form_page(request, post, shown(post, details, category_ids), {})


@admin_view(EVENTS, path=ONE + "/edit", request_method="POST", template=FORM, capability="edit_posts")
def save_event(request):
    post, details = load(request)
    form, body, problems, matches = submitted(request)
    if body.get("status") == post.status:
        body.pop("status")  # unchanged: an author who may not publish can still edit a published event
    try:
        values = validated(request, body, details)
        if problems:
            raise InvalidParams(problems)
        posts.update(request.db, EVENT, post, details, values, request=request)
    except InvalidParams as exc:
        refuse_form(request)
        return form_page(request, post, {**shown(post, details, []), **shown_again(form, body)},
                         {**problems, **exc.params}, matches)
    return admin_redirect(request, f"/events/{post.id}", notice=f"{post.title} saved.")


@admin_view(EVENTS, path=ONE + "/trash", request_method="POST", capability="delete_posts")
def trash_event(request):
    post, _ = load(request)
    if not user_can(request, "delete_post", post):
        raise HTTPForbidden()
    posts.remove(request.db, EVENT, post, force=False)
    return admin_redirect(request, "/events", notice=f"{post.title} moved to the trash.")

