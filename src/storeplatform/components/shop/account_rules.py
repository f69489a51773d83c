"""The rules of an account's fields, checked the same at REST's boundary (``schemas``), by the
admin's forms and the command line (``accounts``): each ``*_problem`` says what is wrong with a
value, or None."""
import re
import unicodedata

from storeplatform.core.auth.capabilities import ROLES
from storeplatform.core.db import registry_of
from storeplatform.core.errors import InvalidParams

from .models import PROFILE_COLUMNS

DEFAULT_ROLE = "customer"
LOGIN_MAX, EMAIL_MAX, NAME_MAX, PASSWORD_MAX, APP_PASSWORD_NAME_MAX = 60, 200, 250, 1000, 200
URL_MAX, DESCRIPTION_MAX, LOCALE_MAX = 200, 10000, 20
# The profile fields of a user (#43), as WordPress names them; each "" when not given.
PROFILE_FIELDS = PROFILE_COLUMNS
# A locale as WordPress writes them: en_US, de_DE_formal, ast, pt_PT_ao90.
LOCALE_PATTERN = r"^[a-z]{2,3}(_[A-Z]{2})?(_[a-z0-9]+)?$"
_LOCALE = re.compile(LOCALE_PATTERN)
_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$")
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


def url_problem(url):
    problem = text_problem(url, URL_MAX)
    if problem:
        return problem
    if url and not _URL.match(url):
        return f"{url!r} is not an http(s) URL"
    return None


def description_problem(text):
    # Several paragraphs: line ends and tabs are text here, other control characters are not.
    return text_problem(text.replace("\n", " ").replace("\r", " ").replace("\t", " ")
                        if isinstance(text, str) else text, DESCRIPTION_MAX)


def locale_problem(locale):
    problem = text_problem(locale, LOCALE_MAX)
    if problem:
        return problem
    if locale and not _LOCALE.match(locale):
        return f"{locale!r} is not a locale such as en_US or de_DE"
    return None


def profile_problem(field, value):
    """What is wrong with ``value`` for the profile field ``field`` (``PROFILE_FIELDS``), or None."""
    if field == "url":
        return url_problem(value)
    if field == "description":
        return description_problem(value)
    if field == "locale":
        return locale_problem(value)
    return text_problem(value, NAME_MAX)


def role_problem(session, role):
    if not isinstance(role, str) or role not in roles(session):
        return f"unknown role {role!r} (roles: {', '.join(roles(session))})"
    return None


_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def app_id_problem(app_id):
    """An application's id: a UUID (WordPress's rule), or empty for none."""
    if not isinstance(app_id, str):
        return "must be text"
    if app_id and not _UUID.match(app_id):
        return f"{app_id[:50]!r} is not a UUID"
    return None


def app_password_name_problem(name):
    return text_problem(name, APP_PASSWORD_NAME_MAX, blank=False)


def check(problems):
    problems = {field: problem for field, problem in problems.items() if problem}
    if problems:
        raise InvalidParams(problems)
