"""A second third-party plugin: background tasks enqueued after commit, for the queue tests."""
from storeplatform.hookspecs import hookimpl
from storeplatform.queue import enqueue_after_commit
from storeplatform.rest import RestError, StrictBoolean, namespace
from storeplatform.store.models import Post
from storeplatform.store.options import OptionSpec, set_option

import colander


class JobBody(colander.MappingSchema):
    value = colander.SchemaNode(colander.String())
    fail = colander.SchemaNode(StrictBoolean(), missing=False)


def record(ctx, value):
    # Insert-only, so that tasks running at once in several workers cannot lose each other's work.
    ctx.session.add(Post(post_type="thirdparty_log", title=value, status="private"))


def recorded(session):
    """The values recorded by tasks, in the order they ran."""
    from sqlalchemy import select

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
    ns = namespace(config, "store/v1")
    jobs = ns.service(config, "thirdparty-jobs", "/thirdparty/jobs", "Enqueues a task after commit.")

    @jobs.post(body=JobBody())
    def post_job(request):
        value = request.validated["value"]
        set_option(request.db, "thirdparty_tasks.requested", value)
        enqueue_after_commit(request.db, "thirdparty_tasks.record", value)
        if request.validated["fail"]:
            raise RestError(409, "thirdparty_failed", "Failed after enqueueing: nothing may be sent.")
        request.response.status = 202
        return {"queued": value}
