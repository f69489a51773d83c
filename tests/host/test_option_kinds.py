"""Every site option validated by its kind (issue #40, item 5), in the admin, over REST and in
the CLI alike. The sweeps take the options from the running site's plugin manager, so an option
declared later is swept too: each bad value of its kind is refused with the option named and
nothing stored (the options table is compared row by row), and good values are taken. A test
plugin declares the kinds no shipped option uses yet (e-mail, decimal, an optional currency)."""
import logging
import re
import uuid

import pytest
from sqlalchemy import select

from storeplatform.api import OptionSpec, hookimpl
from storeplatform.core.models import Option
from storeplatform.core.options import MAX_LENGTH, TYPES, choices_of, collect_specs
from storeplatform.testing import admin_login, assert_admin_page, assert_error, run_cli

PLUGINS = "invoicing pricecalc events oauth thirdparty thirdparty_tasks"
ADMIN = "administrator"


class OptionKinds:
    """Options of the kinds the shipped plugins do not use, declared through the plugin API."""

    @hookimpl
    def storeplatform_site_options(self):
        return [
            OptionSpec("kinds.contact", "email", "", "kinds", "Contact address"),
            OptionSpec("kinds.sender", "email", "shop@example.com", "kinds", "Sender"),
            OptionSpec("kinds.rate", "decimal", "1.5", "kinds", "Rate", min="0", max="1000.25"),
            OptionSpec("kinds.settlement", "currency", "", "kinds", "Settlement currency"),
            OptionSpec("kinds.note", "text", "", "kinds", "Note", max=50),
        ]


@pytest.fixture
def site(make_site):
    return make_site(plugins=(OptionKinds(),), **{"storeplatform.plugins": PLUGINS})


def specs_of_site(site):
    """Every declared option, as the running site's plugin manager declares them."""
    specs = collect_specs(site.registry["plugins"])
    assert specs.keys() == site.registry["options.specs"].keys()
    return list(specs.values())


def stored(site):
    """The options table, row by row: what "nothing stored" compares."""
    with site.session() as s:
        return {row.key: row.value for row in s.execute(select(Option)).scalars()}


def length_bounds(spec):
    return spec.min or 0, spec.max if spec.max is not None else MAX_LENGTH[spec.type]


# --- the values of each kind ---------------------------------------------------------------------

SURROGATE = "\udcff"  # what Python makes of a byte that is no UTF-8 (an argv, a file name)


def bad_values(spec, choices):
    """``(value, as_text)`` pairs its kind must refuse: ``as_text`` False for a value only JSON
    carries (the admin's forms and the CLI send text)."""
    json_only = [{"a": 1}, None] + ([[1]] if spec.type != "multichoice" else [])
    texts = [SURROGATE, "\x07"]
    kind = spec.type
    if kind == "bool":
        texts += ["maybe", "2", "truee", "ja"]
        json_only += [2, 1.5, "nein"]
    elif kind in ("int", "decimal"):
        low, high = int(spec.min), int(float(spec.max))
        texts += ["ten", "", " ", str(low - 1), str(high + 1), "1" + "0" * 30, "-1" + "0" * 30, "9" * 5000, "0x10",
                  "½", "1,5"]
        json_only += [True, low - 1, high + 1, 10**30, -(10**30), float("1e300")]
        if kind == "int":
            texts += ["1.5", "1e3"]
            json_only += [1.5, float(low)]
        else:
            texts += ["NaN", "Infinity", "-Infinity", "1e400", "0." + "0" * 12 + "1"]
    elif kind in ("string", "text"):
        low, high = length_bounds(spec)
        texts += ["x" * (high + 1), "é" * (high + 1), "a\x00b", "a\x1bb", "a\x85b", "a\rb"]
        json_only += [5, True, ["a"]]
        if kind == "string":
            texts += ["a\nb", "a\tb"]
        if low:
            texts += [""]
    elif kind == "url":
        texts += ["not a url", "ftp://x y", "ftp://example.com/", "https://", "//example.com", "example.com",
                  "https://user:pw@example.com", "https://example.com/?q=1", "https://example.com/#top",
                  "http://example.com:99999", "http://example.com:0", "javascript:alert(1)", "https://exa mple.com",
                  "https://example.com/a b", "https://" + "a" * 2000 + ".com", "https://bad..host", "https://-x.com",
                  "https://example.com/<script>", "http://[::1", "http://999.1.1.1", "https:example.com",
                  "https://example.com\u3000/x", "https://example.com/\x00"]
        json_only += [3, ["https://example.com"]]
    elif kind == "email":
        texts += ["nobody", "a@b", "a b@example.com", "@example.com", "a@", "a@-x.com", "a" * 65 + "@example.com",
                  "ü@example.com", "a@example.com\x07", "a..b@example.com", "a@example..com", "a@1.2.3.4",
                  "a@" + "b" * 250 + ".com", "<a@example.com>"]
        json_only += [3]
    elif kind == "currency":
        texts += ["XYZ123", "XYZ", "US", "USDD", "uſd", "€", "XXX", "XAU", "U S D", "BGN"]
        json_only += [840]
    elif kind == "timezone":
        texts += ["Mars/Base", "", "../../etc/passwd", "/etc/localtime", "europe/paris", "Europe/Paris\x00",
                  "posixrules", "UTC" * 100]
        json_only += [3]
    elif kind == "choice":
        texts += ["upside-down", "x" * 300] + ([""] if "" not in choices else [])
        json_only += [3, True]
    elif kind == "multichoice":
        texts += ["bogus", f"{choices[0]} bogus", '["bogus"]', "[1]", "[", '{"a": 1}']
        json_only += [["bogus"], [1], 3, {"a": 1}, [[choices[0]]]]
    if kind in ("url", "email", "currency") and spec.default != "":
        texts += ["", "  "]
    return [(value, False) for value in json_only] + [(value, True) for value in texts]


def good_values(spec, choices):
    """``(sent, read back)`` pairs its kind takes (each different from the default)."""
    kind = spec.type
    if kind == "bool":
        return [(not spec.default, not spec.default)]
    if kind == "int":
        return [(value, value) for value in (spec.min, spec.max) if value != spec.default]
    if kind == "decimal":
        return [(str(spec.min), str(spec.min)), (str(spec.max), str(spec.max))]
    if kind in ("string", "text"):
        low, high = length_bounds(spec)
        sample = ("’" if high == 1 else ("Grüße, 商店 €" * 1000)[:high])
        pairs = [(sample, sample), ("x" * max(low, 1), "x" * max(low, 1))]
        if kind == "text":
            pairs.append(("one\r\ntwo\tthree", "one\ntwo\tthree"))
        return pairs
    if kind == "url":
        return [("https://bücher.example/e", None), ("https://shop.example.com/", "https://shop.example.com"),
                ("  http://[::1]:8080/shop/ ", "http://[::1]:8080/shop")]
    if kind == "email":
        return [("ann.lee+shop@example.com", None), (" orders@bücher.example ", "orders@bücher.example")]
    if kind == "currency":
        return [("eur", "EUR"), ("JPY", "JPY")]
    if kind == "timezone":
        return [("Europe/Vienna", None), ("America/Argentina/Buenos_Aires", None)]
    if kind == "choice":
        return [(choice, None) for choice in choices if choice != spec.default][:3]
    if kind == "multichoice":
        return [([choices[-1], choices[0]], [choices[0], choices[-1]]), ([], [])]
    raise AssertionError(f"no good values for the kind {kind}")


def text_of(value):
    """A good value as the admin's form and the CLI send it."""
    return value if isinstance(value, str) else ("true" if value is True else "false" if value is False else str(value))


# --- the declarations -----------------------------------------------------------------------------

def test_the_sweep_covers_every_kind_and_every_option_is_bounded(site):
    specs = specs_of_site(site)
    assert {spec.type for spec in specs} == set(TYPES)
    for spec in specs:
        if spec.type in ("int", "decimal"):
            assert spec.min is not None and spec.max is not None, spec.key
        if spec.type in ("string", "text"):
            assert 0 < length_bounds(spec)[1] <= MAX_LENGTH[spec.type], spec.key
    kinds = {spec.key: spec.type for spec in specs}
    assert kinds["site.url"] == "url" and kinds["events.permalink_base"] == "url"
    assert kinds["store.currency"] == "currency" and kinds["site.timezone"] == "timezone"
    by_key = {spec.key: spec for spec in specs}
    assert (by_key["store.thousand_separator"].min, by_key["store.thousand_separator"].max) == (None, 1)
    assert (by_key["store.decimal_separator"].min, by_key["store.decimal_separator"].max) == (1, 1)


class Unbounded:
    @hookimpl
    def storeplatform_site_options(self):
        return [OptionSpec("unbounded.count", "int", 3, "unbounded", "Count", min=0)]


class BadDefault:
    @hookimpl
    def storeplatform_site_options(self):
        return [OptionSpec("bad.home", "url", "shop.example.com", "bad", "Home")]


def test_a_number_option_without_bounds_has_the_implicit_ones(make_site):
    site = make_site(plugins=(Unbounded(),))
    admin = site.headers_for(ADMIN)
    for bad in (10 ** 30, 2 ** 53, -1):
        res = site.app.put_json(site.url("/store/v1/settings/unbounded"), {"unbounded.count": bad}, headers=admin,
                                status=400).json
        assert res["data"]["params"]["unbounded.count"].startswith("unbounded.count must be between 0 and ")
    site.app.put_json(site.url("/store/v1/settings/unbounded"), {"unbounded.count": 2 ** 53 - 1}, headers=admin,
                      status=200)


@pytest.mark.parametrize("plugin,message", [
    (BadDefault(), "option bad.home: its default 'shop.example.com' is refused: bad.home must be an absolute http"),
])
def test_a_declaration_its_kind_cannot_serve_stops_start_up(make_site, plugin, message):
    with pytest.raises(ValueError) as exc:
        make_site(plugins=(plugin,))
    assert str(exc.value).startswith(message)


# --- REST -----------------------------------------------------------------------------------------

def test_rest_refuses_every_bad_value_of_every_option(site):
    admin = site.headers_for(ADMIN)
    specs = specs_of_site(site)
    before = stored(site)
    sent = 0
    for spec in specs:
        choices = choices_of(spec, site.registry)
        # A good value of another option of the section goes with the bad one: nothing is half-saved.
        sibling = next((other for other in specs if other.section == spec.section and other.key != spec.key), None)
        extra = {}
        if sibling is not None:
            extra = {sibling.key: good_values(sibling, choices_of(sibling, site.registry))[0][0]}
        for bad, _ in bad_values(spec, choices):
            res = site.app.put_json(site.url(f"/store/v1/settings/{spec.section}"), {**extra, spec.key: bad},
                                    headers=admin, status="*")
            if isinstance(bad, str) and (SURROGATE in bad or "\x00" in bad):
                # JSON can write them; the REST layer refuses such a body before reading any field.
                assert_error(res, 400, "rest_invalid_json")
                continue
            body = assert_error(res, 400, "rest_invalid_param")
            assert list(body["data"]["params"]) == [spec.key], (spec.key, bad, body)
            assert body["data"]["params"][spec.key].startswith(spec.key), (spec.key, bad, body)
            sent += 1
    assert stored(site) == before
    assert sent >= 10 * len(specs)


def test_rest_takes_the_good_values_of_every_option(site):
    admin = site.headers_for(ADMIN)
    for spec in specs_of_site(site):
        for good, read in good_values(spec, choices_of(spec, site.registry)):
            res = site.app.put_json(site.url(f"/store/v1/settings/{spec.section}"), {spec.key: good}, headers=admin)
            shown = {row["id"]: row["value"] for row in res.json}
            assert shown[spec.key] == (good if read is None else read), spec.key
            assert stored(site)[spec.key] == shown[spec.key]


# --- the admin ------------------------------------------------------------------------------------

def field_error(page, key):
    match = re.search(rf'id="error-field-{re.escape(key.replace(".", "-"))}" role="alert">([^<]*)<', page.text)
    return match and match.group(1)


def test_the_admin_refuses_every_bad_value_beside_its_field(site):
    admin_login(site, "boss", ADMIN)
    before = stored(site)
    forms = {}
    for spec in specs_of_site(site):
        if spec.hidden:
            continue  # on no page: REST and the CLI only
        group = spec.plugin or spec.section
        if group not in forms:
            page = site.app.get(f"/admin/settings/{group}")
            forms[group] = dict(page.forms["settings-form"].submit_fields())
        fields = forms[group]
        assert spec.key in fields, spec.key
        for bad, as_text in bad_values(spec, choices_of(spec, site.registry)):
            if not as_text or "\x00" in bad or SURROGATE in bad:
                continue  # a form is text; NUL and bytes that are no UTF-8 refuse the whole form
            # The whole page is sent, every other field as shown: saving any would store a row.
            body = {**fields, spec.key: bad}
            if spec.type == "multichoice":
                body = {**fields, f"{spec.key}:{bad}": "true"}
            res = assert_admin_page(site.app.post(f"/admin/settings/{group}", body, status="*"), 400,
                                    "Nothing was saved")
            message = field_error(res, spec.key)
            assert message and message.startswith(spec.key), (spec.key, bad, message)
        assert stored(site) == before, spec.key
    res = site.app.post("/admin/settings/store", {**forms["store"], "store.name": "Fine", "store.currency": "XYZ123",
                                                  "store.decimal_separator": ""}, status=400)
    assert 'name="store.name" value="Fine"' in res.text  # what was typed is shown again
    assert field_error(res, "store.currency") == "store.currency must be an ISO 4217 currency code such as USD or EUR"
    assert field_error(res, "store.decimal_separator") == "store.decimal_separator must not be empty"
    assert '<option value="XYZ123" selected>XYZ123</option>' in res.text
    assert stored(site) == before


def test_the_admin_takes_good_values(site):
    admin_login(site, "boss", ADMIN)
    for spec in specs_of_site(site):
        if spec.hidden:
            continue
        group = spec.plugin or spec.section
        for good, read in good_values(spec, choices_of(spec, site.registry)):
            fields = dict(site.app.get(f"/admin/settings/{group}").forms["settings-form"].submit_fields())
            if spec.type == "multichoice":
                fields = {name: value for name, value in fields.items() if not name.startswith(spec.key + ":")}
                fields.update({f"{spec.key}:{choice}": "true" for choice in good})
            else:
                fields[spec.key] = text_of(good)
            res = site.app.post(f"/admin/settings/{group}", fields, status="*")
            assert res.status_int == 303, (spec.key, good, field_error(res, spec.key))
            assert stored(site)[spec.key] == (good if read is None else read), spec.key
    page = site.app.get("/admin/settings/general")
    assert re.search(r'name="site.url" value="http://\[::1\]:8080/shop" type="url"', page.text)
    store = site.app.get("/admin/settings/store")
    assert re.search(r'<select id="field-store-currency" name="store.currency"', store.text)
    assert '<option value="JPY" selected>JPY</option>' in store.text
    assert re.search(r'name="store.decimal_separator" value="x" maxlength="1"', store.text)


# --- the command line -----------------------------------------------------------------------------

@pytest.fixture
def cli_site(make_site, database, tmp_path):
    """The CLI on a site with every installed plugin that declares options (a test plugin object
    cannot be named in an ini)."""
    site = make_site(**{"storeplatform.plugins": PLUGINS})
    ini = tmp_path / "site.ini"
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = {database.url}
huey.url = memory://
storeplatform.plugins = {PLUGINS}
storeplatform.secret = {database.secret}
""")
    site.cli = lambda *args: run_cli("-c", str(ini), *args)
    return site


def test_the_cli_refuses_bad_values_of_every_option_and_takes_good_ones(cli_site):
    """Each command builds the whole site (~0.3 s): every option is swept with one bad value of
    its kind, the next one of the kind's list for each option of that kind (the kinds' rules are
    the ones REST and the admin are swept with above, value by value), and each kind takes a good
    one."""
    before = stored(cli_site)
    turns = {}
    for spec in specs_of_site(cli_site):
        choices = choices_of(spec, cli_site.registry)
        # An argument never holds a NUL; the first two texts are every kind's (a byte that is no
        # UTF-8, a control character), the kind's own follow.
        texts = [bad for bad, as_text in bad_values(spec, choices) if as_text and "\x00" not in bad]
        own = texts[2:]
        turn = turns[spec.type] = turns.get(spec.type, -1) + 1
        for bad in [own[turn % len(own)]] + ([SURROGATE] if turn == 0 else []):
            proc = cli_site.cli("option", "set", spec.key, bad)
            assert proc.returncode != 0 and proc.stdout == "", (spec.key, bad, proc)
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"storeplatform: error: {spec.key}"), (spec.key, bad, lines)
        assert stored(cli_site) == before, spec.key
    proc = cli_site.cli("option", "set", "site.url", "ftp://x y")
    assert proc.stderr.strip() == ("storeplatform: error: site.url must be an absolute http or https URL such as "
                                   'https://shop.example.com (no spaces and none of " < > \\ ^ ` { | })')
    assert stored(cli_site) == before
    kinds = {}
    for spec in specs_of_site(cli_site):
        if kinds.setdefault(spec.type, spec.key) != spec.key:
            continue  # a good value of each kind (REST and the admin take every option's above)
        good, read = good_values(spec, choices_of(spec, cli_site.registry))[-1]
        proc = cli_site.cli("option", "set", spec.key, ", ".join(good) if spec.type == "multichoice" else text_of(good))
        assert proc.returncode == 0, (spec.key, good, proc.stderr)
        assert stored(cli_site)[spec.key] == (good if read is None else read), spec.key
    assert cli_site.cli("option", "set", "store.currency", "chf").stdout == "CHF\n"
    assert cli_site.cli("option", "get", kinds["url"]).stdout == "http://[::1]:8080/shop\n"  # as stored


# --- values stored before their kind refused them -------------------------------------------------

def test_a_stored_value_now_refused_is_read_as_the_default_with_one_warning(make_site, caplog):
    site = make_site(**{"storeplatform.plugins": "events"})
    admin = site.headers_for(ADMIN)
    tag = uuid.uuid4().hex[:8]  # the warnings are once per process and value: this test's own
    old = {"site.url": f"not a url {tag}", "store.currency": f"XYZ{tag}", "store.decimals": 99,
           "store.currency_position": f"upside-{tag}", "site.timezone": f"Mars/{tag}",
           "store.decimal_separator": f"..{tag}", "events.permalink_base": f"front end {tag}"}
    with site.session() as s:
        s.add_all(Option(key=key, value=value) for key, value in old.items())
    caplog.set_level(logging.WARNING, logger="storeplatform.core.options")
    for _ in range(2):
        general = {row["id"]: row["value"] for row in site.app.get(site.url("/store/v1/settings/general"),
                                                                    headers=admin).json}
        assert general["site.url"] == "http://127.0.0.1:6543" and general["site.timezone"] == "UTC"
        assert general["events.permalink_base"] == ""
        product = site.app.post_json(site.url("/store/v1/products"), {"name": "Lamp", "regular_price": "1234.5"},
                                     headers=admin, status=201).json
        assert product["price_formatted"] == "$1,234.50"
    warned = [record.getMessage() for record in caplog.records
              if record.name == "storeplatform.core.options" and tag in record.getMessage()]
    assert len(warned) == len(old) - 1, warned  # store.decimals' 99 names no tag
    assert any(message.startswith(f"option site.url: the stored value 'not a url {tag}' is refused (site.url must be")
               and message.endswith("the default 'http://127.0.0.1:6543' is used until it is set again")
               for message in warned), warned
    admin_login(site, "boss", ADMIN)
    assert_admin_page(site.app.get("/admin/"), 200)
    page = assert_admin_page(site.app.get("/admin/settings/store"), 200)
    assert '<option value="USD" selected>USD</option>' in page.text
    # Setting it again is the way out; the stored row is then the new value.
    site.app.put_json(site.url("/store/v1/settings/general"), {"site.url": "https://shop.example.com/"}, headers=admin)
    assert stored(site)["site.url"] == "https://shop.example.com"


def test_a_served_address_no_url_holds_is_not_written(site):
    from storeplatform.core.startup import served

    url, effective, followed = served(site.registry, "bad host", 6543)
    assert (url, effective, followed) == ("http://bad host:6543", None, False)
    assert "site.url" not in stored(site)
    url, effective, followed = served(site.registry, "::", 6601)
    assert (effective, followed) == ("http://[::1]:6601", True) and stored(site)["site.url"] == "http://[::1]:6601"
