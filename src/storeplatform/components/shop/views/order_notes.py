"""store/v1 order notes (manage_shop, as the orders): an order's history and what people wrote,
in WooCommerce's shape (REST API v3 order notes): list, create, read, delete."""
from datetime import timezone

from sqlalchemy import select

from storeplatform.core.options import site_timezone
from storeplatform.core.rest import Service, paginate
from storeplatform.core.values import id_in_range
from ..content import local_datetime
from ..errors import ORDER_INVALID_ID, ORDER_NOTE_INVALID_ID
from ..models import Order
from ..order_history_schemas import NoteBody, NoteListQuery
from ..order_notes import ACTING, add_order_note, delete_order_note, note_of, notes_select

notes = Service("store/v1", r"/orders/{id:\d+}/notes", name="order-notes",
                description="Notes of a store order: its history (status changes, refunds, documents) and what "
                            "people wrote.")
note = Service("store/v1", r"/orders/{id:\d+}/notes/{note_id:\d+}", name="order-note",
               description="One note of a store order.")


def note_json(request, item, tz):
    path = f"/orders/{item.order_id}/notes"
    return {
        "id": item.id,
        "author": item.author,
        "date_created": local_datetime(item.created_at, tz),
        "date_created_gmt": local_datetime(item.created_at, timezone.utc),
        "note": item.note,
        "customer_note": item.customer_note,
        "added_by_user": item.added_by_user,
        "_links": {"self": [{"href": request.rest_url("store/v1", f"{path}/{item.id}")}],
                   "collection": [{"href": request.rest_url("store/v1", path)}],
                   "up": [{"href": request.rest_url("store/v1", f"/orders/{item.order_id}")}]},
    }


def order_id_or_404(request):
    """The path's order id, or the orders' own 404 when there is no such order (its lines are
    not read: a note needs only the id)."""
    order_id = request.validated["id"]
    if not id_in_range(order_id) or request.db.execute(select(Order.id).where(Order.id == order_id)).first() is None:
        raise ORDER_INVALID_ID()
    return order_id


def _note(request):
    item = note_of(request.db, order_id_or_404(request), request.validated["note_id"])
    if item is None:
        raise ORDER_NOTE_INVALID_ID()
    return item


# Notes are read where the orders are (an accounting tool, a box office): cached as the orders.

@notes.get(permission="manage_shop", query=NoteListQuery(), cache="public")
def list_notes(request):
    order_id = order_id_or_404(request)
    tz = site_timezone(request.db)
    return [note_json(request, item, tz)
            for item in paginate(request, notes_select(order_id, request.validated["type"]))]


@notes.post(permission="manage_shop", body=NoteBody())
def post_note(request):
    v = request.validated
    # WooCommerce's added_by_user: true names the caller as the author, false the system.
    item = add_order_note(request.db, order_id_or_404(request), v["note"], customer_note=v["customer_note"],
                          added_by_user=v["added_by_user"], user=ACTING if v["added_by_user"] else None)
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url("store/v1", f"/orders/{item.order_id}/notes/{item.id}")
    return note_json(request, item, site_timezone(request.db))


@note.get(permission="manage_shop", cache="public")
def get_note(request):
    return note_json(request, _note(request), site_timezone(request.db))


@note.delete(permission="manage_shop")
def remove_note(request):
    item = _note(request)
    previous = note_json(request, item, site_timezone(request.db))
    delete_order_note(request.db, item)
    return {"deleted": True, "previous": previous}
