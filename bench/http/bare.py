"""The bare side of the HTTP bench: a plain Pyramid app that answers each measured route with
the very bytes and headers the platform answered when the bench sampled it, and renders the
same reportlab platypus document for the regenerate route. No database, no authentication,
no validation: what is left is Pyramid and the server, on the same gunicorn settings.

Served by ``pserve bare.ini`` with ``use = call:bare:make_app`` and ``answers = FILE`` (the JSON
file ``run.py`` writes). A route recorded with ``if_none_match`` (the revalidation row: the same
path as another route, answered 304) is matched first, by that header, and answers its 304 as
ours did: no body.

For floors.py, a route may name a ``floor``: database work the view does before it answers, the
least that any exact answer of ours must do, on libpq itself with nothing of ours around it
(``database_url`` names the database):
- ``state``: the site-state statement every request of ours runs (prepared, autocommit): the
  one round trip that keeps every cache exact;
- ``checkin``: a check-in's conditional UPDATE ... RETURNING of the ticket code in the request's
  body, autocommit (one round trip and its commit's flush); a ticket that does not move fails
  the request.
"""
import base64
import json
from datetime import datetime
from decimal import Decimal
from types import SimpleNamespace

from pyramid.config import Configurator
from pyramid.response import Response


def _canned(answer):
    body = base64.b64decode(answer["body"])
    headers = [(k, v) for k, v in answer["headers"]]
    if answer["status"] == 304:  # no body, no Content-Length, as ours
        def view(request):
            return Response(status=answer["status"], headerlist=list(headers))
        return view

    def view(request):
        return Response(body=body, status=answer["status"], headerlist=list(headers))
    return view


def _rendering(answer, document):
    """Render the captured document with the same platypus story each time, then answer the
    captured metadata bytes."""
    from storeplatform_invoicing.fonts import bundled_fonts
    from storeplatform_invoicing.pdf import _build

    body = base64.b64decode(answer["body"])
    headers = [(k, v) for k, v in answer["headers"]]
    order = SimpleNamespace(number=document["order"]["number"], billing=document["order"]["billing"],
                            total=Decimal(document["order"]["total"]),
                            line_items=[SimpleNamespace(name=li["name"], quantity=li["quantity"],
                                                        unit_price=Decimal(li["unit_price"]),
                                                        total=Decimal(li["total"]))
                                        for li in document["order"]["line_items"]])
    doc = SimpleNamespace(document_type=document["type"], display_number=document["display_number"])
    generated = datetime.fromisoformat(document["generated"])
    created = datetime.fromisoformat(document["created"])
    options, fmt = document["options"], document["format"]

    def view(request):
        regular, bold = bundled_fonts()
        pdf = _build(order, doc, generated, created, options, fmt, regular, bold, ())
        if not pdf.startswith(b"%PDF"):
            raise RuntimeError("no PDF")
        return Response(body=body, status=answer["status"], headerlist=list(headers))
    return view


_CHECK_IN = (b"UPDATE evt_attendees SET status = 'checked_in', checked_in_at = now(), checked_out_at = NULL, "
             b"modified_at = now() WHERE ticket_code = $1 AND status IN ('active', 'checked_out') "
             b"RETURNING *, (SELECT title FROM posts WHERE posts.id = evt_attendees.event_id)")


class _Floor:
    """A floor's statement on one libpq connection per process (opened after gunicorn forks)."""

    def __init__(self, kind, database_url):
        from storeplatform.core.db.generations import _STATE_PREPARED_TEXT  # the very statement of ours

        self.kind, self.url = kind, database_url
        self.text = _STATE_PREPARED_TEXT if kind == "state" else _CHECK_IN
        self.pgconn = None

    def __call__(self, request):
        from psycopg.pq import ExecStatus

        if self.pgconn is None:
            import psycopg

            connection = psycopg.connect(self.url, autocommit=True)
            # As ours, the statement names the options' generation the process keeps: no option row
            # comes back while none changes.
            kept = connection.execute("SELECT value FROM generations WHERE name = 'options'").fetchone()
            self.kept = b"%d" % (kept[0] if kept else -1)
            self.pgconn = connection.pgconn
            self.pgconn.prepare(b"floor", self.text)
        if self.kind == "transaction":
            return self._in_transaction(json.loads(request.body)["ticket_code"].encode())
        parameter = self.kept if self.kind == "state" else json.loads(request.body)["ticket_code"].encode()
        result = self.pgconn.exec_prepared(b"floor", [parameter])
        if result.status != ExecStatus.TUPLES_OK or (self.kind == "checkin" and result.ntuples != 1):
            raise RuntimeError(f"floor {self.kind}: {result.status} {result.ntuples} rows")

    def _in_transaction(self, code):
        """A check-in as ours makes it: BEGIN and the site-state statement in one pipeline (our
        own function for it, which prepares the statement the first time), the UPDATE, the
        COMMIT: three round trips, nothing else of ours around them."""
        from psycopg.pq import ExecStatus

        from storeplatform.core.db.generations import _begin_with_state

        state = _begin_with_state(self.pgconn, [self.kept], True)
        moved = self.pgconn.exec_prepared(b"floor", [code])
        committed = self.pgconn.exec_(b"COMMIT")
        if state.status != ExecStatus.TUPLES_OK or moved.ntuples != 1 or committed.status != ExecStatus.COMMAND_OK:
            raise RuntimeError(f"floor transaction: {state.status} {moved.status} {moved.ntuples} {committed.status}")


def _with_floor(view, floor):
    def floored(request):
        floor(request)
        return view(request)
    return floored


def make_app(global_conf, answers, database_url=None, **settings):
    with open(answers, encoding="utf-8") as f:
        recorded = json.load(f)
    config = Configurator()
    # Routes are tried in the order they are added: the conditional ones first.
    ordered = sorted(enumerate(recorded["routes"]), key=lambda item: not item[1].get("if_none_match"))
    for n, route in ordered:
        name = f"r{n}"
        predicates = {"header": "If-None-Match"} if route.get("if_none_match") else {}
        config.add_route(name, route["path"], request_method=route["method"], **predicates)
        document = route.get("render")
        view = _rendering(route["answer"], document) if document else _canned(route["answer"])
        if route.get("floor"):
            view = _with_floor(view, _Floor(route["floor"], database_url))
        config.add_view(view, route_name=name)
    return config.make_wsgi_app()
