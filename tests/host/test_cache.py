"""The host's cache: answers of services declared ``cache="public"`` and values of ``@cached``
functions, keyed by the host from what they read. Each test changes one thing a cached answer
depends on and sees the next answer change (or be computed afresh)."""
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import MetaData, event, func, select, text

import storeplatform.core.cache
from storeplatform.api import Service, cached, hookimpl
from storeplatform.core.db.generation_triggers import emit_generation_triggers, emitted_generations
from storeplatform.core.db.generations import declared_generations
from storeplatform.testing import assert_error

ADMIN = "administrator"


def count_statements(site):
    statements = []
    event.listen(site.engine, "before_cursor_execute", lambda conn, cursor, statement, *rest: statements.append(statement))
    return statements


# --- a plugin's cached services ------------------------------------------------------------------

uncounted = Service("cachetest/v1", "/uncounted", name="uncounted", description="Reads a table no generation counts.")
as_text = Service("cachetest/v1", "/text", name="text", description="Reads with a statement written as text.")
computed = Service("cachetest/v1", "/computed", name="computed", description="Reads through a cached function.")
calls = []


@uncounted.get(cache="public")
def read_uncounted(request):
    from storeplatform.core.db.generations import generations
    return {"rows": request.db.execute(select(func.count()).select_from(generations)).scalar()}


@as_text.get(cache="public")
def read_as_text(request):
    calls.append("text")
    return {"users": request.db.execute(text("SELECT count(*) FROM users")).scalar()}


@cached
def user_logins(session):
    from storeplatform.api import User
    calls.append("logins")
    return tuple(session.execute(select(User.login).order_by(User.login)).scalars())


@computed.get(cache="public")
def read_computed(request):
    return {"logins": list(user_logins(request.db))}


class CacheTest:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_namespace("cachetest/v1", description="Cached services of a test plugin.")
        config.add_rest_services(uncounted, as_text, computed)


@pytest.fixture
def plugin_site(make_site):
    calls.clear()
    return make_site(plugins=[CacheTest()])


def test_a_cached_answer_that_read_an_uncounted_table_is_an_error_under_the_tests(plugin_site):
    assert_error(plugin_site.app.get("/api/cachetest/v1/uncounted", status=500), 500, "rest_internal_error")


def test_outside_the_tests_it_is_answered_and_never_kept(plugin_site):
    plugin_site.settings[storeplatform.core.cache.STRICT_SETTING] = False
    statements = count_statements(plugin_site)
    for _ in range(2):
        assert plugin_site.app.get("/api/cachetest/v1/uncounted", status=200).json["rows"] >= 0
    assert sum("FROM generations" in s and "count" in s for s in statements) == 2


def test_a_statement_written_as_text_is_answered_and_never_kept(plugin_site):
    for _ in range(2):
        assert plugin_site.app.get("/api/cachetest/v1/text", status=200).json["users"] >= 0
    assert calls == ["text", "text"]


def test_a_cached_function_inside_a_cached_answer_passes_on_what_it_read(plugin_site):
    first = plugin_site.app.get("/api/cachetest/v1/computed", status=200).json
    assert plugin_site.app.get("/api/cachetest/v1/computed", status=200).json == first
    assert calls == ["logins"]
    plugin_site.create_user("zed", "customer")  # users: the auth generation moves on
    assert "zed" in plugin_site.app.get("/api/cachetest/v1/computed", status=200).json["logins"]
    assert calls == ["logins", "logins"]


def test_only_a_view_that_reads_may_be_cached(make_site):
    from pyramid.exceptions import ConfigurationError
    writes = Service("cachetest/v1", "/writes", name="writes", description="A POST that writes.")
    writes.post(cache="public")(lambda request: {})

    class Writes(CacheTest):
        @hookimpl
        def storeplatform_includeme(self, config):
            config.add_rest_namespace("cachetest/v1", description="x")
            config.add_rest_services(writes)

    with pytest.raises(ConfigurationError, match="only a view that reads"):
        make_site(plugins=[Writes()])


# --- the triggers the declarations make ----------------------------------------------------------

def test_migrate_made_the_triggers_the_models_declare(site):
    with site.engine.connect() as connection:
        emitted = emitted_generations(connection)
    declared = declared_generations()
    assert {t: v for t, v in emitted.items()} == {t: declared[t] for t in emitted}
    assert declared["posts"] == ("content", ()) and declared["evt_webhooks"] == ("webhooks", ("topic", "status"))
    assert set(declared) - set(emitted) <= {t for t in declared if t.startswith(("evt_", "invoicing_", "pricecalc_"))}


def test_a_changed_declaration_is_emitted_again_and_an_undeclared_table_loses_its_triggers(site):
    from storeplatform.core.db.meta import metadata
    changed = MetaData()
    for table in metadata.tables.values():
        copy = table.to_metadata(changed)
        copy.info = dict(table.info)
    changed.tables["terms"].info.update({"generation": "content", "generation_columns": ("name",)})
    del changed.tables["options"].info["generation"]
    with site.engine.begin() as connection:
        assert emit_generation_triggers(connection, changed) == ["options", "terms"]
        emitted = emitted_generations(connection)
        assert emitted["terms"] == ("content", ("name",)) and "options" not in emitted
        assert emit_generation_triggers(connection, changed) == []  # made once
        assert emit_generation_triggers(connection) == ["options", "terms"]  # and back
    with site.engine.connect() as connection:
        assert emitted_generations(connection)["options"] == ("options", ())


# --- every cached route: change what it read, see the next answer change ---------------------------

@pytest.fixture
def shop(make_site):
    return make_site(**{"storeplatform.plugins": "events invoicing pricecalc"})


def test_events_list_follows_every_table_option_address_and_date_it_read(shop, monkeypatch):
    admin = shop.headers_for(ADMIN)
    api = "/api/events/v1"
    venue = shop.app.post_json(f"{api}/venues", {"name": "Hall"}, headers=admin, status=201).json
    event_id = shop.app.post_json(f"{api}/events", {"title": "Gig", "venue_id": venue["id"], "start_date": "2031-01-01"},
                                  headers=admin, status=201).json["id"]

    def listed():
        return shop.app.get(f"{api}/events", params={"_embed": "1"}).json[0]

    first = listed()
    assert listed() == first
    shop.app.put_json(f"{api}/events/{event_id}", {"title": "Gig II"}, headers=admin)  # posts
    assert listed()["title"] == "Gig II"
    shop.app.put_json(f"{api}/events/{event_id}", {"start_date": "2031-02-02", "end_date": "2031-02-02"}, headers=admin)  # evt_events
    assert listed()["start_date"].startswith("2031-02-02")
    shop.app.put_json(f"{api}/venues/{venue['id']}", {"name": "Big Hall"}, headers=admin)  # the embedded venue
    assert "Big Hall" in str(listed()["venue"])
    other = shop.app.get(f"{api}/events", params={"_embed": "1"}, extra_environ={"HTTP_HOST": "shop.example"}).json[0]
    assert other["permalink"].startswith("http://shop.example/")  # the site's address as the request names it
    before = listed()["date_created"]
    shop.set_option("site.timezone", "Asia/Tokyo")  # an option
    assert listed()["date_created"] != before
    shop.set_option("events.permalink_base", "https://front.example/happenings")
    assert listed()["permalink"].startswith("https://front.example/happenings/")
    # The date: the same answer is computed afresh the next day.
    statements = count_statements(shop)
    listed()
    assert not any("FROM posts" in s for s in statements)
    real = storeplatform.core.cache._now
    monkeypatch.setattr(storeplatform.core.cache, "_now", lambda: real() + timedelta(days=1))
    listed()
    assert any("FROM posts" in s for s in statements)


def test_products_follow_rows_options_and_the_sale_windows(shop, monkeypatch):
    admin = shop.headers_for(ADMIN)
    soon = datetime.now(timezone.utc) + timedelta(hours=1)
    product = shop.app.post_json("/api/store/v1/products", {
        "name": "Mug", "regular_price": "10.00", "sale_price": "8.00", "sale_from": soon.isoformat()},
        headers=admin, status=201).json
    path = f"/api/store/v1/products/{product['id']}"
    assert shop.app.get(path).json["price"] == 10 and shop.app.get("/api/store/v1/products").json[0]["price"] == 10
    shop.app.put_json(path, {"regular_price": "11.00"}, headers=admin)
    assert shop.app.get(path).json["price"] == 11
    before = shop.app.get(path).json["price_formatted"]
    shop.set_option("store.currency_position", "right")
    assert shop.app.get(path).json["price_formatted"] != before
    # The sale opens in an hour: an hour later, the cached answer no longer holds.
    import storeplatform.components.shop.views.products as views
    later = lambda: datetime.now(timezone.utc) + timedelta(hours=2)  # noqa: E731
    monkeypatch.setattr(storeplatform.core.cache, "_now", later)
    monkeypatch.setattr(views, "utcnow", later)
    assert shop.app.get(path).json["price"] == 8
    assert shop.app.get("/api/store/v1/products").json[0]["on_sale"] is True


def test_orders_follow_their_rows(shop):
    admin = shop.headers_for(ADMIN)
    product = shop.app.post_json("/api/store/v1/products", {"name": "Mug", "regular_price": "10.00"},
                                 headers=admin, status=201).json["id"]
    order = shop.app.post_json("/api/store/v1/orders", {"status": "pending", "line_items": [
        {"product_id": product, "quantity": 1}]}, headers=admin, status=201).json["id"]
    assert shop.app.get(f"/api/store/v1/orders/{order}", headers=admin).json["status"] == "pending"
    shop.app.put_json(f"/api/store/v1/orders/{order}", {"status": "processing"}, headers=admin)
    assert shop.app.get(f"/api/store/v1/orders/{order}", headers=admin).json["status"] == "processing"
    assert shop.app.get("/api/store/v1/orders", headers=admin).json[0]["status"] == "processing"


def test_a_logged_in_callers_answers_are_their_own(shop):
    admin = shop.headers_for(ADMIN)
    shop.app.post_json("/api/store/v1/products", {"name": "Draft", "regular_price": "1.00", "status": "draft"},
                       headers=admin, status=201)
    assert len(shop.app.get("/api/store/v1/products", headers=admin).json) == 1
    assert shop.app.get("/api/store/v1/products").json == []  # anonymous: not the administrator's answer
    assert shop.app.get("/api/store/v1/products", headers=shop.headers_for("customer")).json == []


def test_document_metadata_and_pdf_follow_the_order_document_and_options(shop):
    admin = shop.headers_for(ADMIN)
    shop.set_option("invoicing.rest_api_enabled", True)
    product = shop.app.post_json("/api/store/v1/products", {"name": "Mug", "regular_price": "10.00"},
                                 headers=admin, status=201).json["id"]
    order = shop.app.post_json("/api/store/v1/orders", {"status": "processing", "line_items": [
        {"product_id": product, "quantity": 1}]}, headers=admin, status=201).json["id"]
    path = f"/api/invoicing/v1/documents/{order}"
    first = shop.app.post_json(f"{path}/regenerate", {}, headers=admin, status=200).json
    assert shop.app.get(path, headers=admin).json == first
    pdf = shop.app.get(f"{path}/pdf", headers=admin).body
    again = shop.app.post_json(f"{path}/regenerate", {}, headers=admin, status=200).json  # invoicing_documents
    assert shop.app.get(path, headers=admin).json == again and again["generated_date"] >= first["generated_date"]
    assert shop.app.get(f"{path}/pdf", headers=admin).body.startswith(b"%PDF") and pdf.startswith(b"%PDF")
    shop.set_option("site.timezone", "Asia/Tokyo")
    assert shop.app.get(path, headers=admin).json["generated_date"].endswith("+09:00")
    other = shop.app.get(path, headers=admin, extra_environ={"HTTP_HOST": "books.example"}).json
    assert other["pdf_url"].startswith("http://books.example/")


def test_calculate_follows_the_calculator_and_the_product(shop):
    admin = shop.headers_for(ADMIN)
    product = shop.app.post_json("/api/store/v1/products", {"name": "Board", "regular_price": "10.00"},
                                 headers=admin, status=201).json["id"]
    shop.app.post_json(f"/api/pricecalc/v1/products/{product}/calculator", {
        "calculator_type": "area", "settings": {"pricing_unit": "sq ft"}}, headers=admin, status=200)
    body = {"product_id": product, "measurements": {"width": 2, "length": 3}}
    first = shop.app.post_json("/api/pricecalc/v1/calculate", body, status=200).json
    assert shop.app.post_json("/api/pricecalc/v1/calculate", body, status=200).json == first
    shop.app.put_json(f"/api/store/v1/products/{product}", {"regular_price": "20.00"}, headers=admin)  # products
    second = shop.app.post_json("/api/pricecalc/v1/calculate", body, status=200).json
    assert second != first
    shop.app.post_json(f"/api/pricecalc/v1/products/{product}/calculator", {"settings": {"pricing_unit": "sq m"}},
                       headers=admin, status=200)  # pricecalc_calculators
    assert shop.app.post_json("/api/pricecalc/v1/calculate", body, status=200).json["measurement_unit"] == "sq m"


def test_a_database_whose_triggers_differ_from_the_declarations_is_not_ready(site):
    from storeplatform.core.health import migrations_check
    with site.engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql("DROP TRIGGER sp_generation_terms ON terms")
        else:
            connection.exec_driver_sql("DROP TRIGGER sp_generation_terms_insert")
        assert migrations_check(site.registry, connection) == (
            "not counting what the models declare (generation triggers of terms): run storeplatform -c INI migrate")
        assert emit_generation_triggers(connection) == ["terms"]
        assert migrations_check(site.registry, connection) == "ok"


def test_the_process_cache_drops_its_oldest_entries_first_within_its_caps():
    from storeplatform.core.cache import ProcessCache
    cache = ProcessCache(size=2, max_bytes=100, entry_bytes=60)
    cache.put("a", 1, 10), cache.put("b", 2, 10), cache.put("c", 3, 10)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (None, (2,), (3,))  # entries: a went first
    cache.put("big", 4, 61)
    assert cache.get("big") is None and cache.entries == 2  # beyond one entry's cap: never kept
    cache.put("d", 5, 55), cache.put("e", 6, 50)
    # 55 + 50 would pass 100 bytes: the oldest made room.
    assert (cache.get("d"), cache.get("e"), cache.bytes) == (None, (6,), 50)
    cache.put("e", 7, 20)
    assert (cache.get("e"), cache.bytes) == ((7,), 20)  # a key filed again replaces its value


def test_a_cached_value_holds_records_never_the_sessions_instances(site):
    """An ORM instance in a @cached value would be handed to every thread of the process: under
    the test suite it is an error naming the function; its record (``record_of``) is kept."""
    from storeplatform.api import Product, record_of
    from storeplatform.core.cache import SharedInstance

    @cached
    def product_row(session, product_id):
        return session.get(Product, product_id)

    @cached
    def product_rows(session, product_id):
        return {"rows": [(1, session.get(Product, product_id))]}

    @cached
    def product_record(session, product_id):
        return record_of(session.get(Product, product_id))

    with site.session() as s:
        lamp = Product(name="Lamp", meta={})
        s.add(lamp)
        s.flush()
        lamp_id = lamp.id
    with site.session() as s:
        for kept in (product_row, product_rows):
            with pytest.raises(SharedInstance, match=r"product_rows?\b.*returned Product instance.*record_of"):
                kept(s, lamp_id)
        record = product_record(s, lamp_id)
        assert record.name == "Lamp" and record.id == lamp_id and product_record(s, lamp_id) is record
        with pytest.raises(AttributeError):
            record.name = "Other"
