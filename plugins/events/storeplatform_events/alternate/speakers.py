"""Speakers (the alternate variant only): host posts of type ``evt_speaker`` with their own
fields, the same rules as venues and organizers plus a post status (published ones are
public)."""
from sqlalchemy import or_, select
from sqlalchemy.orm import lazyload

from storeplatform.api import Post, Service, make_partial, paginate, site_timezone

from ..models import SpeakerDetails
from ..posts import SPEAKER
from ..queries import ilike
from ..schemas import DeleteQuery
from ..views import posts as standard
from . import schemas
from .errors import SPEAKER_INVALID_ID
from .items import (
    DELETE_POST,
    EDIT_POST,
    PUBLIC_OR_READ_POST,
    create,
    may_create,
    renamed,
)
from .serialize import speaker_json

DOMAIN_NAMES = {"bio": "content"}

speakers = Service("events/v1", "/speakers", name="speakers", description="Speakers (published ones are public).")
speaker = Service("events/v1", r"/speakers/{id:\d+}", name="speaker", description="One speaker.")


def serializer(request, kind, post, details, tz, embed=False):
    return speaker_json(request, post, details, tz)


def list_stmt(v):
    stmt = (select(Post, SpeakerDetails).join(SpeakerDetails, SpeakerDetails.post_id == Post.id)
            .where(Post.post_type == SPEAKER.post_type, Post.status == "publish").options(lazyload(Post.terms)))
    if v.get("search"):
        s = v["search"]
        stmt = stmt.where(or_(ilike(Post.title, s), ilike(SpeakerDetails.job_title, s),
                              ilike(SpeakerDetails.company, s)))
    return stmt.order_by(Post.title, Post.id)


@speakers.get(query=schemas.SpeakerListQuery())
def list_speakers(request):
    tz = site_timezone(request.db)
    rows = paginate(request, list_stmt(request.validated), generation="content")
    return [speaker_json(request, post, details, tz) for post, details in rows]


@speakers.post(permission=may_create, permission_description="edit_posts", body=schemas.SpeakerBody())
def create_speaker(request):
    return create(request, SPEAKER, renamed(request.validated, DOMAIN_NAMES), serializer)


@speaker.get(permission_description=PUBLIC_OR_READ_POST)
def get_speaker(request):
    return standard.get_item(request, SPEAKER, serializer, SPEAKER_INVALID_ID)


@speaker.put(permission="edit_posts", body=make_partial(schemas.SpeakerBody()), permission_description=EDIT_POST)
def update_speaker(request):
    return standard.update_item(request, SPEAKER, renamed(request.validated, DOMAIN_NAMES), serializer,
                                SPEAKER_INVALID_ID)


@speaker.delete(permission="delete_posts", query=DeleteQuery(), permission_description=DELETE_POST)
def delete_speaker(request):
    return standard.delete_item(request, SPEAKER, serializer, SPEAKER_INVALID_ID)
