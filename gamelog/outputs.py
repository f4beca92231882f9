"""Writing outputs without ever destroying a file the toolkit did not write.

Three promises, each checked before any work and again just before the swap:

- **Atomic.** A file is written beside its target (``.NAME.shengji-tmp-PID-`` and eight
  random hex digits) and moved over it only when complete; an output directory (a site
  report, an export, a Parquet data set) is built in a fresh folder beside it and swapped in
  whole, so a reader sees the old output or the new one, never half of each.
- **Only our own files are replaced.** An existing file is overwritten only when it is an
  output of the same kind (:func:`check_replaceable_file`: a game record, a report of ours,
  ...). An existing directory is replaced only when it is empty (no file, no folder, no link)
  or holds exactly what its manifest (``.shengji-output.json``) lists, each file with the size
  and SHA-256 it had when it was written, and the manifest is of the same kind (an export is
  never replaced by a report). A file added, changed or linked since, an empty folder, a
  manifest without digests: the command refuses, naming what it found.
- **Nothing is deleted by its name.** Temporaries are removed by the run that made them (on
  success, on an error, on Ctrl-C or SIGTERM). A run killed outright (SIGKILL, a power cut)
  leaves its temporary behind; no later run removes it, since a name proves nothing:
  :func:`stale_temporaries` lists them so the command line can say so.

An output that is, or contains, one of the inputs is refused too. A symbolic link given as the
output is followed: the file or directory it points to is what is written.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, BinaryIO

from gamelog.errors import GamelogIOError

MANIFEST = ".shengji-output.json"
MANIFEST_VERSION = 2
TEMP_TAG = "shengji-tmp"
BUILD_TAG = "shengji-build"
OLD_TAG = "shengji-old"
GENERATOR_MARK = b'<meta name="generator" content="shengji-toolkit'


# -- names -------------------------------------------------------------------------------------

def resolve_output(path: str | os.PathLike[str]) -> Path:
    """The path an output is written to: absolute, with symbolic links followed (``-o link``
    writes where the link points, and the link stays)."""
    return Path(os.path.realpath(os.path.abspath(path)))


def temp_name(target: Path) -> Path:
    """The temporary file written beside ``target`` before it is moved over it."""
    return target.with_name(f".{target.name}.{TEMP_TAG}-{os.getpid()}-{secrets.token_hex(4)}")


_STALE = re.compile(rf"\.(?P<name>.+)\.(?:{TEMP_TAG}|{BUILD_TAG}|{OLD_TAG})-(?P<pid>\d+)-"
                    r"[0-9A-Za-z_]+$")


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def stale_temporaries(target: str | os.PathLike[str]) -> list[Path]:
    """Temporaries beside ``target`` that look like a killed run's (by name, with their
    process gone). Only listed, never removed: the caller says so to the user."""
    out = resolve_output(target)
    try:
        entries = list(os.scandir(out.parent))
    except OSError:
        return []
    found = []
    for entry in entries:
        m = _STALE.match(entry.name)
        if m and m.group("name") == out.name and not _pid_alive(int(m.group("pid"))):
            found.append(Path(entry.path))
    return sorted(found)


def refuse_inputs(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]) -> None:
    """Raise if ``output`` is one of ``inputs``, lies inside an input directory that would be
    rewritten, or contains an input (writing it would replace the records being read)."""
    out = resolve_output(output)
    for given in inputs:
        src = resolve_output(given)
        if src == out:
            raise GamelogIOError(f"{output}: is also an input; choose another output")
        if out in src.parents:
            raise GamelogIOError(f"{output}: contains the input {given}; choose another output")


# -- files -------------------------------------------------------------------------------------

FILE_KINDS = {
    "record": "a game record (JSON Lines)",
    "parquet": "a game record (Parquet)",
    "notation": "a game record (notation text)",
    "report": "an HTML report written by shengji",
    "json": "a JSON file",
    "labels": "a labels file (JSON Lines)",
}


def file_kind(path: str | os.PathLike[str]) -> str:
    """The kind of record file a name asks for (see :data:`FILE_KINDS`)."""
    name = str(path).lower()
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith((".sjn", ".txt")):
        return "notation"
    if name.endswith((".html", ".htm")):
        return "report"
    if name.endswith(".labels.jsonl"):
        return "labels"
    return "record"


def _head(path: Path, size: int = 4096) -> bytes:
    with open(path, "rb") as f:
        head = f.read(size)
    if head[:2] == b"\x1f\x8b":  # gzip: what it holds
        try:
            with gzip.open(path, "rb") as g:
                return g.read(size)
        except (OSError, EOFError):
            return b""
    return head


def _is_kind(path: Path, kind: str) -> bool:
    """Whether an existing file is an output of ``kind`` (by its content, not its name)."""
    if path.stat().st_size == 0:
        return True
    head = _head(path)
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if kind in ("record", "labels"):
        return text.startswith(b"{")  and (b'"type":' in text[:200] or kind == "labels")
    if kind == "parquet":
        if head[:4] != b"PAR1":
            return False
        try:
            import pyarrow.parquet as pq

            meta = pq.read_schema(path).metadata or {}
        except Exception:
            return False
        return b"gamelog.version" in meta
    if kind == "notation":
        return text.startswith((b"Match ", b"Hand ", b"#"))
    if kind == "report":
        return GENERATOR_MARK in head
    if kind == "json":
        return text.startswith((b"{", b"["))
    return False


def check_replaceable_file(path: str | os.PathLike[str], kind: str | None = None) -> None:
    """Raise unless ``path`` is absent, or an existing file that is an output of ``kind``
    (default: from its name), which may be overwritten."""
    target = resolve_output(path)
    kind = kind or file_kind(target)
    if not os.path.lexists(target):
        return
    if target.is_dir():
        raise GamelogIOError(f"{path}: is a directory; give a file name (or end the name with / "
                             "where the command writes a directory)")
    try:
        ours = _is_kind(target, kind)
    except OSError as exc:
        raise GamelogIOError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not ours:
        raise GamelogIOError(f"{path}: exists and is not {FILE_KINDS.get(kind, kind)}; refusing to "
                             "overwrite it. Choose another name.")


def check_report_file(path: Path) -> None:
    """Raise unless ``path`` is absent or an HTML report this toolkit wrote."""
    check_replaceable_file(path, "report")


class atomic_output:
    """A binary file written beside ``path`` and moved over it only when the block succeeds.

    An existing ``path`` must be an output of ``kind`` (:func:`check_replaceable_file`). A
    failure to write (a full disk, say) is a :class:`GamelogIOError` naming ``path``; the
    temporary file is removed, and ``path`` is left as it was."""

    def __init__(self, path: str | os.PathLike[str], kind: str | None = None) -> None:
        self.given = path
        self.path = resolve_output(path)
        self.kind = kind or file_kind(self.path)
        self.tmp = temp_name(self.path)

    def __enter__(self) -> BinaryIO:
        check_replaceable_file(self.given, self.kind)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file: IO[bytes] = open(self.tmp, "xb")
        except OSError as exc:
            raise GamelogIOError(f"{self.given}: cannot write: {exc.strerror or exc}") from None
        return self.file  # type: ignore[return-value]

    def __exit__(self, kind, value, tb) -> None:  # type: ignore[no-untyped-def]
        try:
            self.file.close()
            if kind is None:
                check_replaceable_file(self.given, self.kind)  # nothing foreign arrived since
                os.replace(self.tmp, self.path)
        except OSError as exc:
            self.tmp.unlink(missing_ok=True)
            raise GamelogIOError(f"{self.given}: cannot write: {exc.strerror or exc}") from None
        except BaseException:
            self.tmp.unlink(missing_ok=True)
            raise
        if kind is not None:
            self.tmp.unlink(missing_ok=True)
            if issubclass(kind, OSError) and not isinstance(value, GamelogIOError):
                raise GamelogIOError(
                    f"{self.given}: cannot write: {value.strerror or value}") from None


# -- directories -------------------------------------------------------------------------------

def _digest(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _entries(directory: Path) -> tuple[dict[str, Path], set[str], set[str]]:
    """Everything below ``directory``: files by relative name, folders, and links (a link is
    never followed)."""
    files: dict[str, Path] = {}
    folders: set[str] = set()
    links: set[str] = set()
    for root, dirs, names in os.walk(directory, followlinks=False):
        base = Path(root)
        for d in dirs:
            rel = (base / d).relative_to(directory).as_posix()
            (links if (base / d).is_symlink() else folders).add(rel)
        for n in names:
            p = base / n
            rel = p.relative_to(directory).as_posix()
            if p.is_symlink() or not p.is_file():
                links.add(rel)
            else:
                files[rel] = p
    return files, folders, links


def _manifest(directory: Path) -> dict[str, object] | None:
    try:
        data = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _listed(data: dict[str, object]) -> tuple[dict[str, tuple[int, str]], set[str]] | None:
    """The files (size, digest) and folders a manifest lists, or ``None`` if it does not
    prove them (an older manifest without digests, or one not of our making)."""
    files, folders = data.get("files"), data.get("folders", [])
    if data.get("written_by") != "shengji" or data.get("version") != MANIFEST_VERSION \
            or not isinstance(files, dict) or not isinstance(folders, list):
        return None
    out: dict[str, tuple[int, str]] = {}
    for name, info in files.items():
        if not (isinstance(info, dict) and isinstance(info.get("size"), int)
                and isinstance(info.get("sha256"), str)):
            return None
        out[name] = (info["size"], info["sha256"])
    if not all(isinstance(f, str) for f in folders):
        return None
    return out, set(folders)


def _a(kind: str) -> str:
    return ("an " if kind[:1].lower() in "aeiou" else "a ") + kind


def check_replaceable(directory: Path, kind: str) -> None:
    """Raise unless ``directory`` is absent, empty, or an earlier ``kind`` of ours holding
    only what its manifest lists, unchanged (see the module's docstring)."""
    directory = resolve_output(directory)
    if not directory.exists():
        if os.path.lexists(directory):
            raise GamelogIOError(f"{directory}: is a link to nothing; refusing to replace it")
        return
    if not directory.is_dir():
        raise GamelogIOError(f"{directory}: exists and is not a directory; the {kind} needs a "
                             "directory here")
    files, folders, links = _entries(directory)
    if not files and not folders and not links:
        return
    data = _manifest(directory)
    if data is None:
        raise GamelogIOError(
            f"{directory}: the directory is not empty and was not written by shengji (no "
            f"{MANIFEST}); refusing to replace it. Choose a new or empty directory for the "
            f"{kind}.")
    listed = _listed(data)
    if listed is None:
        raise GamelogIOError(
            f"{directory}: its {MANIFEST} does not prove what the directory holds (no size and "
            "digest for each file: an older shengji's, or not ours); refusing to replace it. "
            "Remove the directory yourself if it is yours to remove.")
    if data.get("kind") != kind:
        raise GamelogIOError(
            f"{directory}: holds {_a(str(data.get('kind')))}, not {_a(kind)}; refusing to "
            f"replace it with {_a(kind)}. Choose another directory.")
    sizes, listed_folders = listed
    foreign = sorted(links) + sorted(folders - listed_folders) + \
        sorted(set(files) - set(sizes) - {MANIFEST})
    if foreign:
        raise GamelogIOError(
            f"{directory}: holds {foreign[0]!r}"
            + (f" and {len(foreign) - 1} more" if len(foreign) > 1 else "")
            + f" that the earlier {kind} did not write; refusing to replace it. Move them away "
            "or choose another directory.")
    for name, path in sorted(files.items()):
        if name == MANIFEST:
            continue
        size, digest = sizes[name]
        try:
            same = path.stat().st_size == size and _digest(path) == digest
        except OSError as exc:
            raise GamelogIOError(f"{path}: cannot read: {exc.strerror or exc}") from None
        if not same:
            raise GamelogIOError(
                f"{directory}: {name!r} has changed since the earlier {kind} wrote it; refusing "
                "to replace it. Move it away or choose another directory.")


def _write_manifest(build: Path, kind: str) -> None:
    files, folders, _ = _entries(build)
    listed = {name: {"size": p.stat().st_size, "sha256": _digest(p)}
              for name, p in sorted(files.items())}
    text = json.dumps({"written_by": "shengji", "version": MANIFEST_VERSION, "kind": kind,
                       "files": listed, "folders": sorted(folders)}, indent=1) + "\n"
    (build / MANIFEST).write_text(text, encoding="utf-8")


def _remove_listed(old: Path) -> None:
    """Remove an earlier output moved aside: its listed files, its manifest, then its folders
    if they are empty. Anything else (arrived since the check) stays where it is."""
    data = _manifest(old)
    listed = _listed(data) if data is not None else None
    names = set(listed[0]) if listed else set()
    for name in names | {MANIFEST}:
        p = old / name
        if p.is_file() and not p.is_symlink():
            p.unlink(missing_ok=True)
    for root, _dirs, _names in sorted(os.walk(old, followlinks=False), key=lambda t: -len(t[0])):
        with suppress(OSError):
            os.rmdir(root)


@contextmanager
def owned_directory(target: str | os.PathLike[str], kind: str) -> Iterator[Path]:
    """A fresh folder to build ``target`` in; on success it gets its manifest and replaces
    ``target`` whole (see the module's docstring); on failure it is removed and ``target`` is
    left as it was."""
    out = resolve_output(target)
    check_replaceable(out, kind)
    token = secrets.token_hex(4)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=f".{out.name}.{BUILD_TAG}-{os.getpid()}-{token}",
                                      dir=out.parent))
    except OSError as exc:
        raise GamelogIOError(f"{out}: cannot write: {exc.strerror or exc}") from None
    try:
        yield build
        _write_manifest(build, kind)
        os.chmod(build, 0o755)
        check_replaceable(out, kind)  # nothing foreign arrived while we built
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}.{OLD_TAG}-{os.getpid()}-{token}")
            os.replace(out, old)
        os.replace(build, out)
        if old is not None:
            _remove_listed(old)
    except OSError as exc:
        shutil.rmtree(build, ignore_errors=True)
        raise GamelogIOError(f"{out}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
