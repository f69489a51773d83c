"""REST routes of the store core: {rest_root}/store/v1, one module per resource."""
from . import auth, order_notes, orders, products, refunds, reports, settings, users

NAMESPACE = "store/v1"


def includeme(config):
    config.add_rest_namespace(NAMESPACE, description="Store core: users, settings, products, orders, reports.")
    config.add_rest_services(auth, settings, products, orders, order_notes, refunds, reports, users)
