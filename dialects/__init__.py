"""The pto-wsp dialects, one file each: wsp (workloads), csp (pipelines), sched (schedules)."""
