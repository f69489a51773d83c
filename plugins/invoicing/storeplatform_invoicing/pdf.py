"""The PDF of a document, made with reportlab's platypus."""
import io
import threading
import time
from decimal import Decimal

from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from storeplatform.api import (CURRENCY_SYMBOLS, counter, currency_format, format_money, histogram, site_options,
                               site_timezone)
from storeplatform.api.advanced import registry_of

from .font_files import font_file
from .fonts import bundled_fonts, markup, site_font

# Table cells have 6 points of padding on either side (reportlab's default).
CELL_PADDING = 12
# The amount columns widen for long amounts up to this share of the line, so the product names
# keep room; an amount still wider (a long currency code) is set smaller to fit its cell.
AMOUNT_SHARE, MAX_AMOUNT_SHARE = 0.19, 0.3

TITLES = {"invoice": "Invoice", "receipt": "Receipt", "credit-note": "Credit note", "packing-slip": "Packing slip"}

# reportlab keeps per-font state between documents and does not promise thread safety;
# one document at a time per process (the GIL allows no more than that anyway).
_render_lock = threading.Lock()

# For Prometheus (the host serves them at /metrics), by document type (invoice, receipt,
# credit-note, packing-slip).
RENDERED = counter("invoicing_pdfs_rendered", "PDF documents rendered, by document type.", ("type",))
RENDER_SECONDS = histogram("invoicing_pdf_render_seconds", "Time to render a PDF document (reportlab), by "
                           "document type; waiting for the process's one renderer not included.", ("type",),
                           buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0))
# Every series exists, at 0, from the start (a dashboard's panel shows 0, not "No data").
for _kind in (*TITLES, "other"):
    RENDERED.labels(_kind)
    RENDER_SECONDS.labels(_kind)


def billing_lines(billing):
    name = " ".join(p for p in (billing.get("first_name", ""), billing.get("last_name", "")) if p)
    city = " ".join(p for p in (billing.get("postcode", ""), billing.get("city", "")) if p)
    lines = [name, billing.get("company", ""), billing.get("address_1", ""), billing.get("address_2", ""),
             city, billing.get("state", ""), billing.get("country", ""), billing.get("email", ""),
             billing.get("phone", "")]
    return [line for line in lines if line]


def money_format_for(session, currency):
    fmt = dict(currency_format(session))
    if currency and currency != fmt["currency"]:
        fmt["symbol"] = CURRENCY_SYMBOLS.get(currency, currency)
        fmt["currency"] = currency
    return fmt


def render_pdf(session, order, document, generated_at):
    """The PDF bytes of ``document`` for ``order`` as the order is now."""
    options = site_options(session)
    tz = site_timezone(session)
    fmt = money_format_for(session, order.currency)
    with _render_lock:
        started = time.perf_counter()
        regular, bold = bundled_fonts()
        extra = site_font(font_file(registry_of(session).settings, options["invoicing.font"]))
        fallbacks = (extra,) if extra else ()
        data = _build(order, document, generated_at.astimezone(tz), order.created_at.astimezone(tz), options,
                      fmt, regular, bold, fallbacks)
        kind = document.document_type if document.document_type in TITLES else "other"
        RENDER_SECONDS.labels(kind).observe(time.perf_counter() - started)
        RENDERED.labels(kind).inc()
        return data


def _build(order, document, generated, created, options, fmt, regular, bold, fallbacks):
    styles = {
        "shop": ParagraphStyle("shop", fontName=bold, fontSize=15, leading=19),
        "normal": ParagraphStyle("normal", fontName=regular, fontSize=9.5, leading=12.5),
        "title": ParagraphStyle("title", fontName=bold, fontSize=20, leading=24, alignment=TA_RIGHT),
        "right": ParagraphStyle("right", fontName=regular, fontSize=9.5, leading=12.5, alignment=TA_RIGHT),
        "head": ParagraphStyle("head", fontName=bold, fontSize=9.5, leading=12.5),
        "head_right": ParagraphStyle("head_right", fontName=bold, fontSize=9.5, leading=12.5, alignment=TA_RIGHT),
    }

    def p(text, style="normal"):
        font = bold if styles[style].fontName == bold else regular
        return Paragraph(markup(text, font, fallbacks), styles[style])

    def lines(values, style="normal"):
        font = bold if styles[style].fontName == bold else regular
        return Paragraph("<br/>".join(markup(v, font, fallbacks) for v in values), styles[style])

    width = A4[0] - 36 * mm
    credit = document.document_type == "credit-note"
    sign = Decimal(-1) if credit else Decimal(1)
    money = lambda value: format_money(sign * value, fmt)  # noqa: E731

    story = []
    shop = [lines([options["store.name"]], "shop"), lines(options["store.address"].splitlines())]
    story.append(Table([[shop, [p(TITLES[document.document_type], "title"), p(document.display_number, "right")]]],
                       colWidths=[width * 0.55, width * 0.45],
                       style=[("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                              ("RIGHTPADDING", (0, 0), (-1, -1), 0)]))
    story.append(Spacer(1, 10 * mm))
    details = [
        [p("Document number:", "head"), p(document.display_number)],
        [p("Document date:", "head"), p(generated.date().isoformat())],
        [p("Order number:", "head"), p(order.number)],
        [p("Order date:", "head"), p(created.date().isoformat())],
    ]
    billing = [p("Billing address", "head"), lines(billing_lines(order.billing or {}) or ["-"])]
    story.append(Table([[billing, Table(details, colWidths=[42 * mm, width * 0.45 - 42 * mm],
                                        style=[("LEFTPADDING", (0, 0), (-1, -1), 0)])]],
                       colWidths=[width * 0.55, width * 0.45],
                       style=[("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    story.append(Spacer(1, 8 * mm))

    priced = document.document_type != "packing-slip"
    if priced:
        subtotal = sum((li.total for li in order.line_items), Decimal(0))
        # Every amount stays one unbroken line in its cell, however long the number: the amount
        # columns are as wide as the widest amount needs (bold, as the total is set).
        texts = [money(v) for li in order.line_items for v in (li.unit_price, li.total)]
        texts += [money(subtotal), money(order.total)]
        needed = max(stringWidth(text, bold, styles["head_right"].fontSize) for text in texts) + CELL_PADDING + 1
        amount = min(max(width * AMOUNT_SHARE, needed), width * MAX_AMOUNT_SHARE)

        def cash(value, style="right"):
            text = money(value)
            base = styles[style]
            room = amount - CELL_PADDING - 1
            if stringWidth(text, base.fontName, base.fontSize) > room:
                size = base.fontSize * room / stringWidth(text, base.fontName, base.fontSize)
                base = ParagraphStyle(f"{style}-fitted", parent=base, fontSize=size, leading=base.leading)
            return Paragraph(markup(text, base.fontName, fallbacks), base)

        rows = [[p("Product", "head"), p("Quantity", "head_right"), p("Price", "head_right"),
                 p("Total", "head_right")]]
        rows += [[p(li.name), p(str(li.quantity), "right"), cash(li.unit_price), cash(li.total)]
                 for li in order.line_items]
        widths = [width * (1 - 0.13) - 2 * amount, width * 0.13, amount, amount]
    else:
        rows = [[p("Product", "head"), p("Quantity", "head_right")]]
        rows += [[p(li.name), p(str(li.quantity), "right")] for li in order.line_items]
        widths = [width * 0.8, width * 0.2]
    story.append(Table(rows, colWidths=widths, repeatRows=1, style=TableStyle([
        ("LINEBELOW", (0, 0), (-1, 0), 0.8, colors.black),
        ("LINEBELOW", (0, 1), (-1, -1), 0.25, colors.lightgrey),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ])))
    if priced:
        label = "Refund total" if credit else "Total"
        totals = [[p("Subtotal", "right"), cash(subtotal)],
                  [p(label, "head_right"), cash(order.total, "head_right")]]
        story.append(Spacer(1, 3 * mm))
        story.append(Table(totals, colWidths=[width - amount, amount], style=[
            ("LINEABOVE", (0, 1), (-1, 1), 0.8, colors.black)]))

    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=A4, leftMargin=18 * mm, rightMargin=18 * mm, topMargin=18 * mm,
                            bottomMargin=18 * mm, title=f"{TITLES[document.document_type]} {document.display_number}",
                            author=options["store.name"], creator="storeplatform-invoicing")
    doc.build(story)
    return buffer.getvalue()
