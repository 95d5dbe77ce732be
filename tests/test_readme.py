"""The README's Quick start: exactly two commands, CI runs the second, the first's job runs."""

import shlex
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def quick_start() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Quick start", 1)[1]
    block = section.split("```sh", 1)[1].split("```", 1)[0]
    return [line for line in block.strip().splitlines() if line.strip()]


def test_quick_start_has_exactly_two_commands():
    commands = quick_start()
    assert len(commands) == 2
    assert all(c.startswith("python3 -m pip install -e ") for c in commands)


def test_ci_runs_the_second_command_verbatim():
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == quick_start()[1]


def test_main_job_of_the_first_command_runs(tmp_path: Path):
    """The part after the install (which the test environment already has) runs and draws."""
    _, job = quick_start()[0].split(" && ", 1)
    args = shlex.split(job)
    # Run from the repository as a user would, but draw the chart in the test's folder.
    gantt = tmp_path / "gantt.png"
    args[args.index("--gantt") + 1] = str(gantt)
    result = subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "makespan" in result.stdout
    assert gantt.stat().st_size > 1000
