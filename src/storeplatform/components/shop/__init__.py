"""The shop: users and their credentials (``accounts``, ``credentials``), content, products,
orders and sales, the store's options, and the ``store/v1`` namespace (``views``)."""
