"""Episode logs: typed records (one per kind), append-only JSON Lines while running, Parquet for analysis."""

from huesenv.logs.answers import import_answers
from huesenv.logs.io import (
    LogWriter,
    ReadResult,
    check_appendable,
    frame_to_records,
    load_logs,
    read_parquet,
    read_records,
    record_to_json,
    records_to_frame,
    write_parquet,
)
from huesenv.logs.schema import (
    EXTRA_FIELDS,
    READABLE_VERSIONS,
    RECORD_KINDS,
    SCHEMA_VERSION,
    GameStep,
    LogError,
    LogRecord,
    ProbeTrialRecord,
    WordQuery,
    upgrade_v1,
    validate_record,
)
from huesenv.logs.units import LogState, cue_text, read_log_state, tag_unit

__all__ = [
    "EXTRA_FIELDS",
    "GameStep",
    "LogError",
    "LogRecord",
    "LogState",
    "LogWriter",
    "ProbeTrialRecord",
    "READABLE_VERSIONS",
    "RECORD_KINDS",
    "ReadResult",
    "SCHEMA_VERSION",
    "WordQuery",
    "check_appendable",
    "cue_text",
    "frame_to_records",
    "import_answers",
    "load_logs",
    "read_log_state",
    "read_parquet",
    "read_records",
    "record_to_json",
    "records_to_frame",
    "tag_unit",
    "upgrade_v1",
    "validate_record",
    "write_parquet",
]
