"""The invoicing plugin's panel of the admin dashboard (``storeplatform_admin_dashboard_panels``,
``manage_shop`` as the invoices page): the documents numbered but still waiting for their PDF
(a worker renders each after the commit that numbered it; a sweep re-queues those whose hand-off
was lost), read through the partial index of the waiting ones: two statements, whatever the
number of documents the site has made."""
from sqlalchemy import func, select

from storeplatform.api import admin_url, site_timezone, user_can, utcnow

from .models import Document

OLDEST_SHOWN = 5
# Counted up to this many (a queue longer than that is "more than 1,000": the exact figure
# would cost a walk of all of it).
COUNT_CAP = 1000
# Waiting longer than this is more than a busy worker: the sweep's delay (documents.py).
LATE_MINUTES = 5


def waiting_documents(session, shown=OLDEST_SHOWN, cap=COUNT_CAP):
    """(count up to ``cap`` + 1, the ``shown`` oldest waiting documents)."""
    waiting = Document.generated_at.is_(None)
    capped = select(Document.id).where(waiting).limit(cap + 1).subquery()
    count = session.execute(select(func.count()).select_from(capped)).scalar_one()
    oldest = session.execute(
        select(Document.id, Document.order_id, Document.document_type, Document.display_number, Document.created_at)
        .where(waiting).order_by(Document.created_at, Document.id).limit(shown)).all() if count else []
    return count, oldest


def dashboard_panels(request):
    if not user_can(request, "manage_shop"):
        return None
    session = request.db
    count, oldest = waiting_documents(session)
    tz = site_timezone(session)
    now = utcnow()
    documents = [{
        "id": d.id, "order_id": d.order_id, "type": d.document_type.replace("-", " "), "number": d.display_number,
        "since": d.created_at.astimezone(tz).strftime("%Y-%m-%d %H:%M"),
        "late": (now - d.created_at).total_seconds() > LATE_MINUTES * 60,
    } for d in oldest]
    return [{"name": "documents", "title": "Documents waiting for their PDF",
             "template": "invoicing/dashboard_documents.jinja2", "order": 40,
             "values": {"count": min(count, COUNT_CAP), "more": count > COUNT_CAP, "documents": documents,
                        "late": any(d["late"] for d in documents), "late_minutes": LATE_MINUTES,
                        "invoices_url": admin_url(request, "/invoices")}}]
