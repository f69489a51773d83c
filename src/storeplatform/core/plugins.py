"""The plugin manager: plugins come from entry points and are enabled by the ini file."""
import importlib
import logging
from importlib.metadata import entry_points
from types import ModuleType

import pluggy

from . import hookspecs
from .cache import refuse

ENTRY_POINT_GROUP = "storeplatform.plugins"
log = logging.getLogger(__name__)

# The kernel's own modules that implement hooks, registered like any plugin.
KERNEL_PLUGINS = (
    "storeplatform.core.hooks",
    "storeplatform.core.rest.namespaces",
)


class PluginError(Exception):
    """A plugin named in the ini cannot be loaded; the message names it."""


def available_plugins():
    """{name: entry point} of the plugins installed, as this process found them first: the
    distributions of a running process do not change (an install is followed by a restart), and
    reading every distribution's metadata again costs a few milliseconds per site made."""
    global _installed
    if _installed is None:
        _installed = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return dict(_installed)


_installed = None


def make_plugin_manager(enabled, extra=(), components=()):
    """A new manager with the kernel's hook implementations, then ``components`` (module names:
    the first-party components', ``storeplatform.components.PLUGINS``), the plugins named in
    ``enabled`` (entry point names) and the plugin objects in ``extra`` (registered as they are,
    e.g. by tests)."""
    pm = pluggy.PluginManager("storeplatform")
    pm.add_hookspecs(hookspecs)
    for name in (*KERNEL_PLUGINS, *components):
        pm.register(importlib.import_module(name), name=name)
    found = available_plugins() if enabled else {}
    plugins = []
    for name in enabled:
        if name not in found:
            known = ", ".join(sorted(found)) or "none"
            raise PluginError(f"unknown plugin {name!r} in storeplatform.plugins (installed: {known})")
        try:
            plugins.append((name, found[name].load()))
        except Exception as exc:  # a broken plugin stops start-up with one clear line
            raise PluginError(f"plugin {name!r} failed to load: {exc.__class__.__name__}: {exc}") from exc
    for plugin in extra:
        plugins.append((getattr(plugin, "__name__", None) or type(plugin).__name__, plugin))
    for name, plugin in plugins:
        try:
            pm.register(plugin, name=name)
            for impl in pm.hook.storeplatform_add_hookspecs.get_hookimpls():
                if impl.plugin is plugin:
                    impl.function(pm=pm)
        except Exception as exc:
            raise PluginError(f"plugin {name!r} failed to register: {exc.__class__.__name__}: {exc}") from exc
    unknown = [(pm.get_name(impl.plugin), name) for name, caller in vars(pm.hook).items()
               if not name.startswith("_") and not caller.has_spec()
               for impl in caller.get_hookimpls() if not impl.optionalhook]
    if unknown:
        plugin, hook = unknown[0]
        raise PluginError(f"plugin {plugin!r} implements hook {hook!r}, which no enabled plugin declares"
                          f"{_declared_by(hook, enabled)}")
    return pm


def _disabled_plugins(enabled):
    """(name, plugin manager of that plugin alone, its hookspecs added) of each installed plugin
    that is not enabled, loaded only now, on a start-up error's path (a plugin that fails to
    load is not the answer and is passed over)."""
    for name, entry_point in sorted(available_plugins().items()):
        if name in enabled:
            continue
        try:
            scratch = pluggy.PluginManager("storeplatform")
            scratch.add_hookspecs(hookspecs)
            scratch.register(entry_point.load(), name=name)
            for impl in scratch.hook.storeplatform_add_hookspecs.get_hookimpls():
                impl.function(pm=scratch)
        except Exception:
            continue
        yield name, scratch


def _declared_by(hook, enabled):
    """Where an unknown hook comes from, for the start-up error: an installed plugin that is not
    enabled and declares it."""
    for name, scratch in _disabled_plugins(enabled):
        caller = getattr(scratch.hook, hook, None)
        if caller is not None and caller.has_spec():
            return f": it is declared by plugin {name!r}, add it to storeplatform.plugins"
    return ": no installed plugin declares it"


def namespace_declared_by(namespace, settings, enabled):
    """The installed plugin, not enabled, that declares the REST namespace ``namespace``, for the
    start-up error: its ``storeplatform_includeme`` runs against a configurator stand-in that
    only records ``add_rest_namespace`` (a plugin that fails there is not the answer)."""
    from pyramid.registry import Registry

    for name, scratch in _disabled_plugins(enabled):
        try:
            registry = Registry(name)
            registry.settings = dict(settings)
            registry["plugins"] = scratch
            recorder = _NamespaceRecorder(registry)
            for impl in scratch.hook.storeplatform_includeme.get_hookimpls():
                impl.function(config=recorder)
        except Exception:
            continue
        if namespace in recorder.namespaces:
            return name
    return None


class _NamespaceRecorder:
    """A configurator that records the namespaces declared and does nothing else."""

    def __init__(self, registry):
        self.registry = registry
        self.namespaces = set()

    def get_settings(self):
        return self.registry.settings

    def add_rest_namespace(self, name, **policies):
        self.namespaces.add(name)

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def plugin_of_module(pm, module):
    """The name of the registered plugin whose module (or class's module) shares the longest
    dotted prefix with ``module``; the module's own name when none shares its package."""
    parts = module.split(".")
    best, best_length = module, 0
    for name, plugin in pm.list_name_plugin():
        if isinstance(plugin, ModuleType):
            home = plugin.__name__
        else:
            home = (plugin if isinstance(plugin, type) else type(plugin)).__module__
        home_parts = home.split(".")
        length = 0
        while length < min(len(parts), len(home_parts)) and parts[length] == home_parts[length]:
            length += 1
        if length > best_length:
            best, best_length = name, length
    return best


def apply_filters(hook, value, **kwargs):
    """Run a filter chain: each implementation receives the current value under the hook's
    first argument name and returns the new one (None keeps the value unchanged).

    Implementations run in pluggy's order (last registered first).
    """
    first = hook.spec.argnames[0]
    impls = hook.get_hookimpls()
    if impls:
        refuse(f"a plugin filters it ({hook.name})")  # a filter may depend on anything
    for impl in reversed(impls):
        args = {name: (value if name == first else kwargs[name]) for name in impl.argnames}
        result = impl.function(**args)
        if result is not None:
            value = result
    return value


def call_action(hook, **kwargs):
    """Run every implementation of an action. One plugin's failure is logged with its name
    and does not skip the others; the first failure is raised after all have run, so that
    the surrounding transaction is not committed half-done.
    """
    first_error = None
    for impl in reversed(hook.get_hookimpls()):
        try:
            impl.function(**{name: kwargs[name] for name in impl.argnames})
        except Exception as exc:
            log.exception("plugin %s failed in %s", impl.plugin_name, hook.name)
            if first_error is None:
                first_error = exc
    if first_error is not None:
        raise first_error


def plugin_enabled(registry, name):
    """True when the plugin called ``name`` (its entry point name) is enabled on the site."""
    return registry["plugins"].has_plugin(name)
