"""audit/v1: the audit log over REST, for whoever may read it (``view_audit_log``): the entries,
newest first, filtered by who acted, kind, action and local days, paged as every list is
(``X-Total``, ``X-TotalPages``, ``Link``); one entry by its id."""
import colander

from storeplatform.core.db import get_by_id
from storeplatform.core.errors import ErrorCode, InvalidParams
from storeplatform.core.options import site_timezone
from storeplatform.core.rest import PaginationSchema, Service, paginate
from storeplatform.core.rest.types import POSITIVE_ID, DateText, StrictInt, StrictString

from .entries import day_problem, entries_select, entry_conditions, utc_bounds
from .hooks import CAPABILITY
from .models import AuditEntry

NAMESPACE = "audit/v1"
ENTRY_NOT_FOUND = ErrorCode(404, "audit_entry_invalid_id", "There is no audit log entry with this id.")

entries = Service(NAMESPACE, "/entries", name="entries",
                  description="The audit log: who changed what, when, from which address; newest first.")
entry = Service(NAMESPACE, r"/entries/{id:\d+}", name="entry", description="One entry of the audit log.")

ENTRY_SHAPE = {"id": "integer", "date": "date-time (UTC)",
               "user_id": "integer or null (null: cli, system or anonymous)",
               "user": "string (the login as it was; cli, system or anonymous)",
               "address": "string or null (the client's; null outside a request)",
               "kind": "string (users, credentials, settings, webhooks, plugin:<name>...)",
               "action": "string", "subject": "string", "details": "object", "_links": "object"}


def _day(node, value):
    problem = day_problem(value)
    if problem:
        raise colander.Invalid(node, problem)


def _name(length):
    # Empty is no filter, as an empty field of the admin's form is.
    return colander.Length(max=length)


class EntryListQuery(PaginationSchema):
    user = colander.SchemaNode(StrictString(), missing=colander.drop, validator=_name(191),
                               description="Only the changes of this login (as recorded), or cli, system, anonymous.")
    user_id = colander.SchemaNode(StrictInt(), missing=colander.drop, validator=POSITIVE_ID,
                                  description="Only the changes of the user with this id.")
    kind = colander.SchemaNode(StrictString(), missing=colander.drop, validator=_name(64),
                               description="Only entries of this kind (users, credentials, settings, webhooks...).")
    action = colander.SchemaNode(StrictString(), missing=colander.drop, validator=_name(64),
                                 description="Only entries of this action (created, role_changed, changed...).")
    since = colander.SchemaNode(DateText(), missing=colander.drop, validator=_day,
                                description="First day, YYYY-MM-DD in the site's time zone.")
    until = colander.SchemaNode(DateText(), missing=colander.drop, validator=_day,
                                description="Last day (included), YYYY-MM-DD in the site's time zone.")


def entry_json(request, item):
    return {"id": item.id, "date": item.created_at.isoformat(), "user_id": item.actor_id, "user": item.actor_login,
            "address": item.address, "kind": item.kind, "action": item.action, "subject": item.subject,
            "details": item.details,
            "_links": {"self": [{"href": request.rest_url(NAMESPACE, f"/entries/{item.id}")}]}}


@entries.get(permission=CAPABILITY, query=EntryListQuery(), response=[ENTRY_SHAPE])
def list_entries(request):
    v = request.validated
    if "since" in v and "until" in v and v["since"] > v["until"]:
        raise InvalidParams({"until": "must not be before since"})
    start, end = utc_bounds(site_timezone(request.db), v.get("since"), v.get("until"))
    conditions = entry_conditions(user=v.get("user"), user_id=v.get("user_id"), kind=v.get("kind"),
                                  action=v.get("action"), start=start, end=end)
    return [entry_json(request, item) for item in paginate(request, entries_select(conditions))]


@entry.get(permission=CAPABILITY, response=ENTRY_SHAPE)
def get_entry(request):
    item = get_by_id(request.db, AuditEntry, request.validated["id"])
    if item is None:
        raise ENTRY_NOT_FOUND()
    return entry_json(request, item)
