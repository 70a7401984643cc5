"""The development server's access log without participant data (werkzeug comes with the ``collect`` extra).

Client addresses are personal data and the landing URL can carry a study
platform's participant id (``?PROLIFIC_PID=``), so neither is logged.
"""

from __future__ import annotations

from werkzeug.serving import WSGIRequestHandler


class PrivateRequestHandler(WSGIRequestHandler):
    """werkzeug's access log without client addresses or query strings."""

    def address_string(self) -> str:
        return "-"

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        path = getattr(self, "path", None)
        if path is None:  # a malformed request line: log nothing of it
            request_line = "(bad request line)"
        else:
            request_line = f"{self.command} {path.split('?', 1)[0]} {self.request_version}"
        self.log("info", '"%s" %s %s', request_line.translate(self._control_char_table), code, size)

    def log_error(self, format: str, *args: object) -> None:  # noqa: A002 (the standard library's name)
        """Errors about the request line (``Bad request version ('…?PROLIFIC_PID=…')``) without the line itself."""
        text = format % args if args else format
        head = text.split(" (", 1)[0].split(": ", 1)[0]  # "code 400, message Bad request version"
        self.log("error", "%s", head.translate(self._control_char_table))
