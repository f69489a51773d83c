"""The plugin manager: entry points, enable list, hook documentation, filters and actions."""
import re
from pathlib import Path

import pluggy
import pytest

from storeplatform.core.plugins import PluginError, apply_filters, available_plugins, call_action, make_plugin_manager

ROOT = Path(__file__).resolve().parents[2]


# A hook's heading in docs/: ``### `name(arg, arg)` `` (the exact argument list of its spec).
HOOK_HEADING = re.compile(r"^#{2,4} `(\w+)\(([^)]*)\)`\s*$", re.MULTILINE)


def documented_hooks():
    """{hook name: [argument names]} from the headings of README.md and docs/*.md."""
    found = {}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for name, args in HOOK_HEADING.findall(path.read_text()):
            assert name not in found, f"{name} has two headings"
            found[name] = [a.strip() for a in args.split(",") if a.strip()]
    return found


def hookspecs(pm):
    return {name: list(hook.spec.argnames) for name, hook in vars(pm.hook).items()
            if not name.startswith("_") and getattr(hook, "spec", None) is not None}


def test_every_hookspec_has_a_heading_with_its_exact_arguments():
    """Host hookspecs and those plugins add (events' evt_*): a heading each, the argument list
    exactly the spec's, a docstring, and no heading of a hook that does not exist."""
    pm = make_plugin_manager(sorted(set(available_plugins()) - {"broken"}))
    specs = hookspecs(pm)
    assert "storeplatform_includeme" in specs and "evt_rest_prepare_event" in specs
    documented = documented_hooks()
    assert {name: documented.get(name) for name in specs} == specs
    assert sorted(set(documented) - set(specs)) == []
    for name in specs:
        assert getattr(pm.hook, name).spec.function.__doc__, f"{name} has no docstring"


def test_the_heading_check_reads_the_argument_list():
    text = "## `storeplatform_order_created(order)`\n\n### `evt_thing(a, b)`\n"
    assert HOOK_HEADING.findall(text) == [("storeplatform_order_created", "order"), ("evt_thing", "a, b")]


def test_unknown_plugin_stops_start_up_naming_it():
    with pytest.raises(PluginError, match="unknown plugin 'nosuch'"):
        make_plugin_manager(["nosuch"])


def test_broken_plugin_stops_start_up_naming_it():
    with pytest.raises(PluginError, match="plugin 'broken' failed to load: ImportError: this plugin is broken"):
        make_plugin_manager(["broken"])


def test_unknown_plugin_stops_the_app(make_site):
    with pytest.raises(PluginError, match="nosuch"):
        make_site(**{"storeplatform.plugins": "nosuch"})


def test_plugins_are_loaded_only_when_listed():
    assert not make_plugin_manager([]).has_plugin("thirdparty")
    assert make_plugin_manager(["thirdparty"]).has_plugin("thirdparty")


class Spec:
    hookspec = pluggy.HookspecMarker("storeplatform")

    @hookspec
    def demo_filter(self, value, extra):
        """A filter for the test."""

    @hookspec
    def demo_action(self, seen):
        """An action for the test."""


def make_pm(*plugins):
    pm = pluggy.PluginManager("storeplatform")
    pm.add_hookspecs(Spec)
    for p in plugins:
        pm.register(p)
    return pm


impl = pluggy.HookimplMarker("storeplatform")


def test_filter_chain_passes_the_value_along():
    class Double:
        @impl
        def demo_filter(self, value):
            return value * 2

    class AddExtra:
        @impl
        def demo_filter(self, value, extra):
            return value + extra

    class KeepIt:
        @impl
        def demo_filter(self, value):
            return None

    # pluggy order: last registered runs first -> KeepIt, AddExtra, Double
    pm = make_pm(Double(), AddExtra(), KeepIt())
    assert apply_filters(pm.hook.demo_filter, 1, extra=10) == 22


def test_action_runs_every_implementation_even_when_one_fails():
    class Fails:
        @impl
        def demo_action(self, seen):
            seen.append("fails")
            raise ValueError("boom")

    class Records:
        @impl
        def demo_action(self, seen):
            seen.append("records")

    seen = []
    pm = make_pm(Records(), Fails())
    with pytest.raises(ValueError, match="boom"):
        call_action(pm.hook.demo_action, seen=seen)
    assert seen == ["fails", "records"]


def test_a_plugin_implementing_an_unknown_hook_is_named():
    class Speakers:
        @impl
        def evt_rest_prepare_event(self, data):
            return data

    with pytest.raises(PluginError) as raised:
        make_plugin_manager([], extra=[Speakers()])
    assert str(raised.value) == ("plugin 'Speakers' implements hook 'evt_rest_prepare_event', which no enabled "
                                 "plugin declares: it is declared by plugin 'events', add it to storeplatform.plugins")
    assert "\n" not in str(raised.value)


def test_a_hook_no_installed_plugin_declares_is_named():
    class Typo:
        @impl
        def evt_rest_prepare_evnt(self, data):
            return data

    with pytest.raises(PluginError, match="^plugin 'Typo' implements hook 'evt_rest_prepare_evnt', which no enabled "
                                          "plugin declares: no installed plugin declares it$"):
        make_plugin_manager(["events"], extra=[Typo()])
