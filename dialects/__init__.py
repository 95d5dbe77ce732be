"""The pto-wsp dialects, one file each: wsp (workloads), csp (pipelines), sched (schedules)."""

# Patches xDSL's lexer and printer before anything of ours parses or prints (see the module).
from pto_wsp.dialects import xdsl_workarounds  # noqa: F401
