"""Episode logs: one record schema, append-only JSON Lines while running, Parquet for analysis."""

from huesenv.logs.answers import import_answers
from huesenv.logs.io import (
    LogWriter,
    ReadResult,
    frame_to_records,
    load_logs,
    read_parquet,
    read_records,
    record_to_json,
    records_to_frame,
    validate_record,
    write_parquet,
)
from huesenv.logs.schema import RECORD_KINDS, SCHEMA_VERSION, LogRecord

__all__ = [
    "LogRecord",
    "LogWriter",
    "RECORD_KINDS",
    "ReadResult",
    "SCHEMA_VERSION",
    "frame_to_records",
    "import_answers",
    "load_logs",
    "read_parquet",
    "read_records",
    "record_to_json",
    "records_to_frame",
    "validate_record",
    "write_parquet",
]
