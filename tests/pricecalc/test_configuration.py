"""GET and POST products/{id}/calculator: the spec's shape, deep merge, checks, authentication."""
import pytest

from storeplatform.testing import assert_error

from .conftest import PC

CONFIG_KEYS = {"product_id", "calculator_type", "pricing_unit", "pricing_label", "minimum_price", "overage",
               "fields", "pricing_rules", "conditions", "custom_variables"}
FIELD_KEYS = {"name", "label", "unit", "min", "max", "step", "input_type", "options"}

FULL = {
    "calculator_type": "area",
    "settings": {"pricing_unit": "sq m", "pricing_label": "Per square metre", "minimum_price": "20.00",
                 "overage": "10", "fields": {"length": {"label": "Room length", "unit": "cm", "min": "10",
                                                        "max": "2000", "step": "1"},
                                             "width": {"label": "Room width", "unit": "cm"}}},
    "pricing_rules": [{"range_start": "0", "range_end": "10", "price": "30"},
                      {"range_start": "10", "range_end": None, "price": "25", "sale_price": "22.5"}],
    "conditions": [{"field": "width", "operator": ">", "threshold": "400", "type": "percentage", "value": "10",
                    "label": "Wide room"}],
}


def test_minimal_save_gives_a_working_area_calculator(pc):
    pid = pc.product(price="3.00")
    res = pc.save(pid, {"calculator_type": "area", "settings": {"pricing_unit": "sq ft"}})
    assert res.json == {"success": True, "message": res.json["message"], "product_id": pid}
    assert isinstance(res.json["message"], str) and res.json["message"]
    body = pc.config(pid).json
    assert set(body) == CONFIG_KEYS
    assert body == {
        "product_id": pid, "calculator_type": "area", "pricing_unit": "sq ft", "pricing_label": "Price per sq ft",
        "minimum_price": "0", "overage": "0",
        "fields": [
            {"name": "length", "label": "Length", "unit": "ft", "min": "0.01", "max": "10000", "step": "0.01",
             "input_type": "free", "options": []},
            {"name": "width", "label": "Width", "unit": "ft", "min": "0.01", "max": "10000", "step": "0.01",
             "input_type": "free", "options": []},
        ],
        "pricing_rules": [], "conditions": [], "custom_variables": [],
    }
    assert pc.calculate(pid, {"length": 2, "width": 5}).json["total_price"] == 30


@pytest.mark.parametrize("ctype, names, unit", [
    ("length", ["length"], "ft"), ("perimeter", ["length", "width"], "ft"),
    ("volume", ["length", "width", "height"], "cu ft"), ("weight", ["weight"], "lb"),
])
def test_each_type_brings_its_fields(pc, ctype, names, unit):
    pid = pc.priced({"calculator_type": ctype})
    body = pc.config(pid).json
    assert [f["name"] for f in body["fields"]] == names and body["pricing_unit"] == unit
    assert all(set(f) == FIELD_KEYS for f in body["fields"])


def test_full_configuration_reads_back_as_text(pc):
    pid = pc.priced(FULL)
    body = pc.config(pid).json
    assert body["pricing_unit"] == "sq m" and body["pricing_label"] == "Per square metre"
    assert body["minimum_price"] == "20.00" and body["overage"] == "10"
    assert body["fields"][0] == {"name": "length", "label": "Room length", "unit": "cm", "min": "10", "max": "2000",
                                 "step": "1", "input_type": "free", "options": []}
    assert body["fields"][1]["label"] == "Room width" and body["fields"][1]["unit"] == "cm"
    assert body["pricing_rules"] == [
        {"range_start": "0", "range_end": "10", "price": "30", "sale_price": None, "sale_from": None, "sale_to": None},
        {"range_start": "10", "range_end": None, "price": "25", "sale_price": "22.5", "sale_from": None,
         "sale_to": None},
    ]
    assert body["conditions"] == FULL["conditions"]


def test_numbers_are_accepted_and_stored_as_text(pc):
    pid = pc.priced({"calculator_type": "length", "settings": {"minimum_price": 5, "overage": 2.5,
                                                               "fields": {"length": {"max": 300}}},
                     "pricing_rules": [{"range_start": 0, "range_end": 10, "price": 1.25}]})
    body = pc.config(pid).json
    assert body["minimum_price"] == "5" and body["overage"] == "2.5" and body["fields"][0]["max"] == "300"
    assert body["pricing_rules"][0]["price"] == "1.25"


def test_single_setting_alone_keeps_everything_else(pc):
    pid = pc.priced(FULL)
    before = pc.config(pid).json
    pc.save(pid, {"settings": {"overage": "5"}})
    after = pc.config(pid).json
    assert after["overage"] == "5"
    assert {k: v for k, v in after.items() if k != "overage"} == {k: v for k, v in before.items() if k != "overage"}


def test_single_field_adjustment_merges_deeply(pc):
    pid = pc.priced(FULL)
    pc.save(pid, {"settings": {"fields": {"width": {"max": "500"}}}})
    fields = pc.config(pid).json["fields"]
    assert fields[1] == {"name": "width", "label": "Room width", "unit": "cm", "min": "0.01", "max": "500",
                         "step": "0.01", "input_type": "free", "options": []}
    assert fields[0]["label"] == "Room length" and fields[0]["max"] == "2000"


def test_lists_are_replaced_and_omitted_ones_kept(pc):
    pid = pc.priced(FULL)
    pc.save(pid, {"pricing_rules": [{"range_start": "0", "range_end": None, "price": "19"}]})
    body = pc.config(pid).json
    assert [r["price"] for r in body["pricing_rules"]] == ["19"]
    assert body["conditions"] == FULL["conditions"]
    pc.save(pid, {"conditions": []})
    body = pc.config(pid).json
    assert body["conditions"] == [] and [r["price"] for r in body["pricing_rules"]] == ["19"]


def test_null_resets_to_the_default(pc):
    pid = pc.priced(FULL)
    pc.save(pid, {"settings": {"pricing_label": None, "fields": {"length": {"label": None}}}, "pricing_rules": None})
    body = pc.config(pid).json
    assert body["pricing_label"] == "Price per sq m"
    assert body["fields"][0]["label"] == "Length" and body["fields"][0]["max"] == "2000"
    assert body["pricing_rules"] == []
    pc.save(pid, {"settings": {"fields": None}})
    assert pc.config(pid).json["fields"][0]["unit"] == "m"


def test_null_settings_reset_every_setting_but_the_switch(pc):
    pid = pc.priced(FULL)
    pc.save(pid, {"settings": {"enabled": "no"}})
    pc.save(pid, {"settings": None})
    assert_error(pc.config(pid, status=404), 404, "invalid_product")  # the switch stays off
    pc.save(pid, {"settings": {"enabled": "yes"}})
    body = pc.config(pid).json
    assert body["pricing_unit"] == "sq ft" and body["pricing_label"] == "Price per sq ft"
    assert body["minimum_price"] == "0" and body["overage"] == "0"
    assert body["fields"][0]["label"] == "Length" and body["fields"][0]["unit"] == "ft"
    assert [r["price"] for r in body["pricing_rules"]] == [r["price"] for r in FULL["pricing_rules"]]


def test_empty_body_saves_nothing_new(pc):
    pid = pc.priced(FULL)
    before = pc.config(pid).json
    pc.save(pid, {})
    assert pc.config(pid).json == before


def test_rules_are_kept_in_range_order(pc):
    pid = pc.priced({"calculator_type": "length", "pricing_rules": [
        {"range_start": "10", "range_end": None, "price": "1"}, {"range_start": "0", "range_end": "10", "price": "2"}]})
    assert [r["range_start"] for r in pc.config(pid).json["pricing_rules"]] == ["0", "10"]


def test_changing_type_resets_a_stored_unit_that_no_longer_fits(pc):
    pid = pc.priced(FULL)
    pc.save(pid, {"calculator_type": "volume"})
    body = pc.config(pid).json
    # sq m does not measure a volume; the cm adjustments of length and width stay
    assert body["pricing_unit"] == "cu ft"
    assert [f["name"] for f in body["fields"]] == ["length", "width", "height"]
    assert body["fields"][0]["unit"] == "cm" and body["fields"][2]["unit"] == "ft"
    # a stored surcharge on width would be lost silently: refused until the conditions are sent
    res = pc.save(pid, {"calculator_type": "weight"}, status=400)
    assert "conditions.0.field" in assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    pc.save(pid, {"calculator_type": "weight", "conditions": []})
    body = pc.config(pid).json
    assert body["pricing_unit"] == "lb" and [f["name"] for f in body["fields"]] == ["weight"]


def test_disable_and_enable(pc):
    pid = pc.priced(FULL)
    pc.save(pid, {"settings": {"enabled": "no"}})
    assert_error(pc.config(pid, status=404), 404, "invalid_product")
    assert_error(pc.table(pid, status=404), 404, "invalid_product")
    # another change does not switch it back on
    pc.save(pid, {"settings": {"overage": "3"}})
    assert_error(pc.config(pid, status=404), 404, "invalid_product")
    pc.save(pid, {"settings": {"enabled": True}})
    assert pc.config(pid).json["overage"] == "3"


def test_get_unknown_or_unconfigured_product_is_invalid_product(pc):
    assert_error(pc.config(999999, status=404), 404, "invalid_product")
    assert_error(pc.config(10 ** 17, status=404), 404, "invalid_product")
    assert_error(pc.config(pc.product(), status=404), 404, "invalid_product")
    assert_error(pc.app.get(f"{PC}/products/abc/calculator", status=404), 404, "rest_no_route")


def test_get_draft_product_is_hidden_from_the_public(pc):
    pid = pc.priced(FULL, status="draft")
    assert_error(pc.config(pid, status=404), 404, "invalid_product")
    assert pc.app.get(f"{PC}/products/{pid}/calculator", headers=pc.site.headers_for("shop_manager")).json


# --- authentication -----------------------------------------------------------------------------

def test_save_without_authentication_is_unauthorized(pc):
    pid = pc.product()
    assert_error(pc.save(pid, {"calculator_type": "area"}, role=None, status=401), 401, "unauthorized")
    assert_error(pc.save(999999, {"calculator_type": "area"}, role=None, status=401), 401, "unauthorized")
    assert_error(pc.config(pid, status=404), 404, "invalid_product")  # nothing was stored


@pytest.mark.parametrize("role", ["customer", "editor", "subscriber"])
def test_save_without_manage_shop_is_forbidden(pc, role):
    pid = pc.product()
    assert_error(pc.save(pid, {"calculator_type": "area"}, role=role, status=403), 403, "forbidden")


def test_forbidden_comes_before_an_unknown_product(pc):
    assert_error(pc.save(999999, {"calculator_type": "area"}, role="customer", status=403), 403, "forbidden")


def test_save_with_a_jwt_bearer_token(pc):
    pc.site.create_user("boss", "shop_manager", password="correct horse battery")
    token = pc.app.post_json("/api/store/v1/auth/token", {"login": "boss", "password": "correct horse battery"}
                             ).json["token"]
    pid = pc.product()
    res = pc.app.post_json(f"{PC}/products/{pid}/calculator", {"calculator_type": "weight"},
                           headers={"Authorization": f"Bearer {token}"})
    assert res.json == {"success": True, "message": res.json["message"], "product_id": pid}


@pytest.mark.parametrize("role", ["shop_manager", "administrator"])
def test_save_with_manage_shop(pc, role):
    pid = pc.product()
    assert pc.save(pid, {"calculator_type": "length"}, role=role).json["success"] is True


def test_save_unknown_product_is_invalid_product(pc):
    assert_error(pc.save(999999, {"calculator_type": "area"}, status=404), 404, "invalid_product")
    assert_error(pc.save(10 ** 17, {}, status=404), 404, "invalid_product")
    # the product comes before the body
    assert_error(pc.save(999999, {"calculator_type": "nope"}, status=404), 404, "invalid_product")


def test_wrong_credentials_fail_even_public_routes(pc):
    res = pc.app.get(f"{PC}/units", headers={"Authorization": "Basic bm9ib2R5Ondyb25n"}, status=401)
    assert_error(res, 401, "rest_authentication_failed")


# --- checks before anything is stored ----------------------------------------------------------

BAD = [
    ({"settings": {"pricing_unit": "sq ft"}}, "calculator_type"),                  # a new calculator needs a type
    ({"calculator_type": "hexagon"}, "calculator_type"),
    ({"calculator_type": None}, "calculator_type"),
    ({"calculator_type": "area", "settings": {"pricing_unit": "furlong"}}, "settings.pricing_unit"),
    ({"calculator_type": "area", "settings": {"pricing_unit": "cu ft"}}, "settings.pricing_unit"),
    ({"calculator_type": "area", "settings": {"colour": "red"}}, "settings.colour"),
    ({"calculator_type": "area", "settings": {"minimum_price": "-1"}}, "settings.minimum_price"),
    ({"calculator_type": "area", "settings": {"minimum_price": "NaN"}}, "settings.minimum_price"),
    ({"calculator_type": "area", "settings": {"overage": "101"}}, "settings.overage"),
    ({"calculator_type": "area", "settings": {"overage": "lots"}}, "settings.overage"),
    ({"calculator_type": "area", "settings": {"enabled": "maybe"}}, "settings.enabled"),
    ({"calculator_type": "area", "settings": {"pricing_label": 5}}, "settings.pricing_label"),
    ({"calculator_type": "area", "settings": {"fields": {"height": {"max": "3"}}}}, "settings.fields.height"),
    ({"calculator_type": "area", "settings": {"fields": {"width": {"unit": "kg"}}}}, "settings.fields.width.unit"),
    ({"calculator_type": "area", "settings": {"fields": {"width": {"min": "5", "max": "4"}}}},
     "settings.fields.width.max"),
    ({"calculator_type": "area", "settings": {"fields": {"width": {"step": "-1"}}}}, "settings.fields.width.step"),
    ({"calculator_type": "area", "settings": {"fields": {"width": {"step": "1e-11"}}}}, "settings.fields.width.step"),
    ({"calculator_type": "area", "settings": {"fields": {"width": {"colour": "x"}}}},
     "settings.fields.width.colour"),
    ({"calculator_type": "area", "settings": {"fields": {"width": {"input_type": "slider"}}}},
     "settings.fields.width.input_type"),
    ({"calculator_type": "area", "settings": {"fields": {"width": {"input_type": "options"}}}},
     "settings.fields.width.options"),
    ({"calculator_type": "area", "settings": {"fields": {"width": {"input_type": "options", "options": ["a"]}}}},
     "settings.fields.width.options"),
    ({"calculator_type": "area", "settings": {"fields": []}}, "settings.fields"),
    ({"calculator_type": "area", "settings": "sq ft"}, "settings"),
    ({"calculator_type": "area", "pricing_rules": {"price": 1}}, "pricing_rules"),
    ({"calculator_type": "area", "pricing_rules": [{"range_start": "0"}]}, "pricing_rules.0.price"),
    ({"calculator_type": "area", "pricing_rules": [{"price": "1"}]}, "pricing_rules.0.range_start"),
    ({"calculator_type": "area", "pricing_rules": [{"range_start": "0", "price": "-2"}]}, "pricing_rules.0.price"),
    ({"calculator_type": "area", "pricing_rules": [{"range_start": "5", "range_end": "2", "price": "1"}]},
     "pricing_rules.0.range_end"),
    ({"calculator_type": "area", "pricing_rules": [{"range_start": "0", "price": "1", "sale_from": "soon"}]},
     "pricing_rules.0.sale_from"),
    ({"calculator_type": "area", "pricing_rules": [{"range_start": "0", "price": "1", "discount": "1"}]},
     "pricing_rules.0.discount"),
    ({"calculator_type": "area", "pricing_rules": ["0-10"]}, "pricing_rules.0"),
    ({"calculator_type": "area", "pricing_rules": [{"range_start": "0", "range_end": "10", "price": "1"},
                                                   {"range_start": "5", "range_end": None, "price": "1"}]},
     "pricing_rules"),
    ({"calculator_type": "area", "pricing_rules": [{"range_start": "0", "range_end": None, "price": "1"},
                                                   {"range_start": "50", "range_end": None, "price": "1"}]},
     "pricing_rules"),
    ({"calculator_type": "area", "conditions": [{"field": "depth", "operator": ">", "threshold": "1",
                                                 "value": "5"}]}, "conditions.0.field"),
    ({"calculator_type": "area", "conditions": [{"field": "width", "operator": "=~", "threshold": "1",
                                                 "value": "5"}]}, "conditions.0.operator"),
    ({"calculator_type": "area", "conditions": [{"field": "width", "operator": ">", "threshold": "1",
                                                 "type": "bonus", "value": "5"}]}, "conditions.0.type"),
    ({"calculator_type": "area", "conditions": [{"field": "width", "operator": ">", "value": "5"}]},
     "conditions.0.threshold"),
    ({"calculator_type": "area", "conditions": [{"field": "width", "operator": ">", "threshold": "1",
                                                 "value": "-150"}]}, "conditions.0.value"),
    ({"calculator_type": "area", "variables": [{"name": "Waste!", "value": "1"}]}, "variables.0.name"),
    ({"calculator_type": "area", "variables": [{"name": "width", "value": "1"}]}, "variables.0.name"),
    ({"calculator_type": "area", "variables": [{"name": "sqrt", "value": "1"}]}, "variables.0.name"),
    ({"calculator_type": "area", "variables": [{"name": "w", "value": "x"}]}, "variables.0.value"),
    ({"calculator_type": "area", "variables": [{"name": "w", "value": "1"}, {"name": "w", "value": "2"}]},
     "variables.1.name"),
    ({"calculator_type": "area", "formula": 12}, "formula"),
    ({"calculator_type": "area", "fields": [{"name": "length"}]}, "fields"),
    ({"calculator_type": "area", "product_id": 5}, "product_id"),
]


@pytest.mark.parametrize("body, param", BAD, ids=[param for _, param in BAD])
def test_bad_values_are_refused_by_name(pc, body, param):
    pid = pc.product()
    res = pc.save(pid, body, status=400)
    params = assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    assert param in params, params
    assert_error(pc.config(pid, status=404), 404, "invalid_product")  # nothing stored


@pytest.mark.parametrize("ctype", ["custom", "area"])
@pytest.mark.parametrize("name", [{"a": 1}, {}, [1], ["waste"], 5, 1.5, True, None])
def test_a_variable_name_that_is_not_text_is_refused_by_name(pc, ctype, name):
    """An object or a list where a variable's name belongs was a 500 (a set of the names)."""
    body = {"calculator_type": ctype, "variables": [{"name": name, "label": "Waste", "value": "1.1"},
                                                    {"name": "waste", "value": "2"}]}
    if ctype == "custom":
        body.update(settings={"pricing_unit": "sq m", "fields": {"a": {}}}, formula="a * waste")
    pid = pc.product()
    params = assert_error(pc.save(pid, body, status=400), 400, "rest_invalid_param")["data"]["params"]
    assert list(params) == ["variables.0.name"], params
    assert_error(pc.config(pid, status=404), 404, "invalid_product")  # nothing stored


# Every value of a full configuration of each kind, for the sweep below.
FULL_CUSTOM = {
    "calculator_type": "custom",
    "settings": {"pricing_unit": "sq m", "pricing_label": "Per unit", "minimum_price": "1", "overage": "5",
                 "enabled": "yes",
                 "fields": {"a": {"label": "A", "unit": "cm", "min": "1", "max": "10", "step": "1",
                                  "input_type": "options", "options": ["1", "2"]}}},
    "variables": [{"name": "k", "label": "K", "value": "2"}],
    "formula": "a * k",
    "pricing_rules": [{"range_start": "0", "range_end": "10", "price": "3", "sale_price": "2",
                       "sale_from": "2030-01-01T00:00:00Z", "sale_to": "2031-01-01T00:00:00Z"}],
    "conditions": [{"field": "a", "operator": ">", "threshold": "1", "type": "fixed", "value": "1", "label": "L"}],
}
FULL_AREA = {**FULL, "variables": [{"name": "k", "label": "K", "value": "2"}]}
SHAPES = [{"a": 1}, {}, [1], ["x"], 5, 1.5, True, None]


def _slots(value, path=()):
    """The path of every value inside ``value`` (keys of objects, indexes of lists)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield path + (key,)
        yield from _slots(inner, path + (key,))


def _replaced(document, path, value):
    import copy

    document = copy.deepcopy(document)
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


@pytest.mark.parametrize("document", [FULL_CUSTOM, FULL_AREA], ids=["custom", "area"])
def test_every_value_of_another_json_kind_is_refused_by_name_or_taken(pc, document):
    """Each value of a configuration (names, text, numbers, lists, objects) replaced by an
    object, a list, a number, true or null: the schema judges the kind of every nested value, so
    the answer is a save, or rest_invalid_param naming that value (or the list or object it is
    in, for the parts judged whole, or a key of the object sent in its place), never a 500; a
    saved one reads back and calculates."""
    unexpected = []
    for path in _slots(document):
        slot = ".".join(map(str, path))
        for shape in SHAPES:
            pid = pc.product()
            res = pc.save(pid, _replaced(document, path, shape), status="*")
            if res.status_int == 200:
                pc.config(pid)
                pc.app.post_json(f"{PC}/calculate", {"product_id": pid, "measurements": {"a": 2, "length": 2,
                                                                                         "width": 2}}, status="*")
                assert pc.config(pid).status_int == 200
                continue
            params = res.json["data"].get("params", {}) if res.status_int == 400 else {}
            # A null resets a key of the save body (a merge patch): what referred to it may be
            # what is refused then (the formula's variable).
            named = res.status_int == 400 and res.json["code"] == "rest_invalid_param" and (shape is None or any(
                param == slot or slot.startswith(param + ".") or param.startswith(slot + ".") for param in params))
            if not named:
                unexpected.append((slot, shape, res.status_int, res.text[:200]))
    assert unexpected == [], "\n".join(map(str, unexpected))


def test_refused_update_leaves_the_stored_configuration(pc):
    pid = pc.priced(FULL)
    before = pc.config(pid).json
    pc.save(pid, {"settings": {"overage": "2", "pricing_unit": "kg"}, "pricing_rules": []}, status=400)
    pc.save(pid, {"calculator_type": "volume", "settings": {"pricing_unit": "sq m"}}, status=400)
    assert pc.config(pid).json == before


def test_adjusting_a_field_of_the_previous_type_sent_now_is_refused(pc):
    pid = pc.priced({"calculator_type": "length"})
    res = pc.save(pid, {"settings": {"fields": {"width": {"max": "3"}}}}, status=400)
    assert "settings.fields.width" in assert_error(res, 400, "rest_invalid_param")["data"]["params"]


def test_malformed_json_on_save(pc):
    pid = pc.product()
    res = pc.app.post(f"{PC}/products/{pid}/calculator", "{bad", status=400,
                      headers={**pc.site.headers_for("shop_manager"), "Content-Type": "application/json"})
    assert_error(res, 400, "rest_invalid_json")


def test_schema_index_describes_the_routes(pc):
    routes = pc.app.get(f"{PC}/").json["routes"]
    assert set(routes) == {"/pricecalc/v1/calculate", "/pricecalc/v1/products/{id}/calculator",
                           "/pricecalc/v1/products/{id}/pricing-table", "/pricecalc/v1/units"}
    calc_args = routes["/pricecalc/v1/calculate"]["endpoints"][0]["args"]
    assert calc_args["product_id"]["required"] is True and calc_args["measurements"]["required"] is True
    save = [e for e in routes["/pricecalc/v1/products/{id}/calculator"]["endpoints"] if e["methods"] == ["POST"]][0]
    assert save["permission"] == "manage_shop"
    assert set(routes["/pricecalc/v1/calculate"]["endpoints"][0]["response"]) >= {"total_price", "pricing_tier"}
    assert set(save["args"]) == {"id", "calculator_type", "settings", "variables", "formula", "pricing_rules",
                                 "conditions"}


def test_concurrent_partial_saves_lose_no_update(pc):
    import threading

    pid = pc.priced(FULL)
    headers = pc.site.headers_for("shop_manager")
    errors = []

    def saver(patches):
        try:
            for patch in patches:
                pc.app.post_json(f"{PC}/products/{pid}/calculator", patch, headers=headers)
        except Exception as exc:  # reported below, a thread cannot fail the test itself
            errors.append(exc)

    threads = [threading.Thread(target=saver, args=([{"settings": {"pricing_label": f"Label {i}"}}
                                                     for i in range(8)],)),
               threading.Thread(target=saver, args=([{"settings": {"overage": str(i)}} for i in range(8)],))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    body = pc.config(pid).json
    assert body["pricing_label"] == "Label 7" and body["overage"] == "7"
