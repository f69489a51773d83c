"""The kernel: what every site has, whatever it sells. Database and migrations (``db``), the
process cache (``cache``), the REST machinery (``rest``), authentication mechanics and
capabilities (``auth``), site options (``options``), the plugin manager and its hookspecs
(``plugins``, ``hookspecs``), tasks (``queue``), errors and logs. Nothing here imports a
component (``storeplatform.components``) or the plugin API (``storeplatform.api``):
tests/host/test_structure.py keeps it so. docs/architecture.md draws the house."""
