"""storeplatform: a plugin-based store platform on Pyramid."""
from pyramid.config import Configurator

from .plugins import make_plugin_manager
from .settings import normalize


def make_config(global_config=None, **settings):
    """The configurator of a site, with the host and its enabled plugins configured."""
    if global_config and "here" in global_config:
        settings.setdefault("here", global_config["here"])
    settings = normalize(settings)
    pm = make_plugin_manager(settings["storeplatform.parsed"]["plugins"])
    config = Configurator(settings=settings)
    registry = config.registry
    registry["plugins"] = pm
    from .store.options import collect_specs

    registry["options.specs"] = collect_specs(pm)
    config.include(".db")
    config.include(".auth")
    config.include(".rest")
    config.include(".queue")
    config.include(".store.views")
    from .rest import add_error_views

    add_error_views(config)
    config.commit()
    # Plugins configure on top of a committed host, as Kinto does.
    pm.hook.storeplatform_includeme(config=config)
    config.commit()
    return config


def main(global_config=None, **settings):
    """The WSGI application factory (``egg:storeplatform``)."""
    config = make_config(global_config, **settings)
    app = config.make_wsgi_app()
    if config.registry.settings["storeplatform.parsed"]["embedded_consumer"]:
        from .queue import start_embedded_consumer

        start_embedded_consumer(config.registry)
    return app
