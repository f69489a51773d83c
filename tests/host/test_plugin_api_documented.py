"""docs/plugins.md and the plugin API name the same names: every name of ``__all__`` of
``storeplatform.api`` is documented in the page's everyday part and every name of
``storeplatform.api.advanced`` in its advanced part (as a heading or a code span naming it:
`` `name` ``, `` `name(args)` ``, `` `@name(...)` ``), and the page documents no name the API
lacks: a code span naming a call (`` `name(...)` ``) or a class or constant (a name with a capital)
must be a name of either face, a hook (docs/hooks.md) or a name of Python or of the libraries a
plugin uses beside the API. A bare lower-case name (`` `page` ``) may be an argument or a value,
so it counts only the first way. The examples' ``from storeplatform.api... import`` lines import
only names of that face."""
import builtins
import importlib
import re
from pathlib import Path

import storeplatform.api as everyday
import storeplatform.api.advanced as advanced

DOC = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"

# Where the names the page mentions beside the API's come from (Decimal, ValueError, Range...).
FOREIGN_MODULES = ("builtins", "decimal", "colander", "sqlalchemy", "pyramid.events", "pyramid.httpexceptions")
HOOK_PREFIXES = ("storeplatform_", "evt_")

CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
NAMED = re.compile(r"^@?([A-Za-z_]\w*)(\(.*\))?$", re.S)
IMPORT = re.compile(r"^\s*from (storeplatform\.api(?:\.advanced)?) import \(?([^)]*?)\)?$", re.M)


def parts(text):
    """The page's parts by ``## `` heading: {title: text}."""
    found = {}
    for chunk in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = chunk.partition("\n")
        found[title.strip()] = body
    return found


def spans(text):
    """(name, is_call) of each code span that names a name (headings' included: `` ### `name` ``),
    fenced blocks left out."""
    found = []
    for span in CODE_SPAN.finditer(FENCE.sub("", text)):
        match = NAMED.match(span.group(2).strip())
        if match:
            found.append((match.group(1), match.group(2) is not None))
    return found


def named(text):
    return {name for name, _ in spans(text)}


def foreign(name):
    for module in FOREIGN_MODULES:
        if hasattr(importlib.import_module(module), name):
            return True
    return False


def undocumented(text):
    page = parts(text)
    missing = [f"storeplatform.api.{name}" for name in everyday.__all__
               if name not in named(page.get("The everyday API", ""))]
    missing += [f"storeplatform.api.advanced.{name}" for name in advanced.__all__
                if name not in named(page.get("The advanced API", ""))]
    return missing


def unknown(text):
    """Names the page documents that neither face has (its test helpers' part aside)."""
    api = set(everyday.__all__) | set(advanced.__all__)
    page = parts(text)
    prose = "\n".join(body for title, body in page.items() if title != "Testing a plugin")
    found = set()
    for name, is_call in spans(prose):
        if not (is_call or name != name.lower()) or name in api or name.startswith(HOOK_PREFIXES) or foreign(name):
            continue
        found.add(name)
    faces = {"storeplatform.api": set(everyday.__all__), "storeplatform.api.advanced": set(advanced.__all__)}
    for block in FENCE.findall(text):
        for module, names in IMPORT.findall(block):
            for name in re.split(r"[\s,]+", names.strip()):
                if name and name.split(" as ")[0] not in faces[module]:
                    found.add(f"{module}.{name}")
    return sorted(found)


def test_every_name_of_both_faces_is_documented():
    assert undocumented(DOC.read_text()) == []


def test_the_page_documents_no_name_the_api_lacks():
    assert unknown(DOC.read_text()) == []


def test_the_checks_find_what_they_look_for():
    page = ("## The everyday API\n- `hookimpl`, `Service(namespace, path)`\n"
            "## The advanced API\n### `DriverStatement`\n- `gone(session, name)`, `Gone`\n"
            "```python\nfrom storeplatform.api import Service, site_transaction\n```\n")
    missing = undocumented(page)
    assert "storeplatform.api.hookimpl" not in missing and "storeplatform.api.Service" not in missing
    assert "storeplatform.api.plugin_enabled" in missing
    assert "storeplatform.api.advanced.DriverStatement" not in missing
    assert "storeplatform.api.advanced.site_transaction" in missing
    assert unknown(page) == ["Gone", "gone", "storeplatform.api.site_transaction"]
    assert unknown(page.replace("`Gone`", "`Decimal`, `ValueError`, `storeplatform_includeme(config)`")) == \
        ["gone", "storeplatform.api.site_transaction"]
