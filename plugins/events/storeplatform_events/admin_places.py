"""Venues and organizers in the admin (``manage_shop`` to read, ``edit_posts`` to change, as
REST): the list (search, paging, events per place), make, edit and move to the trash. The
list reads REST's statement (``queries.place_list_stmt``); forms are checked by REST's schemas
and saved by ``posts`` (the same actions and webhooks)."""
from pyramid.httpexceptions import HTTPForbidden, HTTPNotFound

from storeplatform.api import (AdminPage, InvalidParams, Post, admin_redirect, admin_view, deserialize, form_values,
                               get_by_id, is_digits, list_query, make_partial, page_of, refuse_form, user_can)

from . import posts, queries, schemas
from .models import EventDetails
from .posts import ORGANIZER, VENUE

VENUES = AdminPage("venues", "Venues", "/venues", "manage_shop", order=31, section="Events")
ORGANIZERS = AdminPage("organizers", "Organizers", "/organizers", "manage_shop", order=32, section="Events")
ONE = r"/{id:\d+}"
LIST, FORM = "events/places.jinja2", "events/place_form.jinja2"
LABELS = {"name": "Name", "address": "Address", "city": "City", "state": "State or region", "country": "Country",
          "postal": "Postal code", "capacity": "Capacity", "phone": "Phone", "email": "E-mail", "website": "Website",
          "facebook": "Facebook", "twitter": "Twitter", "linkedin": "LinkedIn"}
KINDS = {VENUE: (VENUES, schemas.VenueBody, EventDetails.venue_id, "venue"),
         ORGANIZER: (ORGANIZERS, schemas.OrganizerBody, EventDetails.organizer_id, "organizer")}


def _listing(request, kind):
    page, _, column, noun = KINDS[kind]
    query = list_query(request, dates=False)
    wanted = {"search": query.search, "orderby": "title", "order": "ASC"}
    pager = page_of(request, query, queries.place_list_stmt(kind, wanted), total=queries.place_total(request.db, kind, wanted))
    counts = queries.event_counts(request.db, column, [post.id for post, _ in pager.rows])
    return {"title": page.title, "noun": noun, "base": page.path, "pager": pager, "query": query, "counts": counts,
            "can_edit": user_can(request, "edit_posts")}


def _load(request, kind):
    post = get_by_id(request.db, Post, request.matchdict["id"])
    if post is None or post.post_type != kind.post_type or post.status == "trash":
        raise HTTPNotFound()
    if not user_can(request, "edit_post", post):
        raise HTTPForbidden()
    return post, request.db.get(kind.model, post.id)


def _typed(form, kind):
    """The form's fields as REST's body carries them (capacity a number where it is one)."""
    body = {name: form[name].strip() for name in (kind.title_field, *kind.fields) if name in form}
    if "capacity" in body:
        text = body["capacity"] or "0"
        body["capacity"] = int(text) if is_digits(text) and len(text) <= 12 else text
    return body


def _form_page(kind, post, values, errors):
    page, _, _, noun = KINDS[kind]
    return {"title": f"Edit {post.title}" if post else f"New {noun}", "noun": noun, "base": page.path, "post": post,
            "fields": (kind.title_field, *kind.fields), "labels": LABELS, "values": values, "errors": errors}


def _shown(kind, post, details):
    values = {kind.title_field: post.title}
    for field in kind.fields:
        value = getattr(details, field)
        values[field] = "" if value is None else value
    return values


def _create(request, kind):
    form = form_values(request)
    body = _typed(form, kind)
    try:
        values = deserialize(KINDS[kind][1](), body)
        post, _ = posts.create(request.db, kind, values, author_id=request.identity.user.id, request=request)
    except InvalidParams as exc:
        refuse_form(request)
        return _form_page(kind, None, form, exc.params)
    return admin_redirect(request, KINDS[kind][0].path, notice=f"{post.title} created.")


def _save(request, kind):
    post, details = _load(request, kind)
    form = form_values(request)
    try:
        values = deserialize(make_partial(KINDS[kind][1]()), _typed(form, kind))
        posts.update(request.db, kind, post, details, values, request=request)
    except InvalidParams as exc:
        refuse_form(request)
        return _form_page(kind, post, {**_shown(kind, post, details), **form}, exc.params)
    return admin_redirect(request, KINDS[kind][0].path, notice=f"{post.title} saved.")


def _trash(request, kind):
    post, _ = _load(request, kind)
    if not user_can(request, "delete_post", post):
        raise HTTPForbidden()
    posts.remove(request.db, kind, post, force=False)
    return admin_redirect(request, KINDS[kind][0].path, notice=f"{post.title} moved to the trash.")


def _kind(request):
    """Venues' or organizers' (one view serves the same action of both pages): by the page's path."""
    return VENUE if request.path_info.split("/")[2] == VENUES.path.strip("/") else ORGANIZER


@admin_view(VENUES, template=LIST)
@admin_view(ORGANIZERS, template=LIST)
def list_places(request):
    return _listing(request, _kind(request))


@admin_view(VENUES, path="/new", template=FORM, capability="edit_posts")
@admin_view(ORGANIZERS, path="/new", template=FORM, capability="edit_posts")
def new_place(request):
    return _form_page(_kind(request), None, {}, {})


@admin_view(VENUES, path="/new", request_method="POST", template=FORM, capability="edit_posts")
@admin_view(ORGANIZERS, path="/new", request_method="POST", template=FORM, capability="edit_posts")
def create_place(request):
    return _create(request, _kind(request))


@admin_view(VENUES, path=ONE, template=FORM, capability="edit_posts")
@admin_view(ORGANIZERS, path=ONE, template=FORM, capability="edit_posts")
def edit_place(request):
    kind = _kind(request)
    post, details = _load(request, kind)
    return _form_page(kind, post, _shown(kind, post, details), {})


@admin_view(VENUES, path=ONE, request_method="POST", template=FORM, capability="edit_posts")
@admin_view(ORGANIZERS, path=ONE, request_method="POST", template=FORM, capability="edit_posts")
def save_place(request):
    return _save(request, _kind(request))


@admin_view(VENUES, path=ONE + "/trash", request_method="POST", capability="delete_posts")
@admin_view(ORGANIZERS, path=ONE + "/trash", request_method="POST", capability="delete_posts")
def trash_place(request):
    return _trash(request, _kind(request))
