"""A second third-party plugin: background tasks enqueued after commit, for the queue tests."""
from storeplatform.hookspecs import hookimpl
from storeplatform.queue import enqueue_after_commit
from storeplatform.rest import RestError, StrictBoolean, namespace
from storeplatform.store.options import OptionSpec, get_option, set_option

import colander


class JobBody(colander.MappingSchema):
    value = colander.SchemaNode(colander.String())
    fail = colander.SchemaNode(StrictBoolean(), missing=False)


def record(ctx, value):
    log = get_option(ctx.session, "thirdparty_tasks.log")
    set_option(ctx.session, "thirdparty_tasks.log", (log + " " + value).strip())


@hookimpl
def storeplatform_tasks():
    return {"thirdparty_tasks.record": record}


@hookimpl
def storeplatform_site_options():
    return [OptionSpec("thirdparty_tasks.log", "text", "", "thirdparty_tasks", "Values recorded by tasks"),
            OptionSpec("thirdparty_tasks.requested", "text", "", "thirdparty_tasks", "Values requested")]


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
