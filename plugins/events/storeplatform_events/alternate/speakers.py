"""Speakers (the alternate variant only): host posts of type ``evt_speaker`` with their own
fields, the same rules as venues and organizers plus a post status (published ones are
public)."""
from sqlalchemy import or_, select
from sqlalchemy.orm import lazyload

from storeplatform.api import Post, paginate, site_timezone

from ..models import SpeakerDetails
from ..posts import SPEAKER
from ..queries import ilike
from . import renames, schemas
from .errors import SPEAKER_INVALID_ID
from .items import item_services
from .serialize import speaker_json


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


def list_speakers(request):
    tz = site_timezone(request.db)
    rows = paginate(request, list_stmt(request.validated))
    return [speaker_json(request, post, details, tz) for post, details in rows]


speakers, speaker = item_services(
    SPEAKER, schemas.SpeakerBody, serializer,
    (list_speakers, {"query": schemas.SpeakerListQuery(), "cache": "public"}), renames.SPEAKER,
    not_found=SPEAKER_INVALID_ID, descriptions=("Speakers (published ones are public).", "One speaker."))
