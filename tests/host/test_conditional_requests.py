"""Conditional requests from what the cache already knows (issue #38 item 5): every answer of a
``cache="public"`` GET carries a strong ETag made of its key and the generations it is filed
under; If-None-Match answers 304 without the view; a write of such a service takes If-Match,
If-None-Match and If-Unmodified-Since and answers 412 ``rest_precondition_failed`` when one no
longer holds, writing nothing."""
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from sqlalchemy import func, select

from storeplatform.api import Product, Service, User, hookimpl
from storeplatform.testing import assert_error, count_queries

ADMIN = "administrator"
STORE = "/api/store/v1"
EVENTS = "/api/events/v1"
PRECONDITION_FAILED = {"code": "rest_precondition_failed",
                       "message": "The resource is no longer as the request's precondition says: read it again.",
                       "data": {"status": 412}}


def strong(tag):
    assert tag.startswith('"') and tag.endswith('"') and len(tag) > 2 and '"' not in tag[1:-1], tag
    return tag


def http_date(moment):
    return format_datetime(moment.astimezone(timezone.utc), usegmt=True)


# --- a plugin's cached view that counts its calls --------------------------------------------------

counted = Service("condtest/v1", "/users", name="users", description="Counts users, and its own calls.")
calls = []


@counted.get(cache="public")
def count_users(request):
    calls.append(1)
    return {"users": request.db.execute(select(func.count()).select_from(User)).scalar()}


class CondTest:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_namespace("condtest/v1", description="A cached view that counts its calls.")
        config.add_rest_services(counted)


@pytest.fixture
def plugin_site(make_site):
    calls.clear()
    return make_site(plugins=[CondTest()])


@pytest.fixture
def shop(site):
    admin = site.headers_for(ADMIN)
    product = site.app.post_json(f"{STORE}/products", {"name": "Lamp", "regular_price": "20.00"}, headers=admin,
                                 status=201).json
    return site, admin, f"{STORE}/products/{product['id']}"


# --- ETags on reads ---------------------------------------------------------------------------------

def test_public_answers_carry_a_strong_etag_and_others_none(shop):
    site, admin, product = shop
    assert strong(site.app.get(product).headers["ETag"])
    assert strong(site.app.get(f"{STORE}/products").headers["ETag"])
    order = site.app.post_json(f"{STORE}/orders", {"line_items": [{"product_id": int(product.rsplit("/", 1)[1]),
                                                                   "quantity": 1}]}, headers=admin, status=201).json
    assert strong(site.app.get(f"{STORE}/orders/{order['id']}", headers=admin).headers["ETag"])
    # Not cached, an error, a write: no tag.
    assert "ETag" not in site.app.get(f"{STORE}/users/me", headers=admin).headers
    assert "ETag" not in site.app.get(f"{STORE}/products/999999", status=404).headers
    assert "ETag" not in site.app.put_json(product, {"name": "Desk lamp"}, headers=admin).headers


def test_a_plugin_route_carries_one_too(make_site):
    site = make_site(**{"storeplatform.plugins": "events"})
    admin = site.headers_for(ADMIN)
    site.app.post_json(f"{EVENTS}/events", {"title": "Concert"}, headers=admin, status=201)
    tag = strong(site.app.get(f"{EVENTS}/events").headers["ETag"])
    res = site.app.get(f"{EVENTS}/events", headers={"If-None-Match": tag}, status=304)
    assert res.body == b"" and res.headers["ETag"] == tag


def test_a_matching_if_none_match_is_a_304_without_the_view(plugin_site):
    url = "/api/condtest/v1/users"
    first = plugin_site.app.get(url)
    tag = strong(first.headers["ETag"])
    with count_queries(plugin_site.engine) as hit:
        assert plugin_site.app.get(url).headers["ETag"] == tag
    with count_queries(plugin_site.engine) as revalidated:
        res = plugin_site.app.get(url, headers={"If-None-Match": tag}, status=304)
    assert res.body == b"" and res.headers["ETag"] == tag and "Content-Type" not in res.headers
    assert calls == [1]  # computed once, for the first answer
    assert revalidated() == hit()  # the site state's statement, as any answer from the cache
    assert plugin_site.app.head(url, headers={"If-None-Match": tag}, status=304).body == b""
    assert calls == [1]


def test_if_none_match_compares_weakly_and_takes_lists_and_any(shop):
    site, _, product = shop
    tag = site.app.get(product).headers["ETag"]
    for field in (tag, f"W/{tag}", f'"other", {tag}', f'W/"other" ,W/{tag}', "*"):
        assert site.app.get(product, headers={"If-None-Match": field}, status=304).body == b""
    for field in ('"other"', 'W/"other", "again"'):
        res = site.app.get(product, headers={"If-None-Match": field}, status=200)
        assert res.json["name"] == "Lamp" and res.headers["ETag"] == tag


def test_a_malformed_if_none_match_is_ignored(shop):
    site, _, product = shop
    tag = site.app.get(product).headers["ETag"]
    for field in (tag[1:-1], f"{tag} junk", f'{tag[:-1]}', "W/", ",", 'W/"a b"'):
        assert site.app.get(product, headers={"If-None-Match": field}, status=200).json["name"] == "Lamp"


def test_a_write_changes_the_etag(shop):
    site, admin, product = shop
    before = site.app.get(product).headers["ETag"]
    listed = site.app.get(f"{STORE}/products").headers["ETag"]
    site.app.put_json(product, {"name": "Desk lamp"}, headers=admin)
    res = site.app.get(product, headers={"If-None-Match": before}, status=200)
    assert res.json["name"] == "Desk lamp" and res.headers["ETag"] != before
    assert site.app.get(f"{STORE}/products", headers={"If-None-Match": listed}, status=200).headers["ETag"] != listed
    # A write from outside REST moves the generations on as well.
    after = res.headers["ETag"]
    with site.session() as s:
        s.get(Product, int(product.rsplit("/", 1)[1])).name = "Floor lamp"
    assert site.app.get(product, headers={"If-None-Match": after}, status=200).json["name"] == "Floor lamp"


def test_a_plugin_list_follows_its_writes(make_site):
    site = make_site(**{"storeplatform.plugins": "events"})
    admin = site.headers_for(ADMIN)
    tag = site.app.get(f"{EVENTS}/venues").headers["ETag"]
    site.app.post_json(f"{EVENTS}/venues", {"name": "Hall"}, headers=admin, status=201)
    res = site.app.get(f"{EVENTS}/venues", headers={"If-None-Match": tag}, status=200)
    assert [v["name"] for v in res.json] == ["Hall"] and res.headers["ETag"] != tag


def test_another_caller_or_query_string_gets_its_own_etag(shop):
    site, admin, _ = shop
    site.app.post_json(f"{STORE}/products", {"name": "Draft", "regular_price": "1.00", "status": "draft"},
                       headers=admin, status=201)
    public = site.app.get(f"{STORE}/products")
    managed = site.app.get(f"{STORE}/products", headers=admin)
    assert len(managed.json) == 2 and len(public.json) == 1
    assert public.headers["ETag"] != managed.headers["ETag"]
    # A caller's tag is no good for another: the answer may differ.
    site.app.get(f"{STORE}/products", headers={"If-None-Match": managed.headers["ETag"]}, status=200)
    assert site.app.get(f"{STORE}/products", headers={**admin, "If-None-Match": managed.headers["ETag"]},
                        status=304).body == b""
    one = site.app.get(f"{STORE}/products?per_page=1", headers=admin)
    assert len(one.json) == 1 and one.headers["ETag"] != managed.headers["ETag"]
    # Anonymous callers share answers, and so their tags.
    assert site.app.get(f"{STORE}/products", extra_environ={"REMOTE_ADDR": "10.0.0.9"}).headers["ETag"] == \
        public.headers["ETag"]


def test_a_remembered_revalidation_still_follows_the_state_the_caller_and_the_address(shop):
    """From the second revalidation of the same request on, the process compares before it
    validates the query again (#39): the answers are the same as the long way's."""
    site, admin, product = shop
    listed = f"{STORE}/products?per_page=5&orderby=title"
    tag = site.app.get(listed).headers["ETag"]
    for _ in range(3):
        assert site.app.get(listed, headers={"If-None-Match": tag}, status=304).headers["ETag"] == tag
    # Another address of the site, another caller, a query the schema refuses: their own answers.
    other = site.app.get(listed, headers={"If-None-Match": tag}, extra_environ={"HTTP_HOST": "shop.example"},
                         status=200)
    assert other.headers["ETag"] != tag
    assert site.app.get(listed, headers={**admin, "If-None-Match": tag}, status=200).headers["ETag"] != tag
    refused = site.app.get(f"{STORE}/products?per_page=500&orderby=title", headers={"If-None-Match": tag}, status=400)
    assert refused.json["code"] == "rest_invalid_param"
    # A write moves the tag on; the new one is remembered in its turn.
    site.app.put_json(product, {"name": "Desk lamp"}, headers=admin)
    res = site.app.get(listed, headers={"If-None-Match": tag}, status=200)
    assert res.json[0]["name"] == "Desk lamp" and res.headers["ETag"] != tag
    for _ in range(3):
        site.app.get(listed, headers={"If-None-Match": res.headers["ETag"]}, status=304)


def test_a_caller_who_may_no_longer_read_is_refused_not_told_unchanged(site):
    admin = site.headers_for(ADMIN)
    site.create_user("clerk", "shop_manager", password="clerk-password-1")
    clerk = site.headers_for("clerk")
    product = site.app.post_json(f"{STORE}/products", {"name": "Lamp", "regular_price": "20.00"}, headers=admin).json
    order = site.app.post_json(f"{STORE}/orders", {"line_items": [{"product_id": product["id"], "quantity": 1}]},
                               headers=admin, status=201).json
    url = f"{STORE}/orders/{order['id']}"
    tag = site.app.get(url, headers=clerk).headers["ETag"]
    for _ in range(3):
        site.app.get(url, headers={**clerk, "If-None-Match": tag}, status=304)
    with site.session() as s:
        s.execute(User.__table__.update().where(User.login == "clerk").values(role="customer"))
    res = site.app.get(url, headers={**clerk, "If-None-Match": tag}, status=403)
    assert res.json["data"]["status"] == 403


@pytest.mark.in_process  # the tags of two sites compared: served, each would have its own address
def test_every_process_gives_the_same_tag_for_the_same_state(plugin_site, make_site):
    other = make_site(plugins=[CondTest()])  # a second process of the site: its own cache
    url = "/api/condtest/v1/users"
    tag = plugin_site.app.get(url).headers["ETag"]
    assert calls == [1]
    # The other process has never answered it: it computes the answer, finds the same tag, and
    # answers 304; then it knows the route and answers 304 without the view.
    assert other.app.get(url, headers={"If-None-Match": tag}, status=304).body == b""
    assert other.app.get(url, headers={"If-None-Match": tag}, status=304).headers["ETag"] == tag
    assert calls == [1, 1]
    plugin_site.create_user("zed", "customer")
    moved = other.app.get(url, headers={"If-None-Match": tag}, status=200).headers["ETag"]
    assert moved != tag and plugin_site.app.get(url).headers["ETag"] == moved


@pytest.mark.in_process
def test_the_namespace_variant_is_part_of_the_tag(make_site):
    standard = make_site(**{"storeplatform.plugins": "events"})
    alternate = make_site(**{"storeplatform.plugins": "events", "events.api_variant": "alternate"})
    admin = standard.headers_for(ADMIN)
    standard.app.post_json(f"{EVENTS}/venues", {"name": "Hall", "postal": "1010"}, headers=admin, status=201)
    standard.app.post_json(f"{EVENTS}/organizers", {"name": "Society"}, headers=admin, status=201)
    # The venues list is another view in the variant (postal_code), the organizers list the same one.
    ours, theirs = standard.app.get(f"{EVENTS}/venues"), alternate.app.get(f"{EVENTS}/venues")
    assert ours.json != theirs.json and ours.headers["ETag"] != theirs.headers["ETag"]
    alternate.app.get(f"{EVENTS}/venues", headers={"If-None-Match": ours.headers["ETag"]}, status=200)
    ours, theirs = standard.app.get(f"{EVENTS}/organizers"), alternate.app.get(f"{EVENTS}/organizers")
    assert ours.json == theirs.json and ours.headers["ETag"] == theirs.headers["ETag"]


# --- preconditions of writes ------------------------------------------------------------------------

def test_if_match_that_no_longer_matches_is_412_and_writes_nothing(shop):
    site, admin, product = shop
    tag = site.app.get(product, headers=admin).headers["ETag"]
    site.app.put_json(product, {"name": "Desk lamp"}, headers=admin)
    for method in (site.app.put_json, site.app.patch_json):
        res = method(product, {"name": "Stale"}, headers={**admin, "If-Match": tag}, expect_errors=True)
        if res.status_int == 405:  # no PATCH route
            continue
        assert_error(res, 412, "rest_precondition_failed")
        assert res.json == PRECONDITION_FAILED
    assert_error(site.app.delete(product, headers={**admin, "If-Match": tag}, status=412), 412,
                 "rest_precondition_failed")
    assert site.app.get(product, headers=admin).json["name"] == "Desk lamp"


def test_if_match_that_matches_writes_and_its_tag_is_then_stale(shop):
    site, admin, product = shop
    tag = site.app.get(product, headers=admin).headers["ETag"]
    assert site.app.put_json(product, {"name": "Desk lamp"}, headers={**admin, "If-Match": f'"x", {tag}'},
                             status=200).json["name"] == "Desk lamp"
    assert site.app.put_json(product, {"name": "Again"}, headers={**admin, "If-Match": tag}, status=412).json == \
        PRECONDITION_FAILED
    fresh = site.app.get(product, headers=admin).headers["ETag"]
    site.app.delete(product, headers={**admin, "If-Match": fresh}, status=200)
    site.app.get(product, headers=admin, status=404)


def test_if_match_compares_strongly_against_the_callers_answer(shop):
    site, admin, product = shop
    mine = site.app.get(product, headers=admin).headers["ETag"]
    anonymous = site.app.get(product).headers["ETag"]
    assert anonymous != mine
    for field in (f"W/{mine}", anonymous, mine[1:-1], "", ","):  # weak, another caller's, malformed
        assert site.app.put_json(product, {"name": "No"}, headers={**admin, "If-Match": field}, status=412).json == \
            PRECONDITION_FAILED
    assert site.app.get(product).json["name"] == "Lamp"


def test_if_match_any_needs_a_current_answer(shop):
    site, admin, product = shop
    site.app.put_json(product, {"name": "Any"}, headers={**admin, "If-Match": "*"}, status=200)
    site.app.put_json(f"{STORE}/products/999999", {"name": "None"}, headers={**admin, "If-Match": "*"}, status=412)
    site.app.put_json(f"{STORE}/products/999999", {"name": "None"}, headers=admin, status=404)


def test_if_none_match_on_a_write(shop):
    site, admin, product = shop
    tag = site.app.get(product, headers=admin).headers["ETag"]
    for field in ("*", tag, f"W/{tag}"):
        site.app.put_json(product, {"name": "No"}, headers={**admin, "If-None-Match": field}, status=412)
    site.app.put_json(product, {"name": "Yes"}, headers={**admin, "If-None-Match": '"other"'}, status=200)


def test_if_unmodified_since(shop):
    site, admin, product = shop
    modified = datetime.fromisoformat(site.app.get(product).json["date_modified"])
    res = site.app.put_json(product, {"name": "No"}, headers={**admin, "If-Unmodified-Since": http_date(
        modified - timedelta(days=1))}, status=412)
    assert res.json == PRECONDITION_FAILED
    assert site.app.get(product).json["name"] == "Lamp"
    # The item's own date, to the second as HTTP-dates go, holds.
    site.app.put_json(product, {"name": "Yes"}, headers={**admin, "If-Unmodified-Since": http_date(modified)},
                      status=200)
    # A malformed date is ignored (RFC 9110 13.1.4); If-Match, when given, decides alone.
    site.app.put_json(product, {"name": "Ignored"}, headers={**admin, "If-Unmodified-Since": "yesterday"},
                      status=200)
    tag = site.app.get(product, headers=admin).headers["ETag"]
    site.app.put_json(product, {"name": "Matched"}, headers={**admin, "If-Match": tag,
                                                               "If-Unmodified-Since": http_date(modified)}, status=200)


def test_the_precondition_comes_after_the_permission_and_before_the_body(shop):
    site, admin, product = shop
    assert_error(site.app.put_json(product, {"name": "x"}, headers={"If-Match": '"x"'}, status=401), 401,
                 "rest_not_logged_in")
    assert site.app.put_json(product, {"regular_price": "not a price"}, headers={**admin, "If-Match": '"x"'},
                             status=412).json == PRECONDITION_FAILED


def test_a_plugin_item_route_takes_preconditions(make_site):
    site = make_site(**{"storeplatform.plugins": "pricecalc"})
    manager = site.headers_for("shop_manager")
    with site.session() as s:
        product = Product(name="Oak", regular_price=5, meta={})
        s.add(product)
        s.flush()
        product_id = product.id
    url = f"/api/pricecalc/v1/products/{product_id}/calculator"
    site.app.post_json(url, {"calculator_type": "area"}, headers=manager)
    tag = strong(site.app.get(url, headers=manager).headers["ETag"])
    site.app.post_json(url, {"settings": {"overage": "5"}}, headers={**manager, "If-Match": tag})
    assert site.app.post_json(url, {"settings": {"overage": "9"}}, headers={**manager, "If-Match": tag},
                              status=412).json == PRECONDITION_FAILED
    assert site.app.get(url, headers=manager).json["overage"] == "5"


def test_a_write_of_a_route_without_tags_refuses_if_match(make_site):
    site = make_site(**{"storeplatform.plugins": "events"})
    admin = site.headers_for(ADMIN)
    venue = site.app.post_json(f"{EVENTS}/venues", {"name": "Hall"}, headers=admin, status=201).json
    url = f"{EVENTS}/venues/{venue['id']}"
    assert "ETag" not in site.app.get(url).headers  # not cache="public": nothing to compare with
    res = site.app.put_json(url, {"name": "Changed"}, headers={**admin, "If-Match": "*"}, status=412)
    assert_error(res, 412, "rest_precondition_failed")
    site.app.put_json(url, {"name": "Changed"}, headers={**admin, "If-None-Match": "*"}, status=412)
    # No modification date the host knows: If-Unmodified-Since is ignored (RFC 9110 13.1.4).
    site.app.put_json(url, {"name": "Changed"}, headers={**admin, "If-Unmodified-Since": http_date(
        datetime(2000, 1, 1, tzinfo=timezone.utc))}, status=200)
    # The events collection's GET is cached: its POST compares with the list's tag.
    listed = site.app.get(f"{EVENTS}/events", headers=admin).headers["ETag"]
    site.app.post_json(f"{EVENTS}/events", {"title": "Two"}, headers={**admin, "If-Match": listed}, status=201)
    site.app.post_json(f"{EVENTS}/events", {"title": "Three"}, headers={**admin, "If-Match": listed}, status=412)


# --- a commit between the comparison and the write (PostgreSQL) ---------------------------------------

class ConcurrentChange:
    """Commits a change of another product from another connection while an order's status
    changes: as if another request committed between the precondition and the write's commit."""

    def __init__(self):
        self.site = None

    @hookimpl
    def storeplatform_order_status_changed(self, order, old_status, new_status):
        with self.site.session() as s:
            s.execute(select(Product).where(Product.name == "Other")).scalar_one().name = "Other, renamed"


def test_a_commit_after_the_comparison_refuses_the_write(make_site):
    change = ConcurrentChange()
    site = make_site(plugins=[change])
    if site.engine.dialect.name != "postgresql":
        pytest.skip("SQLite's writers take turns from their first statement: nothing commits in between")
    change.site = site
    admin = site.headers_for(ADMIN)
    lamp = site.app.post_json(f"{STORE}/products", {"name": "Lamp", "regular_price": "20.00"}, headers=admin,
                              status=201).json["id"]
    site.app.post_json(f"{STORE}/products", {"name": "Other", "regular_price": "1.00"}, headers=admin, status=201)
    order = site.app.post_json(f"{STORE}/orders", {"line_items": [{"product_id": lamp, "quantity": 1}]},
                               headers=admin, status=201).json
    url = f"{STORE}/orders/{order['id']}"
    tag = site.app.get(url, headers=admin).headers["ETag"]
    res = site.app.put_json(url, {"status": "completed"}, headers={**admin, "If-Match": tag}, status=412)
    assert res.json == PRECONDITION_FAILED
    assert site.app.get(url, headers=admin).json["status"] == "pending"  # rolled back
    assert site.app.get(f"{STORE}/products?search=Other").json[0]["name"] == "Other, renamed"
