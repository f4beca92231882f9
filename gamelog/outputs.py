"""Writing outputs without ever destroying a file the toolkit did not write.

Every output directory (a site report, an export, a Parquet data set) is built in a fresh
folder beside its target and swapped in whole, so a reader sees the old set or the new one,
never half of each; and it carries a manifest (``.shengji-output.json``) listing what it holds.
An existing directory is replaced only if it is empty or holds exactly what its manifest
lists: anything else in it (a user's files, the input records) makes the command refuse with an
error naming the file. An output that is, or contains, one of the inputs is refused too.

Temporary files and folders left by a killed run (``.NAME.PID.tmp``, ``.NAME.build-PID-...``)
are ours by name: the next run writing the same target removes those whose process is gone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from gamelog.errors import GamelogIOError

MANIFEST = ".shengji-output.json"


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(target: Path) -> None:
    """Remove the temporary files and build folders that an earlier, killed run writing
    ``target`` left beside it (recognised by name and by their process being gone)."""
    parent = target.parent
    name = re.escape(target.name)
    pattern = re.compile(rf"\.{name}\.(?:build-)?(\d+)(?:\.tmp|-[A-Za-z0-9_]+|\.old)$")
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        m = pattern.match(entry.name)
        if m is None or _pid_alive(int(m.group(1))):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def temp_name(target: Path) -> Path:
    """The temporary file written beside ``target`` before it is moved over it."""
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")


def _resolved(path: str | os.PathLike[str]) -> Path:
    try:
        return Path(path).resolve()
    except OSError:
        return Path(os.path.abspath(path))


def refuse_inputs(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]) -> None:
    """Raise if ``output`` is one of ``inputs``, lies inside an input directory that would be
    rewritten, or contains an input (writing it would replace the records being read)."""
    out = _resolved(output)
    for given in inputs:
        src = _resolved(given)
        if src == out:
            raise GamelogIOError(f"{output}: is also an input; choose another output")
        if out in src.parents:
            raise GamelogIOError(f"{output}: contains the input {given}; choose another output")


def _manifest(directory: Path) -> list[str] | None:
    """The files a directory's manifest lists, or ``None`` if it has none (or it is bad)."""
    try:
        data = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return files


def _contents(directory: Path) -> set[str]:
    return {p.relative_to(directory).as_posix() for p in directory.rglob("*")
            if p.is_file() or p.is_symlink()}


def check_replaceable(directory: Path, kind: str) -> None:
    """Raise unless ``directory`` is absent, empty, or an earlier output of ours holding exactly
    the files its manifest lists."""
    if not directory.exists():
        return
    if not directory.is_dir():
        raise GamelogIOError(f"{directory}: exists and is not a directory; the {kind} needs a "
                             "directory here")
    present = _contents(directory)
    if not present:
        return
    listed = _manifest(directory)
    if listed is None:
        raise GamelogIOError(
            f"{directory}: the directory is not empty and was not written by shengji (no "
            f"{MANIFEST}); refusing to replace it. Choose a new or empty directory for the "
            f"{kind}.")
    foreign = sorted(present - set(listed) - {MANIFEST})
    if foreign:
        raise GamelogIOError(
            f"{directory}: holds {foreign[0]!r}"
            + (f" and {len(foreign) - 1} more file(s)" if len(foreign) > 1 else "")
            + f" that the earlier {kind} did not write; refusing to replace it. Move them away "
            "or choose another directory.")


@contextmanager
def owned_directory(target: str | os.PathLike[str], kind: str) -> Iterator[Path]:
    """A fresh folder to build ``target`` in; on success it gets its manifest and replaces
    ``target`` whole (see the module's docstring); on failure it is removed and ``target`` is
    left as it was."""
    out = Path(os.path.abspath(target))  # "." has no name to build beside
    check_replaceable(out, kind)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        clean_stale(out)
        build = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-{os.getpid()}-",
                                      dir=out.parent))
    except OSError as exc:
        raise GamelogIOError(f"{out}: cannot write: {exc.strerror or exc}") from None
    try:
        yield build
        listed = sorted(_contents(build))
        (build / MANIFEST).write_text(json.dumps({"written_by": "shengji", "kind": kind,
                                                  "files": listed}, indent=1) + "\n",
                                      encoding="utf-8")
        os.chmod(build, 0o755)
        check_replaceable(out, kind)  # nothing foreign arrived while we built
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}.{os.getpid()}.old")
            os.replace(out, old)
        os.replace(build, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(build, ignore_errors=True)
        raise GamelogIOError(f"{out}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise


GENERATOR_MARK = b'<meta name="generator" content="shengji-toolkit'


def check_report_file(path: Path) -> None:
    """Raise unless ``path`` is absent or an HTML report this toolkit wrote (it carries the
    generator mark near its start)."""
    if not path.exists():
        return
    if path.is_dir():
        raise GamelogIOError(f"{path}: is a directory; end the name with / for a report with a "
                             "page per hand")
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as exc:
        raise GamelogIOError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if GENERATOR_MARK not in head:
        raise GamelogIOError(f"{path}: exists and is not a report written by shengji; refusing "
                             "to overwrite it. Choose another name.")
