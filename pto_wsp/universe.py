"""The xDSL plugin entry point: makes ``xdsl-opt`` know pto-wsp's dialects and passes."""

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target


def _wsp() -> Dialect:
    from pto_wsp.dialects.wsp import WSP

    return WSP


def _csp() -> Dialect:
    from pto_wsp.dialects.csp import CSP

    return CSP


def _sched() -> Dialect:
    from pto_wsp.dialects.sched import SCHED

    return SCHED


def _tg() -> Dialect:
    from pto_wsp.dialects.tg import TG

    return TG


def _aie() -> Dialect:
    from pto_wsp.dialects.aie import AIE

    return AIE


def _aiex() -> Dialect:
    from pto_wsp.dialects.aiex import AIEX

    return AIEX


def _pto() -> Dialect:
    from pto_wsp.dialects.pto import PTO

    return PTO


def _pto_outline_incore_scopes() -> type[ModulePass]:
    from pto_wsp.passes.pto_outline_incore import OutlineIncoreScopesPass

    return OutlineIncoreScopesPass


def _pto_plan_memory() -> type[ModulePass]:
    from pto_wsp.passes.pto_plan_memory import PlanMemoryPass

    return PlanMemoryPass


def _pto_insert_sync() -> type[ModulePass]:
    from pto_wsp.passes.pto_insert_sync import InsertSyncPass

    return InsertSyncPass


def _pto_cost() -> type[ModulePass]:
    from pto_wsp.passes.pto_cost import PtoCostPass

    return PtoCostPass


def _pto_infer_spaces() -> type[ModulePass]:
    from pto_wsp.passes.pto_infer_spaces import InferSpacesPass

    return InferSpacesPass


def _tg_to_aie() -> type[ModulePass]:
    from pto_wsp.lowering.aie import TgToAiePass

    return TgToAiePass


def _aie_target() -> type[Target]:
    from pto_wsp.lowering.aie import AieTarget

    return AieTarget


def _wsp_canonicalize() -> type[ModulePass]:
    from pto_wsp.passes.wsp_canonicalize import WspCanonicalizePass

    return WspCanonicalizePass


def _wsp_inline_calls() -> type[ModulePass]:
    from pto_wsp.passes.wsp_inline_calls import WspInlineCallsPass

    return WspInlineCallsPass


def _wsp_to_tg() -> type[ModulePass]:
    from pto_wsp.passes.wsp_to_tg import WspToTgPass

    return WspToTgPass


def _tg_materialize() -> type[ModulePass]:
    from pto_wsp.runtime.materialize import TgMaterializePass

    return TgMaterializePass


def _tg_to_runtime_calls() -> type[ModulePass]:
    from pto_wsp.passes.tg_to_runtime import TgToRuntimeCallsPass

    return TgToRuntimeCallsPass


def _csp_to_tg() -> type[ModulePass]:
    from pto_wsp.passes.wsp_to_tg import CspToTgPass

    return CspToTgPass


def _tg_canonicalize() -> type[ModulePass]:
    from pto_wsp.passes.tg_canonicalize import TgCanonicalizePass

    return TgCanonicalizePass


def _ascend_target() -> type[Target]:
    from pto_wsp.lowering.ascend.target import AscendTarget

    return AscendTarget


ALL_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "wsp": _wsp,
    "csp": _csp,
    "sched": _sched,
    "tg": _tg,
    "aie": _aie,
    "aiex": _aiex,
    "pto": _pto,
}

ALL_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "wsp-canonicalize": _wsp_canonicalize,
    "wsp-inline-calls": _wsp_inline_calls,
    "wsp-to-tg": _wsp_to_tg,
    "csp-to-tg": _csp_to_tg,
    "tg-materialize": _tg_materialize,
    "tg-canonicalize": _tg_canonicalize,
    "tg-to-runtime-calls": _tg_to_runtime_calls,
    "tg-to-aie": _tg_to_aie,
    "pto-outline-incore-scopes": _pto_outline_incore_scopes,
    "pto-plan-memory": _pto_plan_memory,
    "pto-insert-sync": _pto_insert_sync,
    "pto-cost": _pto_cost,
    "pto-infer-spaces": _pto_infer_spaces,
}

ALL_TARGETS: dict[str, Callable[[], type[Target]]] = {
    "ascend": _ascend_target,
    "aie": _aie_target,
}

PTO_WSP_UNIVERSE = Universe(
    all_dialects=ALL_DIALECTS, all_passes=ALL_PASSES, all_targets=ALL_TARGETS
)
