"""The call graph of ``tg.program``s: which ``tg.call`` closes a cycle.

A ``tg.program`` that calls itself, directly or through others, never ends when it is run or
inlined; the consumers of ``tg.call`` (the CPU code generator, tg-materialize and the
simulator through it, tg-to-runtime-calls) refuse such a call with this one check.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import ModuleOp

from pto_wsp.dialects import tg


def call_cycle(
    program: tg.ProgramOp, module: ModuleOp | None
) -> tuple[tg.CallOp, list[str]] | None:
    """The first ``tg.call`` reachable from ``program`` that calls a program already on the
    way to it, with the names along the cycle (``["a", "b", "a"]``); None if there is none.

    Depth-first on an explicit stack, so a long chain of calls cannot overflow Python's.
    A callee not in ``module`` is skipped: its callers report it."""
    ops = module.ops if module is not None else ()
    programs = {op.sym_name.data: op for op in ops if isinstance(op, tg.ProgramOp)}
    path = [program.sym_name.data]
    on_path = set(path)
    pending: list[Iterator[tg.CallOp]] = [_calls(program)]
    done: set[str] = set()
    while pending:
        call = next(pending[-1], None)
        if call is None:
            on_path.discard(path[-1])
            done.add(path.pop())
            pending.pop()
            continue
        name = call.callee.root_reference.data
        if name in on_path:
            return call, path[path.index(name) :] + [name]
        if name in done or name not in programs:
            continue
        path.append(name)
        on_path.add(name)
        pending.append(_calls(programs[name]))
    return None


def _calls(program: tg.ProgramOp) -> Iterator[tg.CallOp]:
    return (op for op in program.walk() if isinstance(op, tg.CallOp))
