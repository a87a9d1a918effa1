"""Method parameters as Telegram reads them: query string, form, multipart or JSON body.

python-telegram-bot sends ``application/x-www-form-urlencoded`` (multipart with files) where
numbers are decimal strings, booleans ``true``/``false`` and objects JSON-encoded strings.
Telegram also accepts a JSON body with native values; both are handled here.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from .errors import ApiError, bad_request

JSONDict = dict[str, Any]


async def read_params(request: web.Request) -> dict[str, Any]:
    """Collect the parameters of a Bot API request; uploaded files become ``bytes``."""
    params: dict[str, Any] = dict(request.query)
    if request.method != "POST" or not request.body_exists:
        return params
    if request.content_type == "application/json":
        try:
            body = await request.json()
        except ValueError as exc:
            raise bad_request("can't parse JSON encoded request") from exc
        if isinstance(body, dict):
            params.update(body)
        return params
    form = await request.post()
    for key, value in form.items():
        if isinstance(value, web.FileField):
            with value.file:  # large uploads are spooled to a temporary file: close it
                params[key] = value.file.read()
        else:
            params[key] = value if isinstance(value, str) else bytes(value)
    return params


class Params:
    """Typed access to the parameters of one call, raising Telegram's 400 errors."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def __contains__(self, name: str) -> bool:
        return name in self.raw and self.raw[name] is not None

    def text(self, name: str, default: str | None = None) -> str | None:
        """The parameter as text, or ``default`` when absent."""
        value = self.raw.get(name)
        if value is None:
            return default
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value if isinstance(value, str) else json.dumps(value)

    def required_str(self, name: str, missing: str | None = None) -> str:
        """The parameter as text; absent or empty gives ``missing`` (a 400 description)."""
        value = self.text(name)
        if not value:
            raise bad_request(missing or f'parameter "{name}" is required')
        return value

    def integer(self, name: str, default: int | None = None) -> int | None:
        """The parameter as an integer, or ``default`` when absent."""
        value = self.raw.get(name)
        if value is None or value == "":
            return default
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return value
        try:
            return int(str(value).strip())
        except ValueError as exc:
            raise bad_request(f'field "{name}" must be of type Integer') from exc

    def number(self, name: str, default: float | None = None) -> float | None:
        """The parameter as a number, or ``default`` when absent."""
        value = self.raw.get(name)
        if value is None or value == "":
            return default
        try:
            return float(value)
        except (TypeError, ValueError) as exc:
            raise bad_request(f'field "{name}" must be a Number') from exc

    def flag(self, name: str, default: bool = False) -> bool:
        """The parameter as a boolean (``true``/``false``/``1``/``0``)."""
        value = self.raw.get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        return str(value).strip().lower() in ("true", "1")

    def decoded(self, name: str, what: str = "JSON object") -> Any:
        """The parameter decoded from JSON (or as given in a JSON body); None when absent."""
        value = self.raw.get(name)
        if value is None or value == "":
            return None
        if isinstance(value, (dict, list)):
            return value
        try:
            return json.loads(value)
        except (TypeError, ValueError) as exc:
            raise bad_request(f"can't parse {what}") from exc

    def chat_id(self, name: str = "chat_id") -> int | str:
        """The chat id: an integer, or an ``@username`` string."""
        value = self.raw.get(name)
        if value is None or value == "":
            raise bad_request(f"{name} is empty")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        text = str(value).strip()
        if text.startswith("@"):
            return text
        try:
            return int(text)
        except ValueError as exc:
            raise ApiError(400, "Bad Request: chat not found") from exc
