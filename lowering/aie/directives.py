"""What each schedule directive does on AIE: it maps, or ``tg-to-aie`` warns naming it.

A ``tg.program`` carries its schedule as config keys (``wsp-to-tg``) and as task fields
(dispatch target, stream, priority, pool); a workload's streams and events are task streams
and ``tg.event_*`` ops. An AIE design is static — placement by ``spatial_map`` or one core per
process, each core running its tasks in program order, objectfifo locks ordering the cores —
so most runtime policies have nothing to act on; none is dropped silently (DESIGN.md
"Extension").
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Operation

from pto_wsp.dialects import tg
from pto_wsp.passes.diagnostics import warn

#: Directive -> what it does on AIE (mapped) or why it has no effect there.
MAPPED = {
    "spatial_map": "places a grid of cores (spatial programs)",
    "layout": "Shard / Replicate: distribute, broadcast and join through memtiles",
    "pipeline_depth": "the objectfifos' depth (spatial programs, scope global)",
}
NO_EFFECT = {
    "dispatch": "placement is static: a task runs on the core owning its output block "
    "(spatial_map) or on its process's core",
    "streams": "a core issues its tasks in program order and objectfifo locks order the cores; "
    "there are no issue lanes",
    "stream_by": "a core issues its tasks in program order; there are no issue lanes to key",
    "issue": "a core runs its tasks in program order; there is no ready queue to order",
    "timing": "a task starts when its objectfifo elements are acquired; there is no host "
    "issue loop to pace",
    "dispatch_threshold": "a task's unit is its core; there are no vector / cube pools",
    "task_window": "the design is static; the objectfifo depths bound the work in flight",
    "batch_deps": "there is no runtime dependence tracking to batch; objectfifos carry the "
    "dependences",
    "events": "record / wait / barrier / query order tasks at run time; the design's order is "
    "its program order and objectfifo dependences",
}

#: Config key (wsp-to-tg) -> its directive.
_CONFIG = {
    "dispatch": "dispatch",
    "workers": "dispatch",
    "streams": "streams",
    "ready": "issue",
    "timing": "timing",
    "timing_n": "timing",
    "spatial_map": "spatial_map",
    "layouts": "layout",
    "pipeline_depth": "pipeline_depth",
    "depth_scope": "pipeline_depth",
    "task_window": "task_window",
    "window_overflow": "task_window",
    "batch_deps": "batch_deps",
}
#: tg.task field -> the directive that set it.
_TASK = {
    "target": "dispatch",
    "stream": "stream_by",
    "priority": "issue",
    "dynamic_pool": "dispatch_threshold",
}


def _used(program: tg.ProgramOp) -> dict[str, Operation]:
    """Each directive the program uses, with the op to blame (first use)."""
    config = program.config.data if program.config is not None else {}
    used: dict[str, Operation] = {}
    for key in config:
        if key in _CONFIG:
            used.setdefault(_CONFIG[key], program)
    for op in program.walk():
        if isinstance(op, tg.TaskOp):
            for field, directive in _TASK.items():
                if getattr(op, field) is not None:
                    used.setdefault(directive, op)
        elif op.name.startswith("tg.event_"):
            used.setdefault("events", op)
    return used


def _maps(directive: str, spatial: bool, program: tg.ProgramOp) -> bool:
    if not spatial:
        return False  # a pipeline: one core per process, depths from the queues' capacities
    if directive == "pipeline_depth":
        scope = program.config.data.get("depth_scope") if program.config else None
        return not isinstance(scope, StringAttr) or scope.data == "global"
    return directive in MAPPED


def report(program: tg.ProgramOp, spatial: bool) -> list[str]:
    """Warn (``file:line:col: warning: ...``) for each directive without effect; return
    the directives warned about."""
    warned = []
    for directive, op in _used(program).items():
        if _maps(directive, spatial, program):
            continue
        why = NO_EFFECT.get(directive)
        if why is None:
            why = (
                "a pipeline runs one core per process, with objectfifo depths from the "
                "queues' capacities"
                if directive == "pipeline_depth"
                else "it places spatially mapped workloads; a pipeline runs one core per process"
            )
        warn(op, f"tg-to-aie: the {directive} directive has no effect on the aie target: {why}")
        warned.append(directive)
    config = program.config.data if program.config is not None else {}
    extensions = config.get("extensions")
    if isinstance(extensions, ArrayAttr):
        for name in extensions.data:
            assert isinstance(name, StringAttr)
            warn(
                program,
                f"tg-to-aie: the schedule op '{name.data}' has no effect on the aie target: "
                "the aie target knows no such directive",
            )
            warned.append(name.data)
    return warned


#: What ``pto_wsp.target_info("aie")["directives"]`` reports.
INFO = {**MAPPED, **{d: "no effect, with a warning: " + why for d, why in NO_EFFECT.items()}}
