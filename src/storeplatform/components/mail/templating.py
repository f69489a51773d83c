"""Messages from Jinja2 template pairs: ``<name>.txt`` (the text part, required) and
``<name>.html`` (the HTML alternative, optional, autoescaped). A site overrides any of them from
the folder ``mail.templates`` names; components and plugins add theirs with
``config.add_mail_templates("package:folder")`` (searched in the order added, after the site's)."""
import threading

import jinja2

from storeplatform.core.db import registry_of

from .settings import policy_of

ENV_KEY, FOLDERS_KEY = "mail.jinja2", "mail.template_folders"
_making = threading.Lock()


def add_mail_templates(config, spec):
    """Config directive: a folder of mail templates, ``package:path``."""
    config.registry.setdefault(FOLDERS_KEY, []).append(spec)
    config.registry.pop(ENV_KEY, None)


def _environments(registry):
    """One Jinja2 environment per folder, the site's first: a pair comes whole from the first
    folder that has its ``.txt`` (a site that overrides the text of a message and not its HTML
    sends no HTML, never another folder's)."""
    envs = registry.get(ENV_KEY)
    if envs is None:
        with _making:
            envs = registry.get(ENV_KEY)
            if envs is None:
                loaders = []
                site_folder = policy_of(registry).templates
                if site_folder:
                    loaders.append(jinja2.FileSystemLoader(site_folder))
                for spec in registry.get(FOLDERS_KEY, ()):
                    package, _, path = spec.partition(":")
                    loaders.append(jinja2.PackageLoader(package, path or "templates"))
                envs = registry[ENV_KEY] = [
                    jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                       autoescape=jinja2.select_autoescape(enabled_extensions=("html",),
                                                                           default_for_string=False))
                    for loader in loaders]
    return envs


def render_mail(session_or_registry, name, values=None):
    """``(text, html)`` of the template pair ``name`` with ``values`` (html None when the folder
    whose ``<name>.txt`` is used has no ``<name>.html``); jinja2.TemplateNotFound when no folder
    has ``<name>.txt``."""
    registry = session_or_registry if hasattr(session_or_registry, "settings") else registry_of(session_or_registry)
    values = dict(values or {})
    for env in _environments(registry):
        try:
            text_template = env.get_template(f"{name}.txt")
        except jinja2.TemplateNotFound:
            continue
        try:
            html_template = env.get_template(f"{name}.html")
        except jinja2.TemplateNotFound:
            html_template = None
        return text_template.render(values), html_template.render(values) if html_template else None
    raise jinja2.TemplateNotFound(f"{name}.txt")
