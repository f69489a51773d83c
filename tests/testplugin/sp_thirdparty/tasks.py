"""A second third-party plugin: background tasks enqueued after commit, for the queue tests."""
import logging

import colander
from sqlalchemy import select

from storeplatform.api import (ErrorCode, Identity, OptionSpec, Post, Service, StrictBoolean, User,
                               enqueue_after_commit, hookimpl, set_option)

# This plugin's error catalogue.
FAILED = ErrorCode(409, "thirdparty_failed", "Failed after enqueueing: nothing may be sent.")
BAD_TOKEN = ErrorCode(401, "thirdparty_bad_token", "The test token is wrong.")


class JobBody(colander.MappingSchema):
    value = colander.SchemaNode(colander.String())
    fail = colander.SchemaNode(StrictBoolean(), missing=False)


jobs = Service("store/v1", "/thirdparty/jobs", name="thirdparty-jobs", description="Enqueues a task after commit.")
# In a namespace of this plugin's own, whose index needs manage_options (see includeme).
secret = Service("private/v1", "/secret", name="private-secret", description="A route of the private namespace.")


@jobs.post(body=JobBody())
def post_job(request):
    value = request.validated["value"]
    set_option(request.db, "thirdparty_tasks.requested", value)
    enqueue_after_commit(request.db, "thirdparty_tasks.record", value)
    if request.validated["fail"]:
        raise FAILED()
    request.response.status = 202
    return {"queued": value}


@secret.get(permission="manage_options")
def get_secret(request):
    return {"secret": True}


def record(ctx, value):
    # Insert-only, so that tasks running at once in several workers cannot lose each other's work.
    ctx.session.add(Post(post_type="thirdparty_log", title=value, status="private"))
    logging.getLogger("sp_thirdparty.tasks").info("recorded %s", value)


def recorded(session):
    """The values recorded by tasks, in the order they ran."""
    stmt = select(Post.title).where(Post.post_type == "thirdparty_log").order_by(Post.id)
    return list(session.execute(stmt).scalars())


@hookimpl
def storeplatform_tasks():
    return {"thirdparty_tasks.record": record}


@hookimpl
def storeplatform_site_options():
    return [OptionSpec("thirdparty_tasks.requested", "text", "", "thirdparty_tasks", "Value last requested")]


@hookimpl
def storeplatform_includeme(config):
    config.add_rest_services(jobs)
    config.add_rest_namespace("private/v1", index_permission="manage_options",
                              description="A namespace whose index needs manage_options.")
    config.add_rest_services(secret)


@hookimpl
def storeplatform_authenticate(request):
    """An extra authentication method: a shared test token naming the login."""
    token = request.headers.get("X-Test-Token")
    if token is None:
        return None
    login = token.removeprefix("let-me-in:")
    user = request.db.execute(select(User).where(User.login == login)).scalar_one_or_none()
    if not token.startswith("let-me-in:") or user is None:
        raise BAD_TOKEN()
    return Identity(user, "thirdparty_token")


@hookimpl
def storeplatform_order_created(order):
    from sqlalchemy.orm import object_session

    object_session(order).add(Post(post_type="thirdparty_log", title=f"order_created:{order.id}:{order.status}",
                                   status="private"))
