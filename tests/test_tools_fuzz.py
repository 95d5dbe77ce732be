"""Bad input never crashes the tools: mutated examples through ``pto-opt`` and ``pto-run``.

Each case takes an example module, changes it once or twice the way a typo would — a line
dropped, a token dropped, two lines swapped, an SSA name changed, a type changed, a
definition renamed — and runs it through ``pto-opt`` (with a lowering pipeline or a target) and ``pto-run`` (cycles mode,
small bindings), in process. Whatever the module became, each tool must return 0 or report
an error (exit code 1 or 2) on stderr without a Python traceback. Fixed seeds: the same cases
every run. Such mutations found a verifier gap (a value of a sibling region: a NameError in
the simulator's generated code, now dialects/traits.py's IsolatedScopes). Numbers are left
alone: a loop bound made huge would only make a long run.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from pto_wsp.tools import pto_opt, pto_run

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

BINDS = {
    "attention": ["batch_size=2", "seq_lens=[3,9]"],
    "attention_module": ["batch=2"],
    "megakernel": ["num_tiles=3"],
    "moe": ["batch_size=2", "indptr=[0,1,3]", "indices=[1,2,0]"],
    "scan": ["n=4"],
    "three_stage": ["batch_size=3"],
    "tiered": ["batch_size=2", "seq_lens=[5,20000]"],
    "transformer_layer": ["n=2"],
    "work_steal": ["batch_size=2"],
}
PIPELINES = [
    [],
    ["-p", "wsp-to-tg"],
    ["-p", "wsp-inline-calls,wsp-to-tg"],
    ["-p", "csp-to-tg"],
    ["-p", "wsp-to-tg,tg-materialize"],
    ["-t", "aie", "-p", "csp-to-tg"],
    ["-t", "ascend", "-p", "wsp-to-tg"],
]


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    code = [
        i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("//")
    ]
    i = rng.choice(code)
    kind = rng.randrange(6)
    if kind == 0:
        del lines[i]
    elif kind == 1:
        tokens = lines[i].split(" ")
        if len(tokens) > 1:
            del tokens[rng.randrange(len(tokens))]
            lines[i] = " ".join(tokens)
    elif kind == 2:
        j = rng.choice(code)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3:
        names = re.findall(r"%\w+", lines[i])
        if names:
            new = rng.choice(["%zz", "%0", "%b", "%i", "%t"])
            lines[i] = lines[i].replace(rng.choice(names), new, 1)
    elif kind == 4:
        swap = rng.choice(["i32", "f32", "memref<4xf32>", "!wsp.task"])
        lines[i] = lines[i].replace("index", swap, 1)
    else:  # a definition renamed: its uses may now name a value of another region
        defining = [
            k for k in code if re.search(r"(%\w+) =|(?:for_each|parallel_for) (%\w+)", lines[k])
        ]
        if defining:
            k = rng.choice(defining)
            m = re.search(r"(%\w+) =|(?:for_each|parallel_for) (%\w+)", lines[k])
            old = m.group(1) or m.group(2)
            lines[k] = (
                lines[k][: m.start()] + m.group(0).replace(old, "%zz", 1) + lines[k][m.end() :]
            )
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(80))
def test_mutated_examples_give_errors_not_tracebacks(seed, tmp_path, capsys):
    rng = random.Random(seed)
    name = rng.choice(sorted(BINDS))
    text = (EXAMPLES / f"{name}.mlir").read_text()
    for _ in range(rng.randint(1, 2)):
        text = _mutate(text, rng)
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    runs = [
        ("pto-opt", pto_opt.main, [str(path), *rng.choice(PIPELINES)]),
        (
            "pto-run",
            pto_run.main,
            [str(path), "--mode", "cycles", "--quiet"]
            + [a for b in BINDS[name] for a in ("--bind", b)]
            + (["--workload", "attention"] if name == "attention_module" else []),
        ),
    ]
    for tool, main, args in runs:
        code = main(args)
        _, err = capsys.readouterr()
        assert code in (0, 1, 2), (tool, args, err)
        assert "Traceback" not in err, (tool, args, err)
        if code:
            assert "error" in err, (tool, args, err)
