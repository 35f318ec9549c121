"""Where the training-only data sets come from (``negkit finetune``'s SICK and CANNOT sources): one
:class:`negkit.kit.suites.DataSource` each, its files declared with URLs at pinned commits, hashes and sizes
(``negkit data get sick``). Never test data."""

from __future__ import annotations

from pathlib import Path

from negkit.kit.data.declared import declared_files
from negkit.kit.data.source import DataSource

_HERE = Path(__file__).parent

#: The training data sets by name (the names of ``negkit data get``).
TRAINING_SOURCES: dict[str, DataSource] = {
    "sick": DataSource(
        "training/sick",
        "github praguna/sick_dataset SICK.txt into DATA/training/sick/",
        licence="CC BY-NC-SA 3.0 (SICK; non-commercial); the copying repository states none",
        files=declared_files(_HERE / "sick_files.json"),
        citation="marelli2014",
    ),
    "cannot-wikifactcheck": DataSource(
        "training/cannot-wikifactcheck",
        "github dmlls/cannot-dataset, the WikiFactCheck, GLUE diagnostic and sentiment source pairs",
        licence="CC BY-SA 4.0 (CANNOT); the sources keep their own terms",
        files=declared_files(_HERE / "cannot_files.json"),
        citation="anschutz2023",
    ),
}
