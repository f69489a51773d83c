"""What the PDF shows, read back with pypdf: shop, title, number, dates, billing address in
any script, line items, totals in the store's money format, and the fonts that draw them."""
from decimal import Decimal
from pathlib import Path

import pytest

from .conftest import API, CYRILLIC, GREEK, pdf_fonts, pdf_text

FIXTURES = Path(__file__).parent / "fixtures"


def pdf_of(shop, order_id):
    return shop.app.get(f"{API}/documents/{order_id}/pdf", headers=shop.headers_for("shop_manager")).body


def test_invoice_shows_everything(shop):
    shop.set_option("store.name", "Ακμή Shop")
    shop.set_option("store.address", "Rue du Marché 4\n1000 Bruxelles")
    order = shop.order("completed", billing={**GREEK, "company": "Zoë Łukasz Sp. z o.o."})
    meta = shop.meta(order["id"]).json
    text = pdf_text(pdf_of(shop, order["id"]))
    for expected in ("Ακμή Shop", "Rue du Marché 4", "1000 Bruxelles", "Invoice", meta["display_number"],
                     "Ωμέγα Παπαδοπούλου", "Οδός Ερμού 12", "105 63 Αθήνα", "Zoë Łukasz Sp. z o.o.",
                     "Desk lamp", "Кабель USB-C", "$39.90", "$7.25", "$21.75", "$61.65",
                     meta["generated_date"][:10], f"Order number:\n{order['id']}"):
        assert expected in text, expected
    assert "■" not in text
    fonts = pdf_fonts(pdf_of(shop, order["id"]))
    assert any(name.endswith("+DejaVuSans") for name in fonts), fonts


def test_cyrillic_customer_and_money_format(shop):
    shop.set_option("store.currency", "EUR")
    shop.set_option("store.currency_position", "right_space")
    shop.set_option("store.thousand_separator", ".")
    shop.set_option("store.decimal_separator", ",")
    products = shop.products()
    order = shop.order("completed", billing=CYRILLIC, lines=[(products[0], 30), (products[1], 1)])
    text = pdf_text(pdf_of(shop, order["id"]))
    assert "Дмитрий Соколов" in text and "Новосибирск" in text
    # 30 x 39.90 = 1197.00; + 7.25 = 1204.25
    assert "1.197,00 €" in text and "1.204,25 €" in text and "39,90 €" in text


def test_twenty_line_items_all_appear(shop):
    from storeplatform.api import Product

    with shop.session() as s:
        items = [Product(name=f"Item Ω{i:02d}", regular_price=f"{i}.05", meta={}) for i in range(1, 21)]
        s.add_all(items)
        s.flush()
        ids = [p.id for p in items]
    order = shop.order("completed", lines=[(pid, 2) for pid in ids])
    text = pdf_text(pdf_of(shop, order["id"]))
    for i in range(1, 21):
        assert f"Item Ω{i:02d}" in text
    assert f"${order['total']:.2f}" in text or f"${float(order['total']):,.2f}" in text


def test_credit_note_and_packing_slip(shop):
    order = shop.order("completed")
    shop.set_status(order["id"], "refunded")
    text = pdf_text(pdf_of(shop, order["id"]))
    assert "Credit note" in text and "-$61.65" in text and "Refund total" in text
    shop.regen(order["id"], {"force_type": "packing-slip"})
    text = pdf_text(pdf_of(shop, order["id"]))
    assert "Packing slip" in text and "Desk lamp" in text and "Кабель USB-C" in text
    assert "$" not in text  # a packing slip carries no prices


def test_receipt_title(shop):
    order = shop.order("completed")
    shop.regen(order["id"], {"force_type": "receipt"})
    assert "Receipt" in pdf_text(pdf_of(shop, order["id"]))


def test_site_font_draws_what_dejavu_lacks(make_shop):
    shop = make_shop(**{"invoicing.font_dirs": str(FIXTURES)})  # the fonts the owner may choose from
    shop.set_option("invoicing.font", "wqy-microhei-subset.ttf")
    order = shop.order("completed", billing={"first_name": "山田", "last_name": "太郎", "city": "東京都",
                                             "company": "Zoë 株式会社"})
    data = pdf_of(shop, order["id"])
    text = pdf_text(data)
    assert "山田 太郎" in text and "東京都" in text and "Zoë 株式会社" in text
    fonts = pdf_fonts(data)
    assert any("WenQuanYi" in name or "wqy" in name.lower() for name in fonts), fonts
    assert any(name.endswith("+DejaVuSans") for name in fonts), fonts


def test_unreadable_site_font_still_makes_the_document(make_shop, tmp_path, caplog):
    bad = tmp_path / "not-a-font.ttf"
    bad.write_bytes(b"nope")
    shop = make_shop(**{"invoicing.font_dirs": str(tmp_path)})
    shop.set_option("invoicing.font", "not-a-font.ttf")
    order = shop.order("completed")
    assert shop.meta(order["id"]).json["file_size"] > 0
    assert "Ωμέγα" in pdf_text(pdf_of(shop, order["id"]))
    assert "cannot be used" in caplog.text


@pytest.mark.parametrize("markup_text", ["<b>bold</b> & <i>", "a < b > c"])
def test_markup_in_names_is_printed_as_text(shop, markup_text):
    order = shop.order("completed", billing={"first_name": markup_text})
    assert markup_text in pdf_text(pdf_of(shop, order["id"]))


def one_line_holding(text, amount):
    """How many lines of the extracted ``text`` hold ``amount`` whole (one unbroken token)."""
    return sum(amount in line for line in text.splitlines())


@pytest.mark.parametrize("position, currency, shown", [
    ("left", "USD", "$98,999,999,999,999.99"),
    # The widest: a three-letter symbol and a space; this one is set smaller to fit its cell.
    ("left_space", "CHF", "CHF 98,999,999,999,999.99"),
])
def test_the_largest_order_a_money_column_holds_prints_each_amount_on_one_line(shop, position, currency, shown):
    from storeplatform.api import Product

    shop.set_option("store.currency", currency)
    shop.set_option("store.currency_position", position)
    with shop.site.session() as s:
        dear = Product(name="Yacht", regular_price=Decimal("999999999999.9999"), meta={})
        s.add(dear)
        s.flush()
        dear_id = dear.id
    order = shop.order("completed", lines=[(dear_id, 99)])
    assert order["total"] == 98999999999999.9901
    # Every digit, rounded half-up to the store's two places, each amount whole on one line of
    # its cell: line total, subtotal and total.
    text = pdf_text(pdf_of(shop, order["id"]))
    price = shown.replace("98,999,999,999,999.99", "1,000,000,000,000.00")
    assert one_line_holding(text, shown) == 3, text
    assert one_line_holding(text, price) == 1, text
    shop.set_status(order["id"], "refunded")
    text = pdf_text(pdf_of(shop, order["id"]))
    assert one_line_holding(text, "-" + shown) == 3, text


def test_pdf_column_is_stored_external_on_postgresql(shop):
    """Migration inv0005: a PDF is already compressed, so PostgreSQL keeps it out of line without
    trying to compress it (attstorage 'e', EXTERNAL); the bytes read back are the ones written."""
    if shop.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no column storage settings; this runs in .ci/run's PostgreSQL pass")
    from sqlalchemy import text

    with shop.engine.connect() as conn:
        storage = conn.execute(text(
            "SELECT attstorage FROM pg_attribute WHERE attrelid = 'invoicing_documents'::regclass "
            "AND attname = 'pdf'")).scalar_one()
    assert storage == "e"
    order = shop.order("completed", lines=[(pid, 1) for pid in shop.products() * 7])
    size = shop.regen(order["id"]).json["file_size"]
    data = pdf_of(shop, order["id"])
    assert len(data) == size and data.startswith(b"%PDF-")


def test_documents_are_built_with_reportlabs_c_helpers():
    """The plugin asks for reportlab[accel]: without it reportlab quietly falls back to its
    Python versions of the same helpers, and every document takes ~15 % longer to build."""
    from reportlab.lib import rl_accel

    for helper in ("fp_str", "calcChecksum", "asciiBase85Encode", "escapePDF", "instanceStringWidthTTF"):
        assert getattr(rl_accel, helper).__module__ == "_rl_accel", helper
