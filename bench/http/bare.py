"""The bare side of the HTTP bench: a plain Pyramid app that answers each measured route with
the very bytes and headers the platform answered when the bench sampled it, and renders the
same reportlab platypus document for the regenerate route. No database, no authentication,
no validation: what is left is Pyramid and the server, on the same gunicorn settings.

Served by ``pserve bare.ini`` with ``use = call:bare:make_app`` and ``answers = FILE`` (the JSON
file ``run.py`` writes).
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


def make_app(global_conf, answers, **settings):
    with open(answers, encoding="utf-8") as f:
        recorded = json.load(f)
    config = Configurator()
    for n, route in enumerate(recorded["routes"]):
        name = f"r{n}"
        config.add_route(name, route["path"], request_method=route["method"])
        document = route.get("render")
        view = _rendering(route["answer"], document) if document else _canned(route["answer"])
        config.add_view(view, route_name=name)
    return config.make_wsgi_app()
