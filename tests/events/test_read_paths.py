"""One read path per entity (#38), checked on the events plugin's source: the admin's modules
read through the domain modules REST reads through, never through a REST view module; no module
takes a private name of another; each list has the one module that builds its statement, which
REST (both variants) and the admin call. docs/architecture.md, "One read path per entity"."""
import ast
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugins" / "events" / "storeplatform_events"
PACKAGE = "storeplatform_events"
# The REST layer: the standard views, the alternate variant's, the webhooks' routes.
REST_VIEWS = (f"{PACKAGE}.views", f"{PACKAGE}.alternate", f"{PACKAGE}.webhooks.views")
# Each list's one statement builder, and the modules that must read the list through it.
READ_PATHS = {
    f"{PACKAGE}.event_list": ("admin_events", "admin_dashboard", "views.posts", "alternate.events"),
    f"{PACKAGE}.attendee_list": ("admin_attendees", "views.attendees", "alternate.attendees"),
}


def plugin_modules(base=PLUGIN):
    """{dotted module name: path} of every module of the plugin (its packages included)."""
    found = {}
    for path in base.rglob("*.py"):
        parts = [PACKAGE, *path.relative_to(base).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def is_admin(name):
    """The admin's modules: ``admin_*``, ``webhooks.admin``, and the desk's ``desk``."""
    last = name.rpartition(".")[2]
    return last.startswith("admin") or last == "desk"


def imports(path, name, known):
    """(line, source module, imported name or None, local name) of each import of ``path``
    (module ``name``), function-local ones included; the imported name is None when it is a
    module of the plugin (``from . import views``) rather than a name inside ``source``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, None, alias.asname or alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = package.split(".")
                source = ".".join(base[:len(base) - (node.level - 1)] + ([node.module] if node.module else []))
            for alias in node.names:
                module = f"{source}.{alias.name}"
                if module in known:
                    found.append((node.lineno, module, None, alias.asname or alias.name))
                else:
                    found.append((node.lineno, source, alias.name, alias.asname or alias.name))
    return found


def rest_view_imports(modules, root=ROOT):
    """``path:line: module imports rest view`` for each import of a REST view module by an admin
    module."""
    problems = []
    for name, path in sorted(modules.items()):
        if not is_admin(name):
            continue
        for line, source in sorted({(line, source) for line, source, _, _ in imports(path, name, modules)}):
            if any(source == view or source.startswith(view + ".") for view in REST_VIEWS):
                problems.append(f"{path.relative_to(root)}:{line}: {name} imports {source}")
    return problems


def private_names_taken(modules, root=ROOT):
    """``path:line: module takes source._name`` for each private name of another module of the
    plugin that a module imports (``from .x import _name``) or reads (``x._name``)."""
    problems = []
    for name, path in sorted(modules.items()):
        bound = {}
        for line, source, imported, local in imports(path, name, modules):
            if imported is None and source in modules:
                bound[local] = source
            elif imported and source in modules and source != name and _private(imported):
                problems.append(f"{path.relative_to(root)}:{line}: {name} takes {source}.{imported}")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _private(node.attr):
                if bound.get(node.value.id, name) != name:
                    problems.append(f"{path.relative_to(root)}:{node.lineno}: {name} takes "
                                    f"{bound[node.value.id]}.{node.attr}")
    return problems


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def test_no_admin_module_reads_through_a_rest_view():
    modules = plugin_modules()
    assert {name for name in modules if is_admin(name)} >= {
        f"{PACKAGE}.admin_events", f"{PACKAGE}.admin_attendees", f"{PACKAGE}.admin_dashboard",
        f"{PACKAGE}.admin_desk", f"{PACKAGE}.desk", f"{PACKAGE}.webhooks.admin"}
    assert rest_view_imports(modules) == []


def test_no_module_takes_a_private_name_of_another():
    assert private_names_taken(plugin_modules()) == []


def test_rest_and_the_admin_read_each_list_through_its_one_module():
    modules = plugin_modules()
    for builder, readers in READ_PATHS.items():
        for reader in readers:
            name = f"{PACKAGE}.{reader}"
            sources = {source for _, source, _, _ in imports(modules[name], name, modules)}
            assert builder in sources, f"{name} does not read its list through {builder}"


def test_the_checks_name_planted_wrong_imports(tmp_path):
    """Imports planted in a copy of the plugin: an admin page importing a REST view module, a
    function-local one in the webhooks' admin, the desk taking a private name, the alternate
    variant reading one; each is named with its file and line."""
    copy = tmp_path / PACKAGE
    shutil.copytree(PLUGIN, copy, ignore=shutil.ignore_patterns("__pycache__", "admin_static", "admin_templates",
                                                                "migrations"))
    planted = {
        copy / "admin_attendees.py": "from .views.attendees import attendee_query\n",
        copy / "webhooks" / "admin.py": "    from ..views import posts\n",
        copy / "desk.py": "from .queries import _planted\n",
        copy / "alternate" / "speakers.py": "    from .. import schemas as standard\n    standard._planted\n",
    }
    for path, lines in planted.items():
        text = path.read_text()
        path.write_text(text + "\n\ndef _planted():\n" + lines if lines.startswith("    ") else lines + text)
    modules = plugin_modules(copy)
    views = rest_view_imports(modules, root=tmp_path)
    assert len(views) == 2, views
    assert views[0].startswith(f"{PACKAGE}/admin_attendees.py:1: ") and views[0].endswith(
        f"imports {PACKAGE}.views.attendees")
    assert f"{PACKAGE}/webhooks/admin.py:" in views[1] and views[1].endswith(f"imports {PACKAGE}.views.posts")
    private = private_names_taken(modules, root=tmp_path)
    assert len(private) == 2, private
    assert any(p.startswith(f"{PACKAGE}/alternate/speakers.py:") and p.endswith(f"takes {PACKAGE}.schemas._planted")
               for p in private), private
    assert any(p.startswith(f"{PACKAGE}/desk.py:1: ") and p.endswith(f"takes {PACKAGE}.queries._planted")
               for p in private), private
