"""Colander schemas of the webhook routes (validation and the schema index)."""
import colander

from storeplatform.api import PaginationSchema, StrictString, make_partial, not_blank

from .models import WEBHOOK_STATUSES
from .targets import url_problem
from .topics import TOPICS

MAX_NAME = 200
MAX_SECRET = 255


@colander.deferred
def allowed_url(node, kw):
    """A URL the site may deliver to (``policy``: the site's webhook settings, which the views
    bind), checked beside the other fields so that every bad parameter is reported at once."""
    policy = kw["policy"]

    def validate(field, value):
        problem = url_problem(value.strip(), policy)
        if problem:
            raise colander.Invalid(field, f"url {problem}")

    return validate


class WebhookBody(colander.MappingSchema):
    name = colander.SchemaNode(StrictString(), validator=colander.All(colander.Length(max=MAX_NAME), not_blank),
                               description="Reference name.")
    url = colander.SchemaNode(StrictString(), validator=allowed_url,
                              description="Delivery URL (http or https; HTTPS advised).")
    topic = colander.SchemaNode(StrictString(), validator=colander.OneOf(list(TOPICS)),
                                description="Exactly one topic (see GET /webhooks/topics).")
    secret = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.Length(max=MAX_SECRET),
                                 description="Signing secret; empty or omitted: a random 32-character value.")
    status = colander.SchemaNode(StrictString(), missing="active", validator=colander.OneOf(WEBHOOK_STATUSES),
                                 description="active (default), paused or disabled.")


def webhook_update():
    """PUT: only the sent fields change."""
    return make_partial(WebhookBody())


class WebhookListQuery(PaginationSchema):
    status = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(WEBHOOK_STATUSES),
                                 description="Only webhooks with this status.")
    topic = colander.SchemaNode(StrictString(), missing=colander.drop, validator=colander.OneOf(list(TOPICS)),
                                description="Only webhooks of this topic.")
    search = colander.SchemaNode(StrictString(), missing=colander.drop,
                                 description="Part of the name or the URL.")
