"""The plugin manager: entry points, enable list, hook documentation, filters and actions."""
from pathlib import Path

import pluggy
import pytest

from storeplatform.plugins import PluginError, apply_filters, available_plugins, call_action, make_plugin_manager

ROOT = Path(__file__).resolve().parents[2]


def documented_text():
    texts = [(ROOT / "README.md").read_text()] + [p.read_text() for p in (ROOT / "docs").glob("*.md")]
    return "\n".join(texts)


def test_every_hookspec_is_documented():
    """Host hookspecs and those plugins add (e.g. events' evt_*) must each be in README or docs/."""
    names = sorted(set(available_plugins()) - {"broken"})
    pm = make_plugin_manager(names)
    text = documented_text()
    specs = [name for name in dir(pm.hook) if not name.startswith("_")
             and getattr(getattr(pm.hook, name), "spec", None) is not None]
    assert "storeplatform_includeme" in specs
    missing = [name for name in specs if f"`{name}" not in text]
    assert missing == [], f"hookspecs not documented in README.md or docs/: {missing}"
    for name in specs:
        assert getattr(pm.hook, name).spec.function.__doc__, f"{name} has no docstring"


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
