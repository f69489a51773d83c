"""Colander schemas of the alternate variant, derived from the standard ones: the same nodes
(types, validators, descriptions) under the variant's names (``renames.py``), and the few
parameters and the speaker body that only the variant has."""
import colander

from storeplatform.api import (POSITIVE_ID, PaginationSchema, StrictInt, StrictString, not_blank, url_or_empty,
                               valid_email)

from .. import schemas as standard
from . import renames


def derived(name, source, renamed=renames.SAME, keep=None, drop=(), described=None, **added):
    """The schema class ``name`` of the variant, made from the standard schema class ``source``: clones of its
    own nodes (``keep``: only these; ``drop``: all but these, by standard name) under the names
    ``renamed`` gives, with the descriptions ``described`` gives (by variant name), then the nodes
    ``added``. Nodes of ``source``'s base (the page parameters) come with the base."""
    described = described or {}
    attributes = {}
    for node in source.__class_schema_nodes__:
        if (keep is not None and node.name not in keep) or node.name in drop:
            continue
        clone = node.clone()
        clone.name = renamed.names.get(node.name, node.name)
        if clone.raw_title is colander._marker:
            # The class statement titles a node by its name: the variant's.
            clone.title = clone.name.replace("_", " ").title()
        if clone.name in described:
            clone.description = described[clone.name]
        attributes[clone.name] = clone
    for added_name, node in added.items():
        node.name = added_name
        attributes[added_name] = node
    return type(name, source.__bases__, attributes)


def node_of(source, name, description):
    """A clone of the node ``name`` of the standard schema class ``source``, described anew."""
    clone = next(node for node in source.__class_schema_nodes__ if node.name == name).clone()
    clone.description = description
    return clone


def id_parameter(description):
    # The variant's id parameters are bounded ids (an id beyond the columns is refused as a
    # parameter), where the standard's category is an id or a slug.
    return colander.SchemaNode(StrictInt(), missing=colander.drop, validator=POSITIVE_ID, description=description)


EventBody = derived("EventBody", standard.EventBody, renames.EVENT, drop=("status",), described={
    "status": "Event status (scheduled by default).", "type": "Event type (in-person by default)."})
VenueBody = derived("VenueBody", standard.VenueBody, renames.VENUE)

EventListQuery = derived(
    "EventListQuery", standard.EventListQuery, renames.Renames({"start_after": "after", "start_before": "before"}),
    keep=("search", "status", "start_after", "start_before"),
    described={"search": "Matches title, description and excerpt."},
    type=node_of(standard.EventBody, "event_type", "Event type."), category=id_parameter("Category id."))
AttendeeListQuery = derived("AttendeeListQuery", standard.AttendeeListQuery, keep=("status", "search"),
                            described={"search": "Matches the name (first, last or both) or the email."},
                            event_id=id_parameter("Event id."))
CalendarQuery = derived("CalendarQuery", standard.MonthQuery, drop=("category",), category=id_parameter("Category id."))


class SpeakerBody(colander.MappingSchema):
    name = colander.SchemaNode(StrictString(), validator=not_blank, description="Speaker name.")
    slug = standard.text_field("slug", "URL slug; made from the name when empty.")
    status = colander.SchemaNode(StrictString(), missing=colander.drop,
                                 validator=colander.OneOf(standard.WRITABLE_STATUSES),
                                 description="Post status (publish by default on create).")
    bio = standard.text_field("bio", "Biography, HTML allowed.")
    job_title = standard.text_field("job_title", max_length=200)
    company = standard.text_field("company", max_length=200)
    email = standard.text_field("email", max_length=200, validator=valid_email)
    website = standard.text_field("website", validator=url_or_empty)
    photo = standard.text_field("photo", "URL of a photo.", validator=url_or_empty)


class SpeakerListQuery(PaginationSchema):
    search = standard.text_field("search", "Matches the name, job title and company.")
