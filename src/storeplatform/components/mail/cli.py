"""``storeplatform -c INI mail test ADDRESS``: record a test message to ADDRESS (the site's
sender, the ``test`` template pair) and say where it goes; the worker sends it (the ``.eml``
file, or the SMTP server's answer in the admin's Mail log)."""
from storeplatform.core.cli import CliError
from storeplatform.core.hookspecs import hookimpl
from storeplatform.core.options import site_options

from .messages import MailError
from .outbox import send_mail
from .settings import policy_of
from .templating import render_mail


@hookimpl
def storeplatform_cli_commands(subparsers):
    from storeplatform.core.cli import Parser

    mail = subparsers.add_parser("mail", help="the site's mail: send a test message")
    mail_sub = mail.add_subparsers(dest="mail_command", metavar="ACTION", parser_class=Parser)
    mail_sub.required = True
    test = mail_sub.add_parser("test", help="record a test message to ADDRESS; the worker sends it")
    test.add_argument("address", help="where to send it: ann@example.com")
    test.set_defaults(func=cmd_mail_test)


def cmd_mail_test(env, args):
    try:
        with env.transaction() as session:
            text, html = render_mail(session, "test", {"site_title": site_options(session).get("site.title", "")})
            message_id = send_mail(session, to=args.address, subject="Test message", text=text, html=html,
                                   kind="test")
    except MailError as exc:
        raise CliError(str(exc)) from None
    print(f"message {message_id} recorded: {policy_of(env.registry).describe()}; the admin's Mail log shows "
          "what became of it")
    return 0
