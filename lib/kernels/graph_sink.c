// The runtime sink of nt_graph_sink.h: tasks go to a task graph.
#include "nt_graph_sink.h"

static nt_status rt_data(nt_graph_sink_t *s, int domain, int64_t bytes,
                         const nt_task_access_t *part_of, int64_t *handle)
{
    (void)part_of;
    return nt_task_data_register(s->ctx, domain, bytes, handle);
}

static nt_status rt_submit(nt_graph_sink_t *s, const nt_graph_task_t *t)
{
    return nt_task_submit(s->ctx, t->fn, t->arg, t->arg_size, t->naccess, t->access, t->domain,
                          t->prio);
}

nt_graph_sink_t nt_graph_sink_runtime(nt_task_graph_t *g)
{
    return (nt_graph_sink_t){rt_data, rt_submit, g};
}
