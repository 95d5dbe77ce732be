"""The inputs of ``pto-fuzz`` (tools/fuzz.py): seeds, their mutations, and commands.

Seeds are the repository's examples and lit inputs (``.mlir`` and ``.pto``, split on
``// -----``, lit directives removed). A mutation works on tokens (dropped, duplicated,
swapped, replaced by a token of the corpus, an SSA name changed), on lines (dropped,
duplicated, swapped, spliced from another seed), leaves a quote or a brace open, or sets an
integer, a string or a list to a boundary value. A command is a random pipeline of 1-4
passes with options of the right type and of wrong ones (``bind=`` values mutated too) and a
target (``mlir``, ``pto``, ``aie``, ``ascend -o DIR``), or ``pto-run`` in cycles mode with
small bindings for a seed that runs.
"""

from __future__ import annotations

import dataclasses
import random
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: The repository: seeds are read from its examples/ and tests/lit/.
REPOSITORY = Path(__file__).resolve().parents[1]

#: Bindings with which each example runs (pto-run ``--bind`` items).
EXAMPLE_BINDS = {
    "attention": ("batch_size=2", "seq_lens=[3,9]"),
    "attention_module": ("batch=2",),
    "megakernel": ("num_tiles=3",),
    "moe": ("batch_size=2", "indptr=[0,1,3]", "indices=[1,2,0]"),
    "scan": ("n=4",),
    "three_stage": ("batch_size=3",),
    "tiered": ("batch_size=2", "seq_lens=[5,20000]"),
    "transformer_layer": ("n=2",),
    "work_steal": ("batch_size=2",),
}

BOUNDARY_INTS = (
    "0", "-1", "1", "2", "2147483647", "2147483648", "4294967296", "9223372036854775807",
    "9223372036854775808", "18446744073709551615", "18446744073709551616",
    "1000000000000000000000000000000", "-9223372036854775808", "-9223372036854775809",
    "-1000000000000000000000000000000",
)  # fmt: skip
FLOATS = ("0.5", "-0.0", "1.0e309", "1e-400", "nan", "inf", "3.25")
STRINGS = ('""', '"x"', '"' + "a" * 40 + '"', '"a\\"b"', '"\\n"', '"é"', '"@w"')
#: Option values of the wrong type for any option.
WRONG_VALUES = ("1", "-1", "true", '"x"', '""', "[1,2]", "99999999999999999999", "0.5", "x y")
#: Passes of xDSL that apply to any IR, beside pto-wsp's own.
GENERIC_PASSES = ("canonicalize", "cse", "dce", "licm")
#: The order in which pto-wsp's passes apply (one of wsp-to-tg and csp-to-tg).
PASS_ORDER = (
    "wsp-inline-calls", "wsp-canonicalize", "wsp-to-tg", "csp-to-tg", "tg-canonicalize",
    "tg-materialize", "tg-to-aie",
)  # fmt: skip
#: The order in which the tile dialect's passes apply to a module with pto ops.
PTO_ORDER = (
    "pto-infer-spaces", "pto-outline-incore-scopes", "pto-plan-memory", "pto-insert-sync",
    "pto-cost",
)  # fmt: skip
#: Right values of options, by name, for sane commands.
SANE_CHOICES = {
    "calls": ("inline", "nested"),
    "device": ("npu1", "npu1_1col", "npu1_3col", "npu2", "npu2_7col"),
    "acquire": ("subview", "memref"),
    "soc": ("910b", "910c", "950"),
    "stub_kernels": ("true",),  # the examples have no Ascend kernel bodies
    "pto-plan-memory.soc": ("910B", "910C", "950"),
}
#: Known values of options, by name (a wrong one is drawn too).
OPTION_CHOICES = {
    "calls": ("inline", "nested", "bogus"),
    "device": ("npu1", "npu1_1col", "npu1_3col", "npu2", "npu2_7col", "xcvc1902", "bogus"),
    "acquire": ("subview", "memref", "bogus"),
    "soc": ("910b", "910c", "950", "bogus"),
    "pto-plan-memory.soc": ("910B", "910C", "950", "910b", "910A", "0"),
    "dot": ('"g.dot"', '"a-file/g.dot"'),
    "kernel_dirs": ('""', '"kernels"', '"a-file"', '"."'),
    "stub_kernels": ("true", "true", "true", "false"),  # examples have no Ascend kernel bodies
}

#: numpy's names of element types, for pto-run's ``zeros(..., dtype=...)`` bindings.
DTYPES = {f"{k}{w}": f"{n}{w}" for k, n in (("f", "float"), ("i", "int")) for w in (8, 16, 32, 64)}

TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|[%@^#!][\w$.-]*|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_][\w$.]*|->|\S'
)
_INT = re.compile(r"-?\d+$")
_DIRECTIVE = re.compile(r"^\s*//\s*([A-Z][A-Z0-9_-]*:|RUN|CHECK)")
_BIND = re.compile(r'bind="([^"]*)"')


# --- Corpus ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seed:
    """One seed input: a chunk of an example or a lit file."""

    name: str
    text: str
    ext: str
    binds: tuple[str, ...] = ()
    """Bindings that fit it (``n=3``), from its RUN lines or the example's runs."""
    runnable: bool = False
    """Whether ``pto-run`` runs it with ``binds``."""


@dataclass
class Corpus:
    """The seeds and every distinct token in them (replacement tokens)."""

    seeds: list[Seed]
    tokens: list[str]
    lines: list[str]

    def draw(self, rng: random.Random) -> Seed:
        """A seed: a third of the time a runnable one (they reach every stage), a tenth a
        .pto one (few lit inputs are), a sixth one with tile-dialect ops, else any."""
        pick = rng.random()
        if pick < 0.33:
            found = [s for s in self.seeds if s.runnable]
        elif pick < 0.43:
            found = [s for s in self.seeds if s.ext == "pto"]
        elif pick < 0.6:
            found = [s for s in self.seeds if "pto." in s.text]
        else:
            found = self.seeds
        return rng.choice(found or self.seeds)


def load_corpus(root: Path = REPOSITORY) -> Corpus:
    """The seeds of ``root``: examples/*.mlir|pto and tests/lit/**/*.mlir|pto, lit
    directives removed, split on ``// -----``."""
    files = sorted(root.glob("examples/*.mlir")) + sorted(root.glob("examples/*.pto"))
    files += sorted(p for p in root.glob("tests/lit/**/*") if p.suffix in (".mlir", ".pto"))
    seeds = []
    for path in files:
        if "Output" in path.parts or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        binds = tuple(item for found in _BIND.findall(text) for item in split_bind(found))
        runnable = path.parent.name == "examples" and path.stem in EXAMPLE_BINDS
        if runnable:
            binds = EXAMPLE_BINDS[path.stem]
        for index, chunk in enumerate(re.split(r"^// -----.*$", text, flags=re.MULTILINE)):
            kept = "".join(
                line for line in chunk.splitlines(keepends=True) if not _DIRECTIVE.match(line)
            )
            if kept.strip():
                name = f"{path.relative_to(root)}#{index}"
                seeds.append(Seed(name, kept, path.suffix[1:], binds, runnable or bool(binds)))
    if not seeds:
        raise FileNotFoundError(f"no seeds under {root} (examples/, tests/lit/)")
    tokens = sorted({m.group() for s in seeds for m in TOKEN.finditer(s.text)})
    lines = sorted({line for s in seeds for line in s.text.splitlines() if line.strip()})
    return Corpus(seeds, tokens, lines)


def split_bind(text: str) -> list[str]:
    """``n=3,lengths=[2,0,1]`` -> ``["n=3", "lengths=[2,0,1]"]`` (commas inside brackets stay)."""
    return [item for item in re.split(r",(?![^\[]*\])", text) if item]


# --- Mutations ---------------------------------------------------------------------------

Mutator = Callable[[str, random.Random, Corpus], str]


def _tokens(text: str) -> list[re.Match[str]]:
    return list(TOKEN.finditer(text))


def _put(text: str, match: re.Match[str], new: str) -> str:
    return text[: match.start()] + new + text[match.end() :]


def _pick(found: list[re.Match[str]], rng: random.Random) -> re.Match[str] | None:
    return rng.choice(found) if found else None


def drop_token(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A token dropped."""
    m = _pick(_tokens(text), rng)
    return text if m is None else _put(text, m, "")


def duplicate_token(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A token written twice."""
    m = _pick(_tokens(text), rng)
    return text if m is None else _put(text, m, f"{m.group()} {m.group()}")


def swap_tokens(text: str, rng: random.Random, corpus: Corpus) -> str:
    """Two tokens swapped."""
    tokens = _tokens(text)
    if len(tokens) < 2:
        return text
    a, b = sorted(rng.sample(tokens, 2), key=lambda m: m.start())
    return text[: a.start()] + b.group() + text[a.end() : b.start()] + a.group() + text[b.end() :]


def replace_token(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A token replaced by any token of the corpus."""
    m = _pick(_tokens(text), rng)
    return text if m is None else _put(text, m, rng.choice(corpus.tokens))


def rename_value(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A use or a definition of an SSA value names another value (or none)."""
    names = [m for m in _tokens(text) if m.group().startswith("%")]
    m = _pick(names, rng)
    if m is None:
        return text
    others = sorted({n.group() for n in names} | {"%zz", "%0", "%1", "%arg0"})
    return _put(text, m, rng.choice(others))


def drop_line(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A line dropped."""
    lines = text.splitlines(keepends=True)
    if lines:
        del lines[rng.randrange(len(lines))]
    return "".join(lines)


def duplicate_line(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A line written twice."""
    lines = text.splitlines(keepends=True)
    if lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    return "".join(lines)


def swap_lines(text: str, rng: random.Random, corpus: Corpus) -> str:
    """Two lines swapped."""
    lines = text.splitlines(keepends=True)
    if len(lines) > 1:
        i, j = rng.sample(range(len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def splice_line(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A line of another seed inserted anywhere."""
    lines = text.splitlines(keepends=True)
    lines.insert(rng.randint(0, len(lines)), rng.choice(corpus.lines) + "\n")
    return "".join(lines)


def unclose(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A string, brace, bracket or parenthesis left open, or one opened too many."""
    tokens = _tokens(text)
    strings = [m for m in tokens if m.group().startswith('"')]
    closers = [m for m in tokens if m.group() in ("}", ")", "]", ">")]
    choice = rng.randrange(3)
    if choice == 0 and strings:
        m = rng.choice(strings)
        return _put(text, m, m.group()[:-1])
    if choice == 1 and closers:
        return _put(text, rng.choice(closers), "")
    m = _pick(tokens, rng)
    return text if m is None else _put(text, m, rng.choice('{(["<') + m.group())


def boundary_int(text: str, rng: random.Random, corpus: Corpus) -> str:
    """An integer set to a boundary value (0, -1, 2^31, 2^63, 2^64, 10^30...)."""
    m = _pick([m for m in _tokens(text) if _INT.match(m.group())], rng)
    return text if m is None else _put(text, m, rng.choice(BOUNDARY_INTS))


def float_value(text: str, rng: random.Random, corpus: Corpus) -> str:
    """An integer replaced by a float (nan, inf, 1.0e309...)."""
    m = _pick([m for m in _tokens(text) if _INT.match(m.group())], rng)
    return text if m is None else _put(text, m, rng.choice(FLOATS))


def string_value(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A string emptied, lengthened, escaped or made non-ASCII."""
    m = _pick([m for m in _tokens(text) if m.group().startswith('"')], rng)
    return text if m is None else _put(text, m, rng.choice(STRINGS))


def list_value(text: str, rng: random.Random, corpus: Corpus) -> str:
    """A list emptied, given a boundary value, or made ragged."""
    m = _pick(list(re.finditer(r"\[[^\[\]\n]*\]|\([^()\n]*\)", text)), rng)
    if m is None:
        return text
    opening, closing = m.group()[0], m.group()[-1]
    inner = rng.choice(("", rng.choice(BOUNDARY_INTS), "[1], [2, 3]", m.group()[1:-1] * 2))
    return _put(text, m, opening + inner + closing)


MUTATORS: tuple[Mutator, ...] = (
    drop_token, duplicate_token, swap_tokens, replace_token, replace_token, rename_value,
    rename_value, drop_line, duplicate_line, swap_lines, splice_line, unclose, boundary_int,
    boundary_int, float_value, string_value, list_value,
)  # fmt: skip


def mutate(text: str, rng: random.Random, corpus: Corpus) -> str:
    """``text`` with 0 (sometimes: valid inputs meet random pipelines) to 3 mutations."""
    count = 0 if rng.random() < 0.3 else rng.choice((1, 1, 1, 2, 3))
    for _ in range(count):
        text = rng.choice(MUTATORS)(text, rng, corpus)
    return text


def mutate_binding(item: str, rng: random.Random) -> str:
    """A ``name=value`` binding with its value at a boundary, ragged, malformed..."""
    name, _, value = item.partition("=")
    return rng.choice(
        (
            f"{name}={rng.choice(BOUNDARY_INTS)}",
            f"{name}=[{rng.choice(BOUNDARY_INTS)}]",
            f"{name}=[[1],[2,3]]",
            f"{name}=[]",
            f"{name}={rng.choice(FLOATS)}",
            f"{name}=abc",
            f"{name}=",
            name,
            f"={value}",
            f"{name}=[1,2",
            f"nope={value}",
        )
    )


def bindings(seed: Seed, text: str, rng: random.Random, wrong: float) -> list[str]:
    """Bindings for ``text``: the seed's (else one per index argument), each changed with
    probability ``wrong``."""
    items = list(seed.binds) or [
        f"{n}=2" for n in dict.fromkeys(re.findall(r"%(\w+)\s*:\s*index", text))
    ]
    return [mutate_binding(i, rng) if rng.random() < wrong else i for i in items]


def array_bindings(text: str, rng: random.Random) -> list[str]:
    """``name=rand(...)`` (or zeros, ones) of the element type for each memref argument of
    ``text``'s first workload (dynamic sizes 2), for the functional mode; sometimes of
    another shape."""
    items = []
    head = re.search(r"wsp\.workload\s+@[\w$.-]+\(([^)]*)\)", text)
    found = re.findall(
        r"%(\w+)\s*:\s*memref<([?\dx]*?)x?([a-z]+\d+)>", head.group(1) if head else ""
    )
    for name, (shape, element) in {n: (s, e) for n, s, e in found}.items():
        dims = [d if d.isdigit() else "2" for d in shape.split("x") if d]
        if rng.random() < 0.1:
            dims = dims[:-1] or ["3"]
        dtype = DTYPES.get(element, "float32")
        kind = rng.choice(("rand", "rand", "zeros", "ones"))
        items.append(f"{name}={kind}({','.join([*dims, f'dtype={dtype}'])})")
    return items


# --- Commands ----------------------------------------------------------------------------


@dataclass
class Case:
    """One input and the command it runs through, in a directory of its own."""

    tool: str
    text: str
    ext: str
    args: list[str]
    """The arguments; the input is ``input.<ext>`` in the current directory."""
    readback: str | None = None
    """The frontend (``mlir`` or ``pto``) that must read the output back on success."""
    seed: str = ""

    @property
    def input_name(self) -> str:
        return f"input.{self.ext}"

    def command(self) -> str:
        """The command line, run in a directory holding the input and an empty ``a-file``."""
        return shlex.join([self.tool, *self.args])


def make_case(seed: Seed, corpus: Corpus, rng: random.Random, passes: dict, targets: dict) -> Case:
    """A mutated ``seed`` and a random command for it."""
    text = mutate(seed.text, rng, corpus)
    command = _Command(seed, text, rng, passes, targets, sane=rng.random() < 0.4)
    tile_workload = "pto." in seed.text and "wsp.workload" in seed.text
    if (seed.runnable or tile_workload) and seed.ext == "mlir" and rng.random() < 0.25:
        return command.pto_run()
    return command.pto_opt()


@dataclass
class _Command:
    """Draws a command for ``text``. A ``sane`` one takes only options, values and pass
    orders that fit, so that inputs (mutated or not) reach the passes and targets behind
    the option checks; the others take wrong ones too."""

    seed: Seed
    text: str
    rng: random.Random
    passes: dict[str, type]
    targets: dict[str, type]
    sane: bool

    def pto_opt(self) -> Case:
        rng, sane = self.rng, self.sane
        args = [f"input.{self.seed.ext}"]
        # The AIE target maps CSP pipelines and spatially mapped workloads only.
        maps = not sane or any(k in self.text for k in ("csp.pipeline", "spatial_map"))
        # Tile kernels are emitted by both targets (the AIE one even when not mapped).
        weights = (5, 2, 4 if maps or self.tiles else 0, 3 if self.tiles else 1)
        target = rng.choices(("mlir", "pto", "aie", "ascend"), weights)[0]
        pipeline = self._pipeline() if rng.random() < 0.75 else []
        if target == "ascend" and (sane or rng.random() < 0.8):  # it emits tg.programs
            pipeline = [self._lowering()] + ["tg-canonicalize"] * rng.randint(0, 1)
            if self.tiles and rng.random() < 0.5:  # tile kernels: planned and synced or not
                pipeline = self._pto_passes() if rng.random() < 0.7 else []
        if target == "aie" and sane:  # the target lowers by itself
            pipeline = self._pto_passes() if self.tiles and rng.random() < 0.3 else []
        if pipeline:
            args += ["-p", ",".join(p + self._options(self.passes[p]) for p in pipeline)]
        if rng.random() < 0.1:
            args.append("--print-op-generic")
        if rng.random() < 0.05:
            args.append("--allow-unregistered-dialect")
        if target in ("mlir", "pto"):
            args += ["-t", "pto"] if target == "pto" else []
            args += ["-o", f"out.{target}"] if rng.random() < 0.5 else []
            return Case("pto-opt", self.text, self.seed.ext, args, target, self.seed.name)
        if target == "aie":
            args += ["-t", "aie" + self._options(self.targets["aie"], ("bind",))]
        else:
            out = (
                "ascend-out"
                if sane
                else rng.choices(("ascend-out", "a-file", "a-file/sub"), (18, 1, 1))[0]
            )
            options = self._options(self.targets["ascend"], ("stub_kernels",))
            args += ["-t", "ascend" + options, "-o", out]
        return Case("pto-opt", self.text, self.seed.ext, args, None, self.seed.name)

    def pto_run(self) -> Case:
        rng = self.rng
        functional = self.tiles and rng.random() < 0.7  # the CPU tile numerics
        args = ["input.mlir", "--mode", "functional" if functional else "cycles", "--quiet"]
        items = bindings(self.seed, self.text, rng, 0 if self.sane else 0.15)
        for item in items + (array_bindings(self.text, rng) if functional else []):
            args += ["--bind", item]
        if not self.sane and rng.random() < 0.1:
            args += ["--workers", rng.choice(("1", "3", "0", "-1", "x", "100000"))]
        if not self.sane and rng.random() < 0.1:
            names = re.findall(r"@([\w$.-]+)", self.text) or ["w"]
            args += [rng.choice(("--workload", "--schedule")), rng.choice([*names, "nope"])]
        return Case("pto-run", self.text, "mlir", args, None, self.seed.name)

    def _lowering(self) -> str:
        if self.sane:
            return "csp-to-tg" if "csp.pipeline" in self.text else "wsp-to-tg"
        return self.rng.choice(("wsp-to-tg", "csp-to-tg"))

    def _pipeline(self) -> list[str]:
        """1-4 passes: in an order that fits (as the docs chain them) when sane and half the
        time otherwise, else in any order with xDSL's generic passes among them."""
        rng = self.rng
        if self.tiles and rng.random() < 0.5:
            return self._pto_passes()
        if self.sane or rng.random() < 0.5:
            order = [p for p in PASS_ORDER if p in self.passes]
            lowering = self._lowering()
            order.remove("csp-to-tg" if lowering == "wsp-to-tg" else "wsp-to-tg")
            return sorted(rng.sample(order, rng.randint(1, 4)), key=order.index)
        ours = [name for name in self.passes if name not in GENERIC_PASSES]
        return [
            rng.choice(GENERIC_PASSES if rng.random() < 0.15 else ours)
            for _ in range(rng.randint(1, 4))
        ]

    @property
    def tiles(self) -> bool:
        """Whether the input has tile-dialect ops (tile kernels, pto functions)."""
        return "pto." in self.text

    def _pto_passes(self) -> list[str]:
        """1-3 of the tile dialect's passes in their order."""
        order = [p for p in PTO_ORDER if p in self.passes]
        return sorted(self.rng.sample(order, self.rng.randint(1, 3)), key=order.index)

    def _options(self, cls: type, usual: tuple[str, ...] = ()) -> str:
        """``{name=value ...}`` for some of ``cls``'s options (dataclass fields), or ""; the
        ``usual`` ones most of the time."""
        rng = self.rng
        fields = [f for f in dataclasses.fields(cls) if f.name != "out_dir"]
        if self.sane:  # those whose right values are known
            fields = [f for f in fields if f.name in usual or f.name in SANE_CHOICES]
        chosen = [f for f in fields if rng.random() < (0.9 if f.name in usual else 0.5)]
        owner = getattr(cls, "name", "")
        parts = [f"{f.name.replace('_', '-')}={self._value(f, owner)}" for f in chosen]
        if not self.sane and rng.random() < 0.05:
            parts.append("bogus-option=1")
        if not parts and rng.random() < 0.7:
            return ""
        return "{" + " ".join(parts) + "}"

    def _value(self, option: dataclasses.Field, owner: str) -> str:
        """A value for ``option`` of the pass or target named ``owner`` (choices keyed
        ``owner.option`` take precedence over those keyed by the option alone)."""
        rng = self.rng
        if self.sane:
            if option.name == "bind":
                return '"' + ",".join(bindings(self.seed, self.text, rng, 0)) + '"'
            return rng.choice(SANE_CHOICES.get(f"{owner}.{option.name}", SANE_CHOICES[option.name]))
        if rng.random() < 0.1:
            return rng.choice(WRONG_VALUES)
        if option.name == "bind":
            return '"' + ",".join(bindings(self.seed, self.text, rng, 0.3)) + '"'
        if option.name in ("program", "schedule"):
            names = re.findall(r"@([\w$.-]+)", self.text) or ["w"]
            return '"' + rng.choice([*names, "nope", ""]) + '"'
        for key in (f"{owner}.{option.name}", option.name):
            if key in OPTION_CHOICES:
                return rng.choice(OPTION_CHOICES[key])
        return rng.choice(("true", "false")) if option.type == "bool" else '"x"'


def registered() -> tuple[dict[str, type], dict[str, type]]:
    """The passes to draw from (pto-wsp's and xDSL's generic ones) and pto-wsp's targets."""
    from xdsl.transforms import get_all_passes

    from pto_wsp.universe import ALL_PASSES, ALL_TARGETS

    generic = get_all_passes()
    passes = {name: factory() for name, factory in ALL_PASSES.items()}
    passes |= {name: generic[name]() for name in GENERIC_PASSES}
    return passes, {name: factory() for name, factory in ALL_TARGETS.items()}
