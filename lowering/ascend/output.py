"""Writing an emitted tree to disk all or nothing, as ``pto-opt -o FILE`` writes a file.

The files go to a new directory beside the destination first and are moved into place once
every one is written: a run that fails midway (a full disk, an interrupt) leaves the
destination as it was, and an existing destination keeps the files of its own (a build's
objects) while ``kernels/`` and ``ascend_host/`` hold only the new emission's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .errors import AscendEmitError

#: Folders of the tree replaced whole, so that files of an earlier emission do not linger.
REPLACED = ("kernels", "ascend_host")


def write_tree(files: dict[str, str], out_dir: str | os.PathLike) -> Path:
    """Write ``files`` (relative path -> text) under ``out_dir``; return ``out_dir`` as a Path.

    Raises AscendEmitError naming ``out_dir`` when it cannot be written."""
    out = Path(out_dir)
    # Through a symbolic link: its target is what is written, and staged beside.
    real = Path(os.path.realpath(out))
    blocking = next((p for p in (real, *real.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        what = "it" if blocking == real else f"'{blocking}'"
        raise AscendEmitError(
            f"cannot write the output directory '{out}': {what} is a file, not a directory"
        )
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp"))
    except OSError as error:
        raise AscendEmitError(
            f"cannot write the output directory '{out}': {_reason(error)}"
        ) from None
    try:
        for rel, text in files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        if real.is_dir():
            _merge(staging, real)
        else:
            os.chmod(staging, 0o777 & ~_umask())  # mkdtemp's folder is private
            os.rename(staging, real)
    except OSError as error:
        raise AscendEmitError(
            f"cannot write the output directory '{out}': {_reason(error)}"
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def _merge(staging: Path, out: Path) -> None:
    """Move the staged tree into the existing ``out``; an unchanged file is left as it is
    (its time stamp too, which make goes by)."""
    for entry in staging.iterdir():
        target = out / entry.name
        if entry.is_dir():
            if entry.name in REPLACED or not target.is_dir():
                _remove(target)
                os.rename(entry, target)
            else:
                _merge(entry, target)
        elif not (target.is_file() and target.read_bytes() == entry.read_bytes()):
            if target.is_dir():
                shutil.rmtree(target)
            os.replace(entry, target)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
