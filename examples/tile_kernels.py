"""Three workloads whose kernels are tile kernels (docs/kernels.md), run by the CPU simulator.

- RMSNorm with a residual: ``h = x + r`` (written out: the residual stream) and
  ``y = h / sqrt(mean(h^2) + eps) * g``, per block of 16 rows;
- attention over variable lengths: per batch b and head h, ``S = Q K^T / sqrt(d)`` over the
  first ``lens[b]`` keys, row max, exp of the difference, row sum, then ``O = P V``. ``P`` is
  computed in the vector unit, which has no path to the cube (no vec -> mat move): the first
  kernel stores it to a scratch tensor and the second loads it for the matmul, as an
  Ascend kernel goes through global memory. K is stored transposed (``KT``, d x max_len), so
  the matmul reads it as loaded;
- the MoE expert GEMM: each block of 16 tokens goes to the experts its CSR row names, one
  ``tokens x W[e]`` matmul each.

On AIE (``run_aie``; docs/targets/aie.md, "The examples") a design is static:

- RMSNorm: one core per block of 16 rows; its kernel reads three tensors and a compute tile
  has two input channels, so X and R arrive joined in one objectfifo;
- attention: one core per (batch, head), the batch known; the tiles padded to MAX_LEN, the
  lengths written into each core's runtime parameters by the runtime sequence and passed to
  the kernels, whose loops run to them; ``scores`` and ``weighted`` are two designs, P going
  through memory between them;
- the MoE GEMM: a fixed capacity of token blocks per expert (one core per slot), the
  routing applied by the host around the design (``moe_dispatch``, ``moe_combine``).

There is no NPU here: each design is checked against mlir-aie's rules and run by
``pto_wsp.lowering.aie.emulate``, which streams the data through its objectfifos and links
and runs its kernels, compiled by upstream MLIR, on the CPU.

``python examples/tile_kernels.py`` runs each and checks it against numpy.
"""

import numpy as np

import pto_wsp as pw
from pto_wsp import (
    Dense,
    DenseDyn,
    In,
    Out,
    Replicate,
    Shard,
    Sparse,
    Tensor,
    f32,
    index,
    kernel,
    parallel_for,
    select,
    sequential,
    sym,
)
from pto_wsp import tile as pl
from pto_wsp.lowering.aie import compile_module
from pto_wsp.lowering.aie.emulate import emulate

# --------------------------------------------------------------------------- RMSNorm


@kernel
def add_rmsnorm(
    x: In[f32[16, 64]], r: In[f32[16, 64]], g: In[f32[1, 64]],
    h: Out[f32[16, 64]], y: Out[f32[16, 64]], eps: f32,
):  # fmt: skip
    s = pl.load(x) + pl.load(r)
    pl.store(s, h)
    inv = pl.rsqrt(pl.row_sum(s * s) * (1 / 64) + eps)
    pl.store(pl.col_expand_mul(pl.row_expand_mul(s, inv), pl.load(g)), y)


def rmsnorm(blocks: int = 8):
    X, R, H, Y = (Tensor(n, [blocks, 16, 64], f32) for n in "XRHY")
    G = Tensor("G", [1, 64], f32)
    return parallel_for(
        Dense[blocks], lambda i: add_rmsnorm[1e-6](X[i], R[i], G, H[i], Y[i])
    ).named("norm")


def rmsnorm_data(rng, blocks: int = 8) -> dict:
    x, r = rng.standard_normal((2, blocks, 16, 64), dtype=np.float32)
    g = rng.standard_normal((1, 64), dtype=np.float32)
    return dict(X=x, R=r, G=g, H=np.zeros_like(x), Y=np.zeros_like(x))


def rmsnorm_check(d: dict) -> None:
    s = d["X"] + d["R"]
    np.testing.assert_allclose(d["H"], s, rtol=1e-6)
    ref = s / np.sqrt((s * s).mean(axis=2, keepdims=True) + 1e-6) * d["G"]
    np.testing.assert_allclose(d["Y"], ref, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------- attention

HEADS, ROWS, DIM, MAX_LEN = 4, 8, 16, 40


@kernel(exec_unit="cube")
def scores(n, q: In[f32[ROWS, DIM]], kt: In[f32[DIM, MAX_LEN]], p: Out[f32[ROWS, MAX_LEN]]):
    """P = softmax(Q K^T / sqrt(d)) over the first n keys."""
    s = pl.matmul(pl.load(q), pl.load(kt, valid=(DIM, n))) * (1 / np.sqrt(DIM))
    e = pl.row_expand_exp_sub(s, pl.row_max(s))
    pl.store(pl.row_expand_div(e, pl.row_sum(e)), p)


@kernel(exec_unit="cube")
def weighted(n, p: In[f32[ROWS, MAX_LEN]], v: In[f32[MAX_LEN, DIM]], o: Out[f32[ROWS, DIM]]):
    """O = P V over the first n keys."""
    pl.store(pl.matmul(pl.load(p, valid=(ROWS, n)), pl.load(v, valid=(n, DIM))), o)


def attention_tensors(batch: int | None = None) -> dict:
    """The attention tensors, as long as the batch (``None``: known at run time)."""
    return dict(
        Q=Tensor("Q", [batch, HEADS, ROWS, DIM], f32),
        KT=Tensor("KT", [batch, DIM, MAX_LEN], f32),
        V=Tensor("V", [batch, MAX_LEN, DIM], f32),
        P=Tensor("P", [batch, HEADS, ROWS, MAX_LEN], f32),
        O=Tensor("O", [batch, HEADS, ROWS, DIM], f32),
        lens=Tensor("lens", [batch], index),
    )


def attention(batch: int | None = None):
    t = attention_tensors(batch)
    Q, KT, V, P, O, lens = (t[n] for n in ("Q", "KT", "V", "P", "O", "lens"))  # noqa: E741
    return parallel_for(
        DenseDyn(sym("batch")) if batch is None else Dense[batch],
        lambda b: parallel_for(
            Dense[HEADS],
            lambda h: sequential(
                scores[lens[b]](Q[b, h], KT[b], P[b, h]),
                weighted[lens[b]](P[b, h], V[b], O[b, h]),
            ),
        ),
    ).named("attention")


def attention_data(rng) -> dict:
    lens = np.array([5, 40, 17])
    batch = len(lens)
    q = rng.standard_normal((batch, HEADS, ROWS, DIM), dtype=np.float32)
    k = rng.standard_normal((batch, MAX_LEN, DIM), dtype=np.float32)
    v = rng.standard_normal((batch, MAX_LEN, DIM), dtype=np.float32)
    p = np.zeros((batch, HEADS, ROWS, MAX_LEN), np.float32)
    o = np.zeros((batch, HEADS, ROWS, DIM), np.float32)
    kt = np.ascontiguousarray(k.transpose(0, 2, 1))
    return dict(Q=q, KT=kt, V=v, P=p, O=o, lens=lens, batch=batch)


def attention_check(d: dict) -> None:
    q, kt, v, o = d["Q"], d["KT"], d["V"], d["O"]
    for b, n in enumerate(d["lens"]):
        s = q[b] @ kt[b, :, :n] / np.sqrt(DIM)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        ref = (e / e.sum(axis=-1, keepdims=True)) @ v[b, :n]
        np.testing.assert_allclose(o[b], ref, rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------- MoE


@kernel(exec_unit="cube")
def expert_gemm(x: In[f32[16, 32]], w: In[f32[32, 32]], y: Out[f32[16, 32]]):
    """One expert's weights applied to a block of 16 tokens."""
    pl.store(pl.matmul(pl.load(x), pl.load(w)), y)


def moe(experts: int = 4):
    tokens = Tensor("tokens", [None, 16, 32], f32)
    weights = Tensor("weights", [experts, 32, 32], f32)
    out = Tensor("out", [None, experts, 16, 32], f32)
    routing = Sparse(
        sym("blocks"), Tensor("indptr", [None], index), Tensor("indices", [None], index)
    )
    return parallel_for(
        DenseDyn(sym("blocks")),
        lambda b: select(routing[b], lambda e: expert_gemm(tokens[b], weights[e], out[b, e])),
    ).named("moe_gemm")


ROUTES = [[0, 2], [1], [3, 0], [], [2]]  # the experts of each block of tokens


def moe_data(rng) -> dict:
    blocks, experts = len(ROUTES), 4
    x = rng.standard_normal((blocks, 16, 32), dtype=np.float32)
    w = rng.standard_normal((experts, 32, 32), dtype=np.float32)
    y = np.zeros((blocks, experts, 16, 32), np.float32)
    indptr = np.cumsum([0] + [len(r) for r in ROUTES])
    indices = np.array([e for r in ROUTES for e in r])
    return dict(tokens=x, weights=w, out=y, indptr=indptr, indices=indices, blocks=blocks)


def moe_check(d: dict) -> None:
    x, w, y = d["tokens"], d["weights"], d["out"]
    ref = np.zeros_like(y)
    for b, experts_of_b in enumerate(ROUTES):
        for e in experts_of_b:
            ref[b, e] = x[b] @ w[e]
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------- on AIE

AIE_BLOCKS = 4  # RMSNorm on AIE: one core per block; 4 cores share a memtile's channels


def rmsnorm_aie(blocks: int = AIE_BLOCKS):
    """RMSNorm on a grid of cores, one block each; G goes to every core."""
    rows = (Shard(0), Replicate(), Replicate())
    s = rmsnorm(blocks).schedule().spatial_map((blocks,))
    for t in "XRHY":
        s = s.layout(t, *rows)
    return s.layout("G", Replicate(), Replicate())


def capacity(routes=ROUTES, experts: int = 4) -> int:
    """The token blocks per expert the AIE design has room for: the most any expert gets."""
    return max(sum(e in r for r in routes) for e in range(experts))


def moe_aie(experts: int = 4, slots: int = capacity()):
    """The expert GEMM over a fixed number of slots per expert: core (c, e) multiplies slot
    c of expert e by W[e]. Column e of the array serves expert e (its weights broadcast up
    the column)."""
    xs = Tensor("slots", [experts, slots, 16, 32], f32)
    weights = Tensor("weights", [experts, 32, 32], f32)
    ys = Tensor("results", [experts, slots, 16, 32], f32)
    w = parallel_for(
        Dense[experts],
        lambda e: parallel_for(Dense[slots], lambda c: expert_gemm(xs[e, c], weights[e], ys[e, c])),
    ).named("moe_slots")
    blocks = (Shard(1), Shard(0), Replicate(), Replicate())
    return (
        w.schedule()
        .spatial_map((slots, experts))
        .layout(xs, *blocks)
        .layout(ys, *blocks)
        .layout(weights, Shard(1), Replicate(), Replicate())
    )


def moe_dispatch(d: dict, routes=ROUTES) -> tuple[dict, list]:
    """The host's half of the routing: each routed block of tokens copied into its expert's
    next free slot (unused slots stay zero); the (slot, block) pairs for ``moe_combine``."""
    experts, slots = d["weights"].shape[0], capacity(routes, d["weights"].shape[0])
    xs = np.zeros((experts, slots, 16, 32), np.float32)
    used = [0] * experts
    placed = []
    for b, experts_of_b in enumerate(routes):
        for e in experts_of_b:
            xs[e, used[e]] = d["tokens"][b]
            placed.append(((e, used[e]), b))
            used[e] += 1
    return dict(slots=xs, weights=d["weights"], results=np.zeros_like(xs)), placed


def moe_combine(d: dict, arrays: dict, placed: list) -> None:
    """The other half: each slot's result back to out[block, expert]."""
    for (e, c), b in placed:
        d["out"][b, e] = arrays["results"][e, c]


def aie_design(name: str, device: str = "npu1"):
    """The AIE design (a ModuleOp, verified against mlir-aie's rules) of example ``name``."""
    schedule = {"norm": rmsnorm_aie, "moe_gemm": moe_aie}[name]()
    design = compile_module(schedule.module(), device=device)
    design.verify()
    return design


def attention_designs(lens, device: str = "npu1") -> list:
    """Attention's two AIE designs (scores, then weighted), verified; ``lens`` are written
    into the cores' runtime parameters by each runtime sequence."""
    designs = []
    for part in ("scores", "weighted"):
        design = compile_module(
            attention_aie(part, len(lens)).module(), device=device, bind={"lens": list(lens)}
        )
        design.verify()
        designs.append(design)
    return designs


AIE_BATCH = 3  # attention on AIE: one core per (batch, head), the batch known


def attention_aie(part: str, batch: int = AIE_BATCH):
    """One kernel of attention on a grid of one core per (batch, head): ``scores`` writes P
    to memory, ``weighted`` reads it back (two designs, run in turn, as the other targets go
    through memory). The lengths reach the cores as runtime parameters."""
    t = attention_tensors(batch)
    lens = t["lens"]
    if part == "scores":
        inputs, out, k = (t["Q"], t["KT"]), t["P"], scores
    else:
        inputs, out, k = (t["P"], t["V"]), t["O"], weighted
    w = parallel_for(
        Dense[batch],
        lambda b: parallel_for(
            Dense[HEADS],
            lambda h: k[lens[b]](*(x[b, h] if x.name in "QP" else x[b] for x in inputs), out[b, h]),
        ),
    ).named(f"attention_{part}")
    blocks = (Shard(0), Shard(1), Replicate(), Replicate())
    s = w.schedule().spatial_map((batch, HEADS))
    for x in (*inputs, out):
        s = s.layout(x, *blocks) if x.name in "QPO" else s.layout(x, Shard(0), *blocks[2:])
    return s


def run_aie(name: str, rng, designs=None) -> dict:
    """Example ``name``'s AIE design(s) run by the emulator on fresh data, checked against
    numpy (``designs``: already built, else built here)."""
    design = designs[0] if designs is not None else None
    if name != "attention" and design is None:
        design = aie_design(name)
    if name == "attention":
        data = attention_data(rng)
        for design in designs if designs is not None else attention_designs(data["lens"]):
            emulate(design, data)
    elif name == "norm":
        data = rmsnorm_data(rng, AIE_BLOCKS)
        emulate(design, data)
    elif name == "moe_gemm":
        data = moe_data(rng)
        arrays, placed = moe_dispatch(data)
        emulate(design, arrays)
        moe_combine(data, arrays, placed)
    else:
        raise ValueError(f"example {name} has no AIE design")
    EXAMPLES[name][2](data)
    return data


# --------------------------------------------------------------------------- running

#: Per example: its workload (the program's name on Ascend), its data, its numpy check.
EXAMPLES = {
    "norm": (rmsnorm, rmsnorm_data, rmsnorm_check),
    "attention": (attention, attention_data, attention_check),
    "moe_gemm": (moe, moe_data, moe_check),
}


def run(name: str, program, rng) -> dict:
    """Run example ``name`` on a compiled ``program`` with fresh data; check it against numpy."""
    data = EXAMPLES[name][1](rng)
    program.bind(**data).execute()
    EXAMPLES[name][2](data)
    return data


if __name__ == "__main__":
    # The CPU simulator, then the Ascend target's host build (needs g++): one module, one
    # build for the three workloads, each a program of it.
    ascend = pw.compile(
        pw.module(*(make() for make, _, _ in EXAMPLES.values())),
        target="ascend",
        host=True,
        program="norm",
    )
    for name, (make, _, _) in EXAMPLES.items():
        run(name, pw.compile(make(), target="cpu_sim"), np.random.default_rng(0))
        run(name, ascend.for_program(name), np.random.default_rng(0))
        print(f"{name}: matches numpy on the simulator and on the Ascend host build")
        run_aie(name, np.random.default_rng(0))
        print(f"{name}: its AIE design follows mlir-aie's rules and, emulated, matches numpy")
