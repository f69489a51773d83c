"""The shape of the code, checked: no import cycles inside the host (function-local imports
included), and plugins that see the host only through ``storeplatform.api`` (and its
``storeplatform.api.advanced``)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "src" / "storeplatform"
PLUGIN_API = {"storeplatform.api", "storeplatform.api.advanced"}
PLUGIN_SOURCES = [p for p in (ROOT / "plugins").glob("*/storeplatform_*")] + [ROOT / "tests" / "testplugin"]


def module_name(path, base, package):
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def host_modules():
    return {module_name(p, HOST, "storeplatform"): p for p in HOST.rglob("*.py")}


def imports_of(path, name, known):
    """The host modules ``path`` (module ``name``) imports, wherever the import statement is."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found = set()
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
                found.add(target)
    return found


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


def test_the_host_has_no_import_cycles():
    modules = host_modules()
    graph = {name: imports_of(path, name, modules) for name, path in modules.items()}
    assert cycles(graph) == []


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_plugins_import_only_the_public_api():
    offenders = []
    for source in PLUGIN_SOURCES:
        for path in source.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level:
                    names = [node.module or ""]
                for name in names:
                    if (name == "storeplatform" or name.startswith("storeplatform.")) and name not in PLUGIN_API:
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert offenders == []


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
