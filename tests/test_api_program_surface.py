"""The Program and compile surface of seed 001 §7 and seed 004 §1, §5 (docs/python-api.md
"Compiling"): target names and what each supports, the four compile options of seed 001
§7.2 on every target, ``compile_async``, ``Workload.enumerate``/``dependencies``,
``Pipeline.start/join/is_running`` and a channel's state."""

from __future__ import annotations

import importlib
import threading
from concurrent.futures import Future

import numpy as np
import pytest

import pto_wsp
from pto_wsp import (
    Channel,
    ChannelClosed,
    CompileError,
    DenseDyn,
    ErrorCode,
    Event,
    In,
    InOut,
    Out,
    Tensor,
    Timeout,
    compile,
    compile_async,
    connect,
    consume,
    f32,
    for_each,
    kernel,
    parallel_for,
    process,
    send,
    sequential,
    sym,
    target_info,
    targets,
    task,
    try_send,
)
from pto_wsp.runtime.profiling import check_schedule

ascend_backend = importlib.import_module("pto_wsp.lowering.ascend.backend")


@kernel(cost=10)
def plus_one(i, x: In[f32[4]], y: Out[f32[4]]):
    y[...] = x + 1


@kernel(cost=5)
def bump(i, y: InOut[f32[4]]):
    y += 1


X = Tensor("X", [None, 4], f32)
Y = Tensor("Y", [None, 4], f32)
n = sym("n")
#: Three independent tasks, then a for_each of three updating Y in place.
W = sequential(
    parallel_for(DenseDyn(n), lambda i: task(plus_one, [i], [X[i], Y[i]])),
    for_each(DenseDyn(n), lambda i: task(bump, [i], [Y[i]])),
).named("w")


def _arrays(rows: int = 3):
    return np.arange(4 * rows, dtype=np.float32).reshape(rows, 4), np.zeros((rows, 4), np.float32)


# ---------------------------------------------------------------------------- targets


def test_targets_lists_the_backends_then_the_seed_names():
    assert targets()[:3] == ["cpu_sim", "aie", "ascend"]
    assert {
        "ascend_npu",
        "ascend_910b",
        "ascend_910c",
        "ascend_950",
        "amd_aie",
        "xdna1",
        "xdna2",
    } <= set(targets())


@pytest.mark.parametrize("name", ["cpu_sim", "aie", "ascend", "xdna2", "ascend_910c"])
def test_target_info_says_what_a_target_supports(name):
    info = target_info(name)
    assert info.available and info.returns and info.modes and info.directives
    for option in ("profiling", "debug", "optimization_level", "max_code_size"):
        assert info.options[option]  # an effect, or "refused: why"
    assert name in (info.backend, *info.aliases)


def test_target_info_of_an_alias_gives_its_backend_and_preset():
    assert (target_info("xdna2").backend, dict(target_info("xdna2").preset)) == (
        "aie",
        {"device": "npu2"},
    )
    assert dict(target_info("ascend_910b").preset) == {"soc": "910b"}
    assert target_info("cpu_sim").directives["spatial_map"].startswith("ignored")
    assert target_info("aie").options["debug"].startswith("refused")
    with pytest.raises(ValueError, match="unknown target 'gpu'"):
        target_info("gpu")


def test_an_alias_compiles_with_its_preset():
    tree = compile(W, target="ascend_910c", stub_kernels=True)
    assert tree.soc == "910c"
    with pytest.raises(CompileError, match="'ascend_910b' is ascend with soc='910b'") as info:
        compile(W, target="ascend_910b", soc="950")
    assert info.value.code is ErrorCode.INVALID_OPTION


def test_an_unknown_target_lists_the_names():
    with pytest.raises(CompileError, match="unknown target 'npu'.*xdna2") as info:
        compile(W, target="npu")
    assert info.value.code is ErrorCode.INVALID_OPTION


# ---------------------------------------------------------------------------- cpu_sim options


def test_profiling_counts_and_times_each_kernels_bodies():
    x, y = _arrays()
    p = W.compile(profiling=True).bind(X=x, Y=y, n=3).execute()
    stats = p.stats()
    assert stats.kernel_calls == {"plus_one": 3, "bump": 3}
    assert set(stats.kernel_ms) == {"plus_one", "bump"} and min(stats.kernel_ms.values()) > 0
    assert "kernel bodies: plus_one 3 x " in stats.summary()
    np.testing.assert_array_equal(y, x + 2)
    p.execute()  # counted per run
    assert p.stats().kernel_calls == {"plus_one": 3, "bump": 3}
    assert W.compile().bind(X=x, Y=y, n=3).execute().stats().kernel_calls == {}


def test_debug_checks_each_run_against_its_graph():
    x, y = _arrays()
    p = W.compile(debug=True).bind(X=x, Y=y, n=3).execute()  # (checked: no error)
    graph = p.graph()
    first_bump = next(t["id"] for t in p.schedule_of() if t["kernel"] == "bump")
    start, end = np.zeros(graph.num_nodes), np.ones(graph.num_nodes)
    with pytest.raises(RuntimeError, match=f"task {first_bump} started at 0.0 before its pred"):
        check_schedule(graph, start, end, "@w")
    with pytest.raises(RuntimeError, match="task 0 did not run"):
        check_schedule(graph, start, -end, "@w")


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_every_optimization_level_gives_the_same_results(level):
    """Levels 0 and 1 run the reference engine, 2 and 3 the native core: the same results."""
    x, y = _arrays(40)
    p = W.compile(optimization_level=level).bind(X=x, Y=y, n=40).execute()
    np.testing.assert_array_equal(y, x + 2)
    assert (p.fast_declined is None) == (level >= 2)
    assert ("func.call @pto_tg_task(" in p.source) == (level >= 2)


def test_max_code_size_limits_the_generated_program():
    size = len(W.compile().source.encode())
    W.compile(max_code_size=size)
    with pytest.raises(CompileError, match=f"{size} bytes of runtime-call IR, over max_code_size=") as info:
        W.compile(max_code_size=size - 1)
    assert info.value.code is ErrorCode.CODE_SIZE_EXCEEDED


@pytest.mark.parametrize(
    "options, words",
    [
        ({"profiling": "yes"}, "profiling must be True or False"),
        ({"optimization_level": 4}, "optimization_level must be an int <= 3"),
        ({"max_code_size": 0}, "max_code_size must be an int >= 1"),
        ({"optimization_level": 1, "fast": True}, "fast=True needs optimization_level 2 or 3"),
    ],
)
def test_bad_option_values_are_invalid_options(options, words):
    with pytest.raises(CompileError, match=words) as info:
        W.compile(**options)
    assert info.value.code is ErrorCode.INVALID_OPTION


# ---------------------------------------------------------------------------- other targets


@pytest.mark.parametrize("option", ["profiling", "debug", "optimization_level", "max_code_size"])
def test_aie_refuses_the_seed_options_with_a_reason(option):
    with pytest.raises(CompileError, match=f"target 'aie' does not take {option}: ") as info:
        compile(W, target="xdna2", **{option: 1})
    assert info.value.code is ErrorCode.INVALID_OPTION


def test_ascend_max_code_size_limits_the_aicpu_orchestration():
    tree = compile(W, target="ascend", stub_kernels=True)
    size = len(tree.files["aicpu_orchestrate.cpp"].encode())
    compile(W, target="ascend", stub_kernels=True, max_code_size=size)
    with pytest.raises(CompileError, match=f"is {size} bytes, over max_code_size") as info:
        compile(W, target="ascend", stub_kernels=True, max_code_size=size - 1)
    assert info.value.code is ErrorCode.CODE_SIZE_EXCEEDED


def test_ascend_debug_and_optimization_level_are_host_build_flags(monkeypatch):
    seen = []

    def build_host(tree, tree_dir, flags=None):
        seen.append(flags)
        raise RuntimeError("stop: flags seen")

    monkeypatch.setattr(ascend_backend, "build_host", build_host)
    with pytest.raises(RuntimeError, match="stop"):
        compile(W, target="ascend", stub_kernels=True, host=True, debug=True, optimization_level=1)
    assert seen == [["-g", "-D_GLIBCXX_ASSERTIONS", "-O1"]]
    with pytest.raises(CompileError, match="flags of the host build \\(host=True\\)") as info:
        compile(W, target="ascend", stub_kernels=True, debug=True)
    assert info.value.code is ErrorCode.INVALID_OPTION


def test_ascend_profiling_records_each_run(monkeypatch):
    seen = {}

    class Stop(Exception):
        pass

    def program(tree, tree_dir, library, entry, **options):
        seen.update(options)
        raise Stop

    monkeypatch.setattr(ascend_backend, "build_host", lambda *a: "lib")
    monkeypatch.setattr(ascend_backend, "AscendProgram", program)
    with pytest.raises(Stop):
        compile(W, target="ascend", stub_kernels=True, host=True, profiling=True)
    assert seen["record"] is True


# ---------------------------------------------------------------------------- compile_async


def test_compile_async_returns_a_future_of_the_program():
    future = compile_async(W, target="cpu_sim", mode="cycles")
    assert isinstance(future, Future)
    program = future.result(timeout=60)
    assert program.bind(n=5).execute().stats().num_tasks == 10


def test_compile_async_errors_are_located_at_its_call():
    future = compile_async(W, target="cpu_sim", workers=0)
    error = future.exception(timeout=60)
    assert isinstance(error, CompileError)
    assert f"test_api_program_surface.py:{_line_of('workers=0)')}:" in str(error)


def _line_of(text: str) -> int:
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line and "compile_async" in line)


# ---------------------------------------------------------------------------- enumerate


def test_enumerate_gives_each_task_with_kernel_coordinates_and_params():
    tasks = W.enumerate(n=2)
    assert [(t.kernel, t.coords, t.params) for t in tasks] == [
        ("plus_one", {"i": 0}, (0,)),
        ("plus_one", {"i": 1}, (1,)),
        ("bump", {"i": 0}, (0,)),
        ("bump", {"i": 1}, (1,)),
    ]
    assert W.enumerate(n=0) == []


def test_dependencies_gives_the_edges_between_tasks_by_kind():
    tasks = W.enumerate(n=2)
    p0, p1, b0, b1 = (t.id for t in tasks)
    deps = W.dependencies(n=2)
    # sequential: every plus_one before the first bump (through a barrier, folded); for_each:
    # bump 0 before bump 1; data: each bump reads the row its plus_one wrote.
    assert deps["structural"] == [(p0, b0), (p1, b0), (b0, b1)]
    assert deps["raw"] == [(p0, b0), (p1, b1)]
    assert deps["waw"] == [] and deps["war"] == []


# ---------------------------------------------------------------------------- pipelines

GATE = threading.Event()


@kernel(cost=1)
def load(i, src: In[f32[4]], tile: Out[f32[4]]):
    GATE.wait(30)
    tile[...] = src


@kernel(cost=1)
def store(i, tile: In[f32[4]], dst: Out[f32[4]]):
    dst[...] = tile * 2


def _pipeline():
    l2s = Channel("l2s", capacity=2)
    loader = (
        process("loader")
        .produces(l2s)
        .body(for_each(DenseDyn(n), lambda i: send(l2s, task(load, [i], [X[i], Y[i]]))))
    )
    storer = (
        process("storer")
        .consumes(l2s)
        .body(consume(l2s, lambda t: task(store, [t], [Y[t], Tensor("Z", [None, 4], f32)[t]])))
    )
    return connect([loader, storer], [l2s]).named("two_stage"), l2s


def test_a_pipeline_starts_runs_in_the_background_and_joins():
    pipe, l2s = _pipeline()
    assert (l2s.is_open(), l2s.size(), l2s.empty(), l2s.full()) == (True, 0, True, False)
    assert Event("e").full()  # a rendezvous: a record always waits for its synchronize
    x, y = _arrays(8)
    z = np.zeros_like(y)
    GATE.clear()
    program = pipe.start(X=x, Y=y, Z=z, n=8)
    try:
        assert pipe.is_running() and program.is_running()
        with pytest.raises(Timeout) as info:
            pipe.join(timeout=0.05)
        assert info.value.code is ErrorCode.TIMEOUT
        assert l2s.is_open() and 0 <= l2s.size() <= 2
    finally:
        GATE.set()
    assert pipe.join() is program and not pipe.is_running()
    np.testing.assert_array_equal(z, 2 * x)
    assert (l2s.is_open(), l2s.size(), l2s.empty()) == (False, 0, True)
    GATE.set()
    pipe.start(X=x, Y=y, Z=z, n=3)  # the same program again
    assert pipe.join() is program


def test_closing_a_channel_of_a_running_pipeline_stops_its_sender():
    pipe, l2s = _pipeline()
    x, y = _arrays(8)
    GATE.clear()
    pipe.start(X=x, Y=y, Z=np.zeros_like(y), n=8)
    try:
        l2s.close()
    finally:
        GATE.set()
    with pytest.raises(ChannelClosed, match="process loader: channel @l2s is closed") as info:
        pipe.join()
    assert info.value.code is ErrorCode.CHANNEL_CLOSED
    with pytest.raises(RuntimeError, match="is not running"):
        l2s.close()


@kernel(cost=10)
def mark(i, y: Out[f32[4]]):
    y[...] = 1


@pytest.mark.parametrize("capacity", [0, 1, 3])
@pytest.mark.parametrize("consumer_first", [True, False])
def test_try_send_drops_the_messages_a_channel_cannot_take(capacity, consumer_first):
    """The producer never blocks, so it runs all its sends before the consumer runs again: a
    consumer already waiting (declared first) takes the first message, the buffer the next
    ``capacity``; the others are dropped, and their tasks never created."""
    c = Channel("c", capacity=capacity)
    producer = (
        process("producer")
        .produces(c)
        .body(for_each(DenseDyn(n), lambda i: try_send(c, task(mark, [i], [Y[i]]))))
    )
    consumer = process("consumer").consumes(c).body(consume(c))
    procs = [consumer, producer] if consumer_first else [producer, consumer]
    pipe = connect(procs, [c]).named("lossy")
    y = np.zeros((8, 4), np.float32)
    p = pipe.compile().bind(Y=y, n=8).execute()
    delivered = capacity + consumer_first
    assert p.stats().num_tasks == delivered
    np.testing.assert_array_equal(y[:, 0], [1] * delivered + [0] * (8 - delivered))
    assert "csp.send @c nonblocking" in str(pipe)


def test_try_send_takes_a_channel():
    with pytest.raises(CompileError, match="try_send: expected a Channel or Event"):
        try_send("c", task(mark, [0], [Y[0]]))


def test_channel_close_before_any_start_says_why():
    _, l2s = _pipeline()
    with pytest.raises(RuntimeError, match="in no started pipeline"):
        l2s.close()


# ---------------------------------------------------------------------------- errors


def test_every_error_is_a_pto_error_with_a_code():
    codes = {
        pto_wsp.CompileError: ErrorCode.INVALID_WORKLOAD,
        pto_wsp.ExecutionError: ErrorCode.KERNEL_FAILED,
        pto_wsp.ResourceError: ErrorCode.RESOURCE_NOT_AVAILABLE,
        pto_wsp.ChannelClosed: ErrorCode.CHANNEL_CLOSED,
        pto_wsp.Deadlock: ErrorCode.DEADLOCK_DETECTED,
        pto_wsp.Timeout: ErrorCode.TIMEOUT,
    }
    for cls, code in codes.items():
        assert issubclass(cls, pto_wsp.PtoError)
        if cls is not pto_wsp.CompileError:
            assert cls.code is code
    assert issubclass(pto_wsp.ChannelClosed, pto_wsp.ChannelError)
    assert issubclass(pto_wsp.Timeout, TimeoutError)
    assert issubclass(pto_wsp.ExecutionError, RuntimeError)
    from pto_wsp.lowering.ascend import ExecutionError as AscendExecutionError

    assert issubclass(AscendExecutionError, pto_wsp.ExecutionError)


def test_a_compile_error_of_a_schedule_is_invalid_schedule():
    with pytest.raises(CompileError) as info:
        W.schedule().streams(2).streams(3)
    assert info.value.code is ErrorCode.INVALID_SCHEDULE
    with pytest.raises(CompileError) as info:
        task(plus_one, [0, 1], [])
    assert info.value.code is ErrorCode.INVALID_WORKLOAD


def test_a_failed_ascend_host_build_is_a_compile_error_at_the_call(monkeypatch):
    from pto_wsp.lowering.ascend import BuildError

    def build_host(*args):
        raise BuildError("g++ -c kernels/k.cpp\nk.cpp:1: error: expected ';'")

    monkeypatch.setattr(ascend_backend, "build_host", build_host)
    assert issubclass(BuildError, pto_wsp.PtoError)
    with pytest.raises(CompileError, match="the host build failed: g\\+\\+ -c") as info:
        compile(W, target="ascend", stub_kernels=True, host=True)
    assert "test_api_program_surface.py" in str(info.value)


def test_a_kernel_without_an_ascend_body_is_kernel_not_found():
    with pytest.raises(CompileError, match="has no Ascend body") as info:
        compile(W, target="ascend")
    assert info.value.code is ErrorCode.KERNEL_NOT_FOUND
