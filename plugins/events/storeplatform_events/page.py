"""The platform's own public page of a published event, at ``/events/<slug>/`` (the permalink
when ``events.permalink_base`` is empty): title, dates and times, venue, description, and the
schema.org ``Event`` as JSON-LD for search engines. Anything not published is 404."""
import html
import json
import re

from pyramid.httpexceptions import HTTPNotFound
from pyramid.response import Response
from sqlalchemy import select
from sqlalchemy.orm import aliased

from storeplatform.api import Post

from .models import EVENT_TYPE, EventDetails, VenueDetails

STATUS_URLS = {"scheduled": "EventScheduled", "cancelled": "EventCancelled", "postponed": "EventPostponed",
               "rescheduled": "EventRescheduled"}


def _text(content):
    """The description as text: the page shows no HTML it did not write (nothing to sanitize)."""
    return html.unescape(re.sub(r"<[^>]*>", " ", content or "")).strip()


def event_page(request):
    venue_post = aliased(Post)
    row = request.db.execute(
        select(Post, EventDetails, venue_post.title, VenueDetails)
        .join(EventDetails, EventDetails.post_id == Post.id)
        .outerjoin(venue_post, (venue_post.id == EventDetails.venue_id) & (venue_post.status == "publish"))
        .outerjoin(VenueDetails, VenueDetails.post_id == venue_post.id)
        .where(Post.post_type == EVENT_TYPE, Post.status == "publish", Post.slug == request.matchdict["slug"])
    ).first()
    if row is None:
        raise HTTPNotFound()
    post, details, venue_name, venue = row
    start = f"{details.start_date.isoformat()}T{details.start_time}"
    end = f"{details.end_date.isoformat()}T{details.end_time}"
    when = (f"{details.start_date.isoformat()}" if details.all_day else f"{details.start_date.isoformat()} "
            f"{details.start_time}") + (f" - {details.end_date.isoformat()}" if details.all_day else
                                         f" - {details.end_date.isoformat()} {details.end_time}")
    data = {"@context": "https://schema.org", "@type": "Event", "name": post.title,
            "startDate": details.start_date.isoformat() if details.all_day else start,
            "endDate": details.end_date.isoformat() if details.all_day else end,
            "eventStatus": f"https://schema.org/{STATUS_URLS.get(details.event_status, 'EventScheduled')}",
            "description": post.excerpt or "", "url": request.url}
    if venue_name:
        data["location"] = {"@type": "Place", "name": venue_name, "address": {
            "@type": "PostalAddress", "streetAddress": venue.address, "addressLocality": venue.city,
            "postalCode": venue.postal, "addressCountry": venue.country}}
    # Inside <script>, "</" would end the element: JSON allows writing < as \\u003c.
    json_ld = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    e = html.escape
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(post.title)}</title>
<script type="application/ld+json">{json_ld}</script></head>
<body><main><h1>{e(post.title)}</h1>
<p class="when">{e(when)} ({e(details.timezone)})</p>
{f'<p class="venue">{e(venue_name)}</p>' if venue_name else ''}
<div class="description">{e(_text(post.content))}</div></main></body></html>
"""
    return Response(body=body.encode("utf-8"), content_type="text/html", charset="utf-8")


def includeme(config):
    config.add_route("evt-page", "/events/{slug}/", request_method="GET")
    config.add_view(event_page, route_name="evt-page")
