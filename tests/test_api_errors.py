"""Building something invalid raises CompileError naming the construct and the user's line.

Each test writes the faulty construct on one line and checks the error's construct, its
message and that it points at exactly that line of this file.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pto_wsp import (
    Channel,
    CompileError,
    Dense,
    DenseDyn,
    DispatchPolicy,
    Event,
    In,
    Out,
    P,
    Sparse,
    Tensor,
    TimingPolicy,
    call,
    cond,
    connect,
    consume,
    f32,
    i32,
    index,
    kernel,
    parallel_for,
    process,
    record,
    select,
    send,
    sym,
    task,
    workload,
)


def here() -> int:
    """The line number of the caller."""
    return sys._getframe(1).f_lineno


_SOURCE = Path(__file__).read_text().splitlines()


def marked(tag: str) -> int:
    """The line of this file that ends with the comment ``# <tag>``."""
    lines = [n for n, text in enumerate(_SOURCE, 1) if text.rstrip().endswith(f"# <{tag}>")]
    assert len(lines) == 1, f"marker <{tag}> found {len(lines)} times"
    return lines[0]


@kernel
def copy(i, x: In[f32[64]], y: Out[f32[64]]):
    """y = x."""


X = Tensor("X", [8, 64], f32)
Y = Tensor("Y", [8, 64], f32)


def check(error: pytest.ExceptionInfo[CompileError], construct: str, line: int, *words: str):
    """The error names ``construct``, points at ``line`` of this file, and says ``words``."""
    err = error.value
    assert err.construct == construct
    assert err.loc.filename == __file__
    assert err.loc.lineno == line, str(err)
    text = str(err)
    assert f"test_api_errors.py:{line}: {construct}: " in text
    for word in words:
        assert word in text


def test_select_needs_a_sparse_row():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        select(Dense[8], lambda e: task(copy, [e], [X[e], Y[e]]))
    check(error, "select", line, "one row of a Sparse axis", "Dense[8]")


def test_select_on_a_whole_sparse_axis_in_p_sel():
    routing = Sparse(4, [0, 1, 2, 3, 4], [0, 1, 2, 3])

    @workload
    def w():
        for e in P.sel(routing):  # <sel>
            copy[e](x=X[e], y=Y[e])

    with pytest.raises(CompileError) as error:
        w.module()
    check(error, "P.sel", marked("sel"), "one row of a Sparse axis")


def test_body_returning_no_workload():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        parallel_for(Dense[8], lambda i: None)
    check(error, "parallel_for", line, "returns no workload")


def test_body_returning_something_else():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        parallel_for(Dense[8], lambda i: i + 1)
    check(error, "parallel_for", line, "not a workload")


def test_body_losing_a_workload():
    def body(i):
        task(copy, [i], [X[i], Y[i]])  # <lost>
        return task(copy, [i], [Y[i], X[i]])

    with pytest.raises(CompileError) as error:
        line = here() + 1
        parallel_for(Dense[8], body)
    check(error, "parallel_for", line, "neither returned nor used", f":{marked('lost')} ")


def test_decorator_loop_with_an_empty_body():
    @workload
    def w():
        for _i in P(Dense[8]):  # <empty>
            pass

    with pytest.raises(CompileError) as error:
        w.module()
    check(error, "P", marked("empty"), "returns no workload")


def test_resource_rank_does_not_fit_the_kernel():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        parallel_for(Dense[8], lambda i: task(copy, [i], [X[i, 0], Y[i]]))
    check(error, "task", line, "rank 1", "rank 0", "'x'", "@copy")


def test_resource_shape_does_not_fit_the_kernel():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        parallel_for(Dense[8], lambda i: task(copy, [i], [X[i, 0:32], Y[i]]))
    check(error, "task", line, "memref<64xf32>", "memref<32xf32>")


def test_resource_through_a_kernel_call():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        parallel_for(Dense[8], lambda i: copy[i](x=X, y=Y[i]))
    check(error, "task", line, "rank 1", "rank 2")


def test_task_parameter_count():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        task(copy, [], [X[0], Y[0]])
    check(error, "task", line, "1 scalar parameter(s) (i), got 0")


def test_kernel_call_with_an_unknown_resource():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        copy[0](x=X[0], z=Y[0])
    check(error, "copy[...](...)", line, "no tensor parameter 'z'")


def test_send_on_a_channel_the_process_does_not_produce():
    a, b = Channel("a"), Channel("b")
    body = parallel_for(
        Dense[8],
        lambda i: send(b, task(copy, [i], [X[i], Y[i]])),  # <send>
    )
    with pytest.raises(CompileError) as error:
        process("p").produces(a).body(body)
    check(error, "send", marked("send"), "process 'p' sends on 'b'", "produces(...)")


def test_consume_on_a_channel_the_process_does_not_consume():
    a = Channel("a")

    def body():
        with consume(a) as t:  # <consume>
            copy[t](x=X[t], y=Y[t])

    with pytest.raises(CompileError) as error:
        process("p").body(body)
    check(error, "consume", marked("consume"), "process 'p' consumes 'a'", "consumes(...)")


def test_record_needs_an_event():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        record(Channel("c"))
    check(error, "record", line, "takes an Event")


def test_send_on_an_event():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        send(Event("e"), task(copy, [0], [X[0], Y[0]]))
    check(error, "send", line, "is an Event")


def test_channel_without_consumer():
    ch = Channel("c")
    p = process("p").produces(ch).body(send(ch, task(copy, [0], [X[0], Y[0]])))
    with pytest.raises(CompileError) as error:
        line = here() + 1
        connect([p], [ch])
    check(error, "connect", line, "'c' has no consumer")


def test_view_beyond_the_tensor():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        X[8]
    check(error, "view", line, "size 8", "reaches 9")


def test_view_with_a_negative_index():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        X[-1]
    check(error, "view", line, "negative")


def test_too_many_indices():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        X[0, 1, 2]
    check(error, "view", line, "3 indices")


def test_float_tensor_read_as_an_index():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        parallel_for(Dense[8], lambda i: task(copy, [X[i, 0]], [X[i], Y[i]]))
    check(error, "task", line, "holds f32 values")


def test_runtime_predicate_used_as_a_python_bool():
    lens = Tensor("lens", [8], index)

    @workload
    def w():
        for b in P(Dense[8]):
            if lens[b] <= 4:  # <python-if>
                copy[b](x=X[b], y=Y[b])

    with pytest.raises(CompileError) as error:
        w.module()
    check(error, "condition", marked("python-if"), "cannot be a Python bool", "P.when")


def test_cond_predicate_must_be_a_predicate():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        parallel_for(Dense[8], lambda i: cond(i, task(copy, [i], [X[i], Y[i]])))
    check(error, "cond", line, "runtime comparison")


def test_otherwise_without_when():
    @workload
    def w():
        for b in P(Dense[8]):
            with P.otherwise():  # <otherwise>
                copy[b](x=X[b], y=Y[b])

    with pytest.raises(CompileError) as error:
        w.module()
    check(error, "P.otherwise", marked("otherwise"), "must directly follow")


def test_p_loop_outside_a_workload_body():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        for _ in P(Dense[8]):
            pass
    check(error, "P", line, "inside a @workload function")


def test_p_loop_target_count():
    @workload
    def w():
        for b in P(Dense[8], Dense[4]):  # <two-axes>
            copy[b](x=X[b], y=Y[b])

    with pytest.raises(CompileError) as error:
        w.module()
    check(error, "P", marked("two-axes"), "names 1 index", "binds 2")


def test_lambda_parameter_count():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        parallel_for(Dense[8], lambda b, h: task(copy, [b], [X[b], Y[b]]))
    check(error, "parallel_for", line, "takes 2 parameter(s)", "binds 1")


def test_loop_index_used_outside_its_loop():
    leaked = []
    inner = parallel_for(Dense[8], lambda i: leaked.append(i) or task(copy, [i], [X[i], Y[i]]))
    outside = task(copy, [0], [X[leaked[0]], Y[0]])  # <leak>
    w = parallel_for(Dense[2], lambda j: [inner, outside]).named("w")
    with pytest.raises(CompileError) as error:
        w.module()
    check(error, "loop index", marked("leak"), "'i' of the loop at", "is used outside its loop")


def test_unknown_key_coordinate():
    w = parallel_for(Dense[8], lambda b: task(copy, [b], [X[b], Y[b]])).named("w")
    with pytest.raises(CompileError) as error:
        line = here() + 1
        w.schedule().streams(2).stream_by(lambda h: h % 2)
    check(error, "stream_by", line, "unknown task coordinate 'h'", "coordinates of @w: b")


def test_unknown_coordinate_attribute():
    w = parallel_for(Dense[8], lambda b: task(copy, [b], [X[b], Y[b]])).named("w")
    with pytest.raises(CompileError) as error:
        line = here() + 1
        w.schedule().dispatch(DispatchPolicy.hash(lambda t: t.x))
    check(error, "hash", line, "unknown task coordinate 'x'")


def test_duplicate_directive():
    w = parallel_for(Dense[8], lambda b: task(copy, [b], [X[b], Y[b]])).named("w")
    s = w.schedule().timing(TimingPolicy.immediate())
    with pytest.raises(CompileError) as error:
        line = here() + 1
        s.timing(TimingPolicy.batched(4))
    check(error, "timing", line, "already has a timing directive", f":{line - 3}")


def test_stream_by_needs_streams():
    w = parallel_for(Dense[8], lambda b: task(copy, [b], [X[b], Y[b]])).named("w")
    line = here() + 1
    s = w.schedule().stream_by(lambda b: b)
    with pytest.raises(CompileError) as error:
        s.module()
    check(error, "stream_by", line, "needs a .streams(...)")


def test_every_target_is_registered():
    """cpu_sim, aie and ascend are all available through compile() (loaded on first use)."""
    from pto_wsp import target_info

    assert all(target_info(t).available for t in ("cpu_sim", "aie", "ascend"))


def test_the_api_does_not_import_the_backends():
    """Importing the API costs no backend: each is imported when its target is first used."""
    code = "import sys, pto_wsp; pto_wsp.task; print(sorted(m for m in sys.modules if 'lowering.' in m))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "aie" not in run.stdout and "ascend" not in run.stdout and "backend" not in run.stdout


def test_compile_for_an_unknown_target():
    w = parallel_for(Dense[8], lambda b: task(copy, [b], [X[b], Y[b]])).named("w")
    with pytest.raises(CompileError) as error:
        line = here() + 1
        w.compile(target="gpu")
    check(error, "compile", line, "unknown target 'gpu'", "cpu_sim, aie, ascend")


def test_npu_workload_calling_a_cpu_workload():
    @workload
    def host(x):
        return task(copy, [0], [x[0], Y[0]])

    @workload(level="npu")
    def device(x):
        return call(host, x)  # <call>

    with pytest.raises(CompileError) as error:
        device(X).module()
    check(
        error,
        "call",
        marked("call"),
        "npu-level workload device cannot call the cpu-level workload host",
    )


def test_two_tensors_with_one_name():
    other = Tensor("X", [4, 64], f32)
    w = parallel_for(Dense[4], lambda i: task(copy, [i], [X[i], other[i]])).named("w")
    with pytest.raises(CompileError) as error:
        w.module()
    assert "two different tensors are named 'X'" in str(error.value)
    assert "memref<8x64xf32> and memref<4x64xf32>" in str(error.value)


def test_kernel_parameter_with_an_unknown_annotation():
    with pytest.raises(CompileError) as error:
        line = here() + 2

        @kernel
        def k(x: complex):
            """Not a tensor, not a scalar type."""

    check(error, "@kernel k", line, "In/Out/InOut[dtype[shape]]", "float", "got <class 'complex'>")


def test_kernel_with_an_unknown_exec_unit():
    with pytest.raises(CompileError) as error:
        line = here() + 2

        @kernel(exec_unit="tensor")
        def k(x: In[f32[4]]):
            """Wrong unit."""

    check(error, "@kernel k", line, "exec_unit must be one of vector, cube")


def test_kernel_of_something_else_than_a_function():
    with pytest.raises(CompileError) as error:
        line = here() + 1
        kernel(5)
    check(error, "kernel", line, "@kernel declares a Python function, got 5")
    with pytest.raises(CompileError) as error:
        line = here() + 1
        kernel(cost=3)("not a function")
    check(error, "kernel", line, "got 'not a function'")


def test_workload_with_parameters_used_unbound():
    @workload  # <unbound>
    def w(x):
        return task(copy, [0], [x[0], Y[0]])

    with pytest.raises(CompileError) as error:
        w.module()
    check(error, "@workload w", marked("unbound"), "takes 1 argument(s) (x), got 0", "w(...)")


def test_ragged_lengths_must_be_integers():
    with pytest.raises(CompileError):
        from pto_wsp import Ragged

        Ragged(sym("n"), Tensor("lens", [None], f32))
    ragged_ok = DenseDyn(Tensor("lens", [4], i32)[0])
    assert ragged_ok.size is not None
