"""The rules of an account's fields, checked the same at REST's boundary (``schemas``), by the
admin's forms and the command line (``accounts``): each ``*_problem`` says what is wrong with a
value, or None."""
import re
import unicodedata

from storeplatform.core.auth.capabilities import ROLES
from storeplatform.core.db import registry_of
from storeplatform.core.errors import InvalidParams

DEFAULT_ROLE = "customer"
LOGIN_MAX, EMAIL_MAX, NAME_MAX, PASSWORD_MAX, APP_PASSWORD_NAME_MAX = 60, 200, 250, 1000, 200
# Letters, digits and . _ @ + - (a login travels in Basic headers and URLs, and looks like no
# other login); not "ck_...", which Basic reads as a consumer key.
LOGIN_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._@+-]*$"
_LOGIN = re.compile(LOGIN_PATTERN)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
PERMISSIONS = ("read", "write", "read_write")


def roles(session):
    """The roles of the site: the host's and those plugins add (role capabilities hook)."""
    known = registry_of(session)["auth.role_capabilities"]
    return tuple(ROLES) + tuple(sorted(set(known) - set(ROLES)))


def text_problem(value, max_length, *, blank=True):
    if not isinstance(value, str):
        return "must be text"
    if not blank and not value.strip():
        return "must not be empty"
    if len(value) > max_length:
        return f"must be at most {max_length} characters"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode text"
    if any(unicodedata.category(c) == "Cc" for c in value):
        return "must not contain control characters"
    return None


def login_problem(login):
    """What is wrong with ``login`` for a new user, or None."""
    problem = text_problem(login, LOGIN_MAX, blank=False)
    if problem:
        return problem
    if not _LOGIN.match(login):
        return "must start with a letter or digit and hold only letters, digits and . _ @ + -"
    if login.lower().startswith("ck_"):
        return "must not start with ck_ (Basic authentication reads that as a consumer key)"
    return None


def email_problem(email):
    problem = text_problem(email, EMAIL_MAX)
    if problem:
        return problem
    if email and not _EMAIL.match(email):
        return f"{email!r} is not an email address"
    return None


def name_problem(name):
    return text_problem(name, NAME_MAX)


def password_problem(password):
    if not isinstance(password, str) or not password:
        return "must not be empty"
    if len(password) > PASSWORD_MAX:
        return f"must be at most {PASSWORD_MAX} characters"
    try:
        password.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode text"
    if "\x00" in password:
        return "must not contain NUL characters"
    return None


def role_problem(session, role):
    if not isinstance(role, str) or role not in roles(session):
        return f"unknown role {role!r} (roles: {', '.join(roles(session))})"
    return None


def app_password_name_problem(name):
    return text_problem(name, APP_PASSWORD_NAME_MAX, blank=False)


def check(problems):
    problems = {field: problem for field, problem in problems.items() if problem}
    if problems:
        raise InvalidParams(problems)
