"""Roles, capabilities and the meta capabilities that depend on the item (own vs others')."""
from ..errors import FORBIDDEN, NOT_LOGGED_IN, RestError

ROLES = ("administrator", "shop_manager", "editor", "author", "contributor", "subscriber", "customer")

_EDITOR = {
    "read", "edit_posts", "edit_others_posts", "edit_published_posts", "edit_private_posts", "publish_posts",
    "delete_posts", "delete_others_posts", "delete_published_posts", "delete_private_posts",
    "read_private_posts", "manage_categories", "upload_files",
}
BASE_CAPABILITIES = {
    "administrator": _EDITOR | {"manage_options", "manage_shop", "list_users", "create_users", "edit_users",
                                "delete_users", "promote_users"},
    # As WooCommerce's shop manager: lists every user, creates and edits customers only (a user
    # without promote_users edits no other role: accounts.py), deletes and promotes nobody.
    "shop_manager": _EDITOR | {"manage_shop", "list_users", "create_users", "edit_users"},
    "editor": set(_EDITOR),
    "author": {"read", "edit_posts", "edit_published_posts", "publish_posts", "delete_posts",
               "delete_published_posts", "upload_files"},
    "contributor": {"read", "edit_posts", "delete_posts"},
    "subscriber": {"read"},
    "customer": {"read"},
}
META_CAPABILITIES = ("read_post", "edit_post", "delete_post")
PUBLIC_STATUSES = ("publish",)


def role_capabilities(pm):
    """Capabilities per role: the base table plus what plugins add through the hook."""
    caps = {role: set(values) for role, values in BASE_CAPABILITIES.items()}
    for extra in pm.hook.storeplatform_role_capabilities():
        for role, values in (extra or {}).items():
            caps.setdefault(role, set()).update(values)
    return {role: frozenset(values) for role, values in caps.items()}


def primitive_caps(cap, user_id, item):
    """The primitive capabilities a meta capability needs on ``item`` (with ``author_id`` and
    ``status``), as in a classic CMS."""
    own = item is not None and user_id is not None and getattr(item, "author_id", None) == user_id
    status = getattr(item, "status", "publish")
    if status == "trash":
        # Reading a trashed item is editing-level access, whatever it was before; editing or
        # deleting it needs what its former status needed.
        status = "draft" if cap == "read_post" else (getattr(item, "trashed_status", None) or "draft")
    if cap == "read_post":
        if status in PUBLIC_STATUSES:
            return []
        if own:
            return ["edit_posts"]
        if status == "private":
            return ["read_private_posts"]
        return ["edit_others_posts"]
    action = "edit" if cap == "edit_post" else "delete"
    needed = [f"{action}_posts"]
    if not own:
        needed.append(f"{action}_others_posts")
    if status == "publish":
        needed.append(f"{action}_published_posts")
    elif status == "private":
        needed.append(f"{action}_private_posts")
    return needed


def user_can(request, cap, item=None):
    identity = request.identity
    if cap in META_CAPABILITIES:
        needed = primitive_caps(cap, identity.user.id if identity else None, item)
        if not needed:
            return True
    else:
        needed = [cap]
    if identity is None:
        return False
    caps = request.registry["auth.role_capabilities"].get(identity.user.role, frozenset())
    return all(c in caps for c in needed)


def require(request, cap, item=None):
    """Raise the namespace's 401 or 403 error unless the caller has ``cap`` (on ``item``)."""
    if user_can(request, cap, item):
        return
    ns = request.rest_namespace
    if request.identity is None:
        raise RestError(401, ns.unauthenticated_code if ns else NOT_LOGGED_IN.code, NOT_LOGGED_IN.message)
    raise RestError(403, ns.forbidden_code if ns else FORBIDDEN.code, FORBIDDEN.message)
