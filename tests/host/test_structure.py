"""The shape of the code, checked: the layers of the host (the kernel below its components, each
component on the kernel and on the components it declares it builds on), no import cycles inside
the host (function-local imports included), and plugins that see the host only through
``storeplatform.api`` (and its ``storeplatform.api.advanced``) and another plugin only through its
published face, the module ``api`` of its package (``storeplatform_events.api``).
docs/architecture.md draws it."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "src" / "storeplatform"
PLUGIN_API = {"storeplatform.api", "storeplatform.api.advanced"}
PLUGIN_SOURCES = [p for p in (ROOT / "plugins").glob("*/storeplatform_*")] + [ROOT / "tests" / "testplugin",
                                                                              ROOT / "docs" / "examples" / "doorlist"]
# The plugins' top-level packages (and the docs example's module): one imports another's published
# face only, ``<package>.api`` (docs/plugins.md, "Building on another plugin").
PLUGIN_PACKAGES = {p.name for p in (ROOT / "plugins").glob("*/storeplatform_*") if (p / "__init__.py").exists()} | {
    "sp_thirdparty", "storeplatform_doorlist"}


def module_name(path, base, package):
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def host_modules():
    return {module_name(p, HOST, "storeplatform"): p for p in HOST.rglob("*.py")}


def import_statements(path, name, known):
    """(line, host module) of each import of ``path`` (module ``name``), wherever the import
    statement is (function-local ones included)."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.append((node.lineno, target))
    return found


def imports_of(path, name, known):
    """The host modules ``path`` (module ``name``) imports."""
    return {target for _, target in import_statements(path, name, known)}


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, result = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return result


KERNEL = "storeplatform.core"
COMPONENTS = "storeplatform.components"


def layer_of(module):
    """"kernel", "component <name>", or None (the app factory, the CLI, the servers, the plugin
    API and the test helpers: the top of the house, which may import anything)."""
    if module == KERNEL or module.startswith(KERNEL + "."):
        return "kernel"
    parts = module.split(".")
    if module.startswith(COMPONENTS + ".") and len(parts) > 2:
        return f"component {parts[2]}"
    return None


def layer_violations(modules, builds_on, root=ROOT):
    """Every import that breaks the layers, as ``path:line: module imports target (why)``:
    the kernel imports only the kernel; a component imports the kernel, itself and the
    components it builds on (``builds_on``: name -> names), never the top."""
    problems = []
    for name, path in sorted(modules.items()):
        layer = layer_of(name)
        if layer is None:
            continue
        for line, target in sorted(import_statements(path, name, modules)):
            below = layer_of(target)
            if layer == "kernel":
                allowed = below == "kernel"
            else:
                own = layer.split()[1]
                allowed = below == "kernel" or below in (f"component {c}" for c in (own, *builds_on.get(own, ())))
            if not allowed:
                why = ("the kernel imports no component and nothing above it" if layer == "kernel" else
                       f"{layer} builds on the kernel and {', '.join(builds_on.get(layer.split()[1], ())) or 'no other component'}")
                problems.append(f"{path.relative_to(root)}:{line}: {name} imports {target} ({why})")
    return problems


def test_the_kernel_is_below_its_components_and_each_component_imports_what_it_builds_on():
    from storeplatform.components import BUILDS_ON

    modules = host_modules()
    assert layer_violations(modules, BUILDS_ON) == []
    # Every component folder is declared, and declares only components that exist.
    folders = {p.name for p in (HOST / "components").iterdir() if (p / "__init__.py").exists()}
    assert folders == set(BUILDS_ON)
    assert {c for deps in BUILDS_ON.values() for c in deps} <= folders


def test_the_layer_check_names_a_planted_wrong_import(tmp_path):
    """Imports planted in a copy of the host: the kernel importing a component, a component
    importing one it does not build on, a component importing the plugin API; each is named
    with its file and line."""
    import shutil

    from storeplatform.components import BUILDS_ON

    copy = tmp_path / "storeplatform"
    shutil.copytree(HOST, copy, ignore=shutil.ignore_patterns("__pycache__", "static", "templates"))
    planted = {
        copy / "core" / "cache.py": "from ..components.shop.models import User\n",
        copy / "components" / "shop" / "orders.py": "    from storeplatform.components.admin import pages\n",
        copy / "components" / "observability" / "metrics.py": "from storeplatform.api import Post\n",
    }
    for path, line in planted.items():
        text = path.read_text()
        if line.startswith("    "):  # a function-local import counts too
            text += "\n\ndef _planted():\n" + line
        else:
            text = line + text
        path.write_text(text)
    modules = {module_name(p, copy, "storeplatform"): p for p in copy.rglob("*.py")}
    found = layer_violations(modules, BUILDS_ON, root=tmp_path)
    assert len(found) == 3, found
    cache, orders, metrics = sorted(found, key=lambda p: ("core" not in p, "shop" not in p))
    assert cache.endswith("storeplatform.core.cache imports storeplatform.components.shop.models "
                          "(the kernel imports no component and nothing above it)"), cache
    assert "components/shop/orders.py:" in orders and "imports storeplatform.components.admin.pages" in orders
    assert "component shop builds on the kernel and no other component" in orders
    assert "storeplatform.components.observability.metrics imports storeplatform.api" in metrics


def test_the_host_has_no_import_cycles():
    modules = host_modules()
    graph = {name: imports_of(path, name, modules) for name, path in modules.items()}
    assert cycles(graph) == []


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def plugin_import_problems(path, packages, root=ROOT):
    """Each import of the plugin module ``path`` that is not the plugin API, its own package or
    another plugin's published face, as ``path:line imports name (why)``. The module's own
    package is the top-level name among ``packages`` that its path holds."""
    own = next((part.removesuffix(".py") for part in path.parts if part.removesuffix(".py") in packages), None)
    problems = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            # ``from storeplatform_events import api`` names the face module itself.
            module = node.module or ""
            names = [f"{module}.{alias.name}" for alias in node.names] if module in packages else [module]
        for name in names:
            top = name.split(".")[0]
            if (name == "storeplatform" or name.startswith("storeplatform.")) and name not in PLUGIN_API:
                problems.append(f"{path.relative_to(root)}:{node.lineno} imports {name} "
                                "(the host: its plugin API only)")
            elif top in packages and top != own and name != f"{top}.api":
                problems.append(f"{path.relative_to(root)}:{node.lineno} imports {name} "
                                f"(another plugin: its published face {top}.api only)")
    return problems


def test_plugins_import_only_the_public_api_and_other_plugins_faces():
    offenders = []
    for source in PLUGIN_SOURCES:
        for path in source.rglob("*.py"):
            offenders += plugin_import_problems(path, PLUGIN_PACKAGES)
    assert offenders == []


def test_the_plugin_import_check_names_a_planted_wrong_import(tmp_path):
    """A plugin may import another plugin's face (both ways of writing it) and its own modules;
    not another plugin's other modules, nor the host beyond its API."""
    module = tmp_path / "storeplatform_things" / "views.py"
    module.parent.mkdir()
    module.write_text("from storeplatform_events import api as events\nimport storeplatform_events.api\n"
                      "from storeplatform_things import models\nfrom storeplatform.api import Service\n"
                      "from storeplatform_events.models import Attendee\n"
                      "from storeplatform_events import attendee_list\n"
                      "import storeplatform_events\nfrom storeplatform.core import cache\n")
    found = plugin_import_problems(module, {"storeplatform_events", "storeplatform_things"}, root=tmp_path)
    assert found == [
        "storeplatform_things/views.py:5 imports storeplatform_events.models (another plugin: its published "
        "face storeplatform_events.api only)",
        "storeplatform_things/views.py:6 imports storeplatform_events.attendee_list (another plugin: its published "
        "face storeplatform_events.api only)",
        "storeplatform_things/views.py:7 imports storeplatform_events (another plugin: its published face "
        "storeplatform_events.api only)",
        "storeplatform_things/views.py:8 imports storeplatform.core (the host: its plugin API only)"], found


def _package_data(setup_py):
    """``package_data`` of a setup.py, read from its syntax tree: {package: [glob, ...]}."""
    tree = ast.parse(setup_py.read_text())
    call = next(node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setup")
    keyword = next(k for k in call.keywords if k.arg == "package_data")
    return ast.literal_eval(keyword.value)


@pytest.mark.parametrize("setup_py", sorted([ROOT / "setup.py", *ROOT.glob("plugins/*/setup.py")]),
                         ids=lambda p: p.parent.name)
def test_every_file_a_package_reads_is_in_its_distribution(setup_py):
    """A template, a static file or a migration left out of ``package_data`` works from the
    checkout (an editable install) and is missing from a wheel: every file in a package folder
    that is not Python must match one of its globs (setuptools matches each glob in the package's
    folder, ``*`` not crossing folders)."""
    for package, globs in _package_data(setup_py).items():
        folder = (setup_py.parent / "src" / package) if (setup_py.parent / "src").is_dir() else setup_py.parent / package
        shipped = {path for pattern in globs for path in folder.glob(pattern) if path.is_file()}
        needed = {path for path in folder.rglob("*") if path.is_file() and path.suffix not in (".py", ".pyc")
                  and "__pycache__" not in path.parts}
        assert not needed - shipped, f"{setup_py.relative_to(ROOT)} does not ship: " + ", ".join(
            sorted(str(p.relative_to(folder)) for p in needed - shipped))
        # Migrations are Python, and read as files: they must be shipped too.
        migrations = {path for path in folder.glob("migrations/versions/*.py")}
        assert migrations <= shipped
