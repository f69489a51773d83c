"""Colander schemas of the webhook routes (validation and the schema index)."""
import colander

from storeplatform.api import PaginationSchema, StrictString, make_partial, not_blank

from .models import WEBHOOK_STATUSES
from .topics import TOPICS

MAX_NAME = 200
MAX_SECRET = 255


class WebhookBody(colander.MappingSchema):
    name = colander.SchemaNode(StrictString(), validator=colander.All(colander.Length(max=MAX_NAME), not_blank),
                               description="Reference name.")
    url = colander.SchemaNode(StrictString(), description="Delivery URL (http or https; HTTPS advised).")
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
