"""WebTest helpers of the admin tests (shared with the plugins' admin tests through
storeplatform.testing)."""
from storeplatform.testing import ADMIN_PASSWORD as PASSWORD
from storeplatform.testing import admin_login as login
from storeplatform.testing import admin_token as token
from storeplatform.testing import assert_admin_page as assert_page

__all__ = ["PASSWORD", "assert_page", "login", "token"]
