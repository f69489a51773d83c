"""The account messages the host sends: a lost password's link and a new account's welcome (the
shop's ``storeplatform_account_link``), from the template pairs ``lost_password`` and
``welcome`` (a site overrides them from ``mail.templates``), with the store's name and address
and the link's end in the site's time zone."""
from storeplatform.core.hookspecs import hookimpl
from storeplatform.core.options import site_options, site_timezone

from .outbox import send_mail
from .templating import render_mail

SUBJECTS = {"lost_password": "Set a new password for {site}", "welcome": "Your account at {site}"}


def store_values(session):
    """What every message of the store shows: its name and address, the site's title and URL."""
    options = site_options(session)
    return {"site_title": options["site.title"], "site_url": options["site.url"],
            "store_name": options.get("store.name") or options["site.title"],
            "store_address": options.get("store.address") or ""}


@hookimpl
def storeplatform_account_link(session, user, purpose, url, expires_at):
    values = store_values(session)
    local = expires_at.astimezone(site_timezone(session))
    values.update(user_name=user.display_name or user.login, login=user.login, url=url,
                  expires=local.strftime("%Y-%m-%d %H:%M"), timezone=local.tzname() or str(local.tzinfo))
    text, html = render_mail(session, purpose, values)
    send_mail(session, to=[((user.display_name or user.login)[:200], user.email)],
              subject=SUBJECTS[purpose].format(site=values["store_name"]), text=text, html=html, kind=purpose,
              context={"user_id": user.id})
