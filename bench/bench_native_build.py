"""Native graph build as a user meets it: a fresh process imports pto_wsp, compiles the
LLaMA-7B-layer workload of bench_graph_build.py and builds its task graph, beside the current
path (the generated-Python program with numpy batches).

    python3 bench/bench_native_build.py [--sizes 1k,13k,100k,200k] [--structure data|seq]
                                        [--paths native,current] [--check 1k]

Each path runs in its own fresh process (one-time builds done: the native core's library and
numba's cache already on disk) and reports: the time of ``import pto_wsp``; the compile time
(native: the Python API's workload -> wsp-to-tg -> tg-to-runtime-calls -> upstream MLIR ->
LLVM -> ExecutionEngine; current: ``compile(target="cpu_sim")``); then per size, ascending,
the first build (binding, task generation, dependency inference, the TaskGraph) and a build
again with the same values, as tasks/ms. The first row's first build also pays whatever the
path loads on first use. At the ``--check`` sizes the two graphs are compared (same nodes,
regions, edges and kinds). No timing is asserted anywhere: these are figures to read.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
#: name -> (sequences B, row tiles nt): tasks = B * (nt * 46 + 64)
SIZES = {"1k": (1, 20), "13k": (4, 70), "100k": (8, 270), "200k": (16, 270)}


def child(path: str, name: str, structure: str, check: bool) -> dict:
    """One path's figures at one size, measured in this (fresh) process."""
    t0 = time.perf_counter()
    sys.path.insert(0, HERE)
    import bench_graph_build as bgb  # (imports pto_wsp's API)

    if path == "native":
        from xdsl.context import Context

        from pto_wsp.frontend.program import module
        from pto_wsp.lowering.cpu.native import compile_native
        from pto_wsp.passes.wsp_to_tg import WspToTgPass
    imported = time.perf_counter() - t0
    B, nt = SIZES[name]
    tensors = bgb.layer_tensors(B, nt)  # the program's inputs: made before, not timed
    t0 = time.perf_counter()
    if path == "native":
        workload_module = module(bgb.llama_workload(structure))
        WspToTgPass().apply(Context(), workload_module)
        program = compile_native(workload_module, "llama_layer")

        def build():
            return program.build({"B": B, "NT": nt, **tensors})
    else:
        prog = bgb.llama_workload(structure).compile(target="cpu_sim")

        def build():
            with bgb.gc_paused():
                return bgb.build_compiled(prog, B, nt, tensors)

    compiled = time.perf_counter() - t0
    times, cpu = [], []
    for _ in range(2):
        graph = None
        t0, c0 = time.perf_counter(), time.process_time()
        graph = build()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    if check:
        import pickle

        with open(os.path.join(os.environ["BENCH_TMP"], f"{path}-{name}.pkl"), "wb") as out:
            pickle.dump(_plain(graph), out)
    return {"path": path, "size": name, "tasks": graph.num_tasks, "import": imported,
            "compile": compiled, "first": times[0], "again": times[1], "cpu": cpu}  # fmt: skip


def _plain(graph) -> dict:
    """What same_graph compares, as plain data (the native graph's per-node fields are lazy)."""
    return {
        "kind": graph.kind.tolist(),
        "kernels": [graph.kernel_name(i) for i in range(graph.num_nodes)],
        "regions": [[r.key + (r.access,) for r in rs] for rs in graph.regions],
        "coords": [tuple(c) for c in graph.coords],
        "edges": list(zip(*(a.tolist() for a in graph.edges()), graph.edge_kind.tolist())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1k,13k,100k,200k")
    parser.add_argument("--structure", default="data", choices=["data", "seq"])
    parser.add_argument("--paths", default="native,current")
    parser.add_argument("--check", default="1k")
    parser.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [s for s in args.sizes.split(",") if s]
    check = [s for s in args.check.split(",") if s in sizes]
    if args.child:
        print(json.dumps(child(args.child, sizes[0], args.structure, bool(check))))
        return
    from pto_wsp.runtime.native_core import build

    build()  # the one-time build, never inside a measurement
    import pickle
    import tempfile

    paths = [p for p in args.paths.split(",") if p]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, BENCH_TMP=tmp)
        results = []
        for path in paths:
            for name in sizes:
                cmd = [sys.executable, __file__, "--child", path, "--sizes", name,
                       "--structure", args.structure, "--check", name if name in check else ""]  # fmt: skip
                run = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
                if run.returncode != 0:
                    sys.exit(f"{path} at {name} failed:\n{run.stderr}")
                results.append(json.loads(run.stdout.strip().splitlines()[-1]))
        report(results, args.structure)
        for name in check:
            graphs = []
            for path in paths:
                with open(os.path.join(tmp, f"{path}-{name}.pkl"), "rb") as f:
                    graphs.append(pickle.load(f))
            if len(graphs) == 2:
                same = "the same" if graphs[0] == graphs[1] else "DIFFERENT"
                print(f"check {name}: the two paths' graphs are {same}")


def report(results: list[dict], structure: str) -> None:
    cpu = platform.processor() or platform.machine()
    print(f"LLaMA-7B layer ({structure}); a fresh process per path and size; {cpu}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}")  # fmt: skip
    print(f"{'path':>8} {'size':>5} {'tasks':>7} {'import s':>8} {'compile s':>9} "
          f"{'first ms':>9} {'tasks/ms':>8} {'again ms':>9} {'tasks/ms':>8} {'total s':>7}"
          f"  {'CPU tasks/ms: first':>19} {'again':>6}")  # fmt: skip
    for r in results:
        n, first, again = r["tasks"], r["first"] * 1e3, r["again"] * 1e3
        total = r["import"] + r["compile"] + r["first"]
        print(f"{r['path']:>8} {r['size']:>5} {n:>7} {r['import']:>8.2f} {r['compile']:>9.2f} "
              f"{first:>9.1f} {n / first:>8.0f} {again:>9.1f} {n / again:>8.0f} {total:>7.2f}"
              f"  {n / r['cpu'][0] / 1e3:>19.0f} {n / r['cpu'][1] / 1e3:>6.0f}")  # fmt: skip
    print("total: import + compile + first build, as a user's first run meets it; "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
