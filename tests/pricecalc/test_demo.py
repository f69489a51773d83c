"""Demo data through the CLI: products with calculators, loaded once."""
from sqlalchemy import func, select

from storeplatform.api import Product, call_action
from storeplatform.testing import run_cli

from storeplatform_pricecalc.models import Calculator

def test_demo_command_adds_calculator_products_once(pc, database, tmp_path):
    settings = database.settings(**{"storeplatform.plugins": "pricecalc"})
    ini = tmp_path / "site.ini"
    ini.write_text("[app:main]\nuse = egg:storeplatform\n" + "".join(
        f"{key} = {value}\n" for key, value in settings.items() if key != "here"))
    done = run_cli("-c", str(ini), "demo")  # in-process (cli.main)
    assert done.returncode == 0, done.stderr
    # Loading again adds nothing (in-process: a second CLI run would only repeat its start-up).
    with pc.site.session() as s:
        call_action(pc.site.hooks.storeplatform_demo_data, session=s)
    with pc.site.session() as s:
        ids = {p.sku: p.id for p in s.execute(select(Product).where(Product.sku.like("DEMO-PC-%"))).scalars()}
    assert set(ids) == {"DEMO-PC-FLOOR", "DEMO-PC-FABRIC", "DEMO-PC-GRAVEL", "DEMO-PC-PAINT"}
    with pc.site.session() as s:
        assert s.execute(select(func.count()).select_from(Calculator)).scalar_one() == 4

    floor = pc.calculate(ids["DEMO-PC-FLOOR"], {"length": 12, "width": 10}).json
    # 120 sq ft + 10 % overage = 132 sq ft in the 100-500 tier on sale at 4.99 = 658.68
    assert floor["total_price"] == 658.68 and floor["pricing_tier"]["is_sale"] is True
    assert pc.config(ids["DEMO-PC-FLOOR"]).json["pricing_unit"] == "sq ft"
    fabric = pc.calculate(ids["DEMO-PC-FABRIC"], {"length": 250}).json
    # 250 cm = 2.5 m x 12.00 = 30.00
    assert fabric["measurement_unit"] == "m" and fabric["total_price"] == 30
    gravel = pc.calculate(ids["DEMO-PC-GRAVEL"], {"length": 10, "width": 10, "height": 3}).json
    # 10 ft x 10 ft x 3 in = 25 cu ft = 0.9259 cu yd x 48.00 = 44.44, + 15.00 small load = 59.44
    assert gravel["measurement_unit"] == "cu yd" and gravel["calculated_measurement"] == 0.9259
    assert gravel["total_price"] == 59.44
    paint = pc.calculate(ids["DEMO-PC-PAINT"], {"perimeter": 50, "height": 8, "openings": 3}).json
    assert paint["total_price"] == 242.2  # (400 - 54) x 2 coats = 692 sq ft x 0.35
