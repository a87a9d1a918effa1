"""Bot API errors as the fake server answers them.

Descriptions are the ones Telegram sends (``"Bad Request: ..."``, ``"Forbidden: ..."``), so
that python-telegram-bot maps them to the same exceptions as in production
(``BadRequest``, ``Forbidden``, ``RetryAfter``, ``ChatMigrated``, ``InvalidToken``).
"""

from __future__ import annotations

from typing import Any

JSONDict = dict[str, Any]

# Exact descriptions used by Telegram.
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
BLOCKED_BY_USER = "Forbidden: bot was blocked by the user"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
MESSAGE_TO_EDIT_NOT_FOUND = "Bad Request: message to edit not found"
MESSAGE_TO_DELETE_NOT_FOUND = "Bad Request: message to delete not found"
MESSAGE_CANT_BE_EDITED = "Bad Request: message can't be edited"
MESSAGE_CANT_BE_DELETED = "Bad Request: message can't be deleted"
MESSAGE_CANT_BE_DELETED_FOR_EVERYONE = "Bad Request: message can't be deleted for everyone"
REPLIED_NOT_FOUND = "Bad Request: message to be replied not found"
CHAT_NOT_FOUND = "Bad Request: chat not found"
USER_NOT_FOUND = "Bad Request: user not found"
CHAT_UPGRADED = "Bad Request: group chat was upgraded to a supergroup chat"
BUTTON_DATA_INVALID = "Bad Request: BUTTON_DATA_INVALID"
BUTTON_URL_INVALID = "Bad Request: BUTTON_URL_INVALID"
TEXT_BUTTONS_UNALLOWED = (
    "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline "
    "keyboard"
)
BUTTON_STYLE_INVALID = (
    "Bad Request: can't parse inline keyboard button: Invalid button style specified"
)
DISABLED_NOT_OBJECT = (
    'Bad Request: can\'t parse inline keyboard button: Field "disabled" must be of type Object'
)
BUTTON_TYPE_INVALID = "Bad Request: BUTTON_TYPE_INVALID"
REPLY_MARKUP_TOO_LONG = "Bad Request: reply markup is too long"
MESSAGE_TOO_LONG = "Bad Request: message is too long"
CAPTION_TOO_LONG = "Bad Request: message caption is too long"
PHOTO_TOO_BIG = "Bad Request: PHOTO_SAVE_FILE_INVALID"
PHOTO_INVALID_DIMENSIONS = "Bad Request: PHOTO_INVALID_DIMENSIONS"
IMAGE_PROCESS_FAILED = "Bad Request: IMAGE_PROCESS_FAILED"
TEXT_EMPTY = "Bad Request: message text is empty"
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
ALERT_TOO_LONG = "Bad Request: MESSAGE_TOO_LONG"
BOT_COMMAND_INVALID = "Bad Request: BOT_COMMAND_INVALID"
BOT_COMMAND_DESCRIPTION_INVALID = "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID"
NO_ADMINS_IN_PRIVATE = "Bad Request: there are no administrators in the private chat"
WEBHOOK_ACTIVE = (
    "Conflict: can't use getUpdates method while webhook is active; "
    "use deleteWebhook to delete the webhook first"
)


class ApiError(Exception):
    """An error answer of the Bot API: HTTP status, description and optional parameters.

    Raised by method handlers; the server turns it into
    ``{"ok": false, "error_code": status, "description": ..., "parameters": ...}``.
    """

    def __init__(self, status: int, description: str, parameters: JSONDict | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters

    def to_json(self) -> JSONDict:
        """Return the JSON body Telegram sends for this error."""
        body: JSONDict = {
            "ok": False,
            "error_code": self.status,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(description: str) -> ApiError:
    """Return a 400 error; ``description`` gets the ``Bad Request:`` prefix if it lacks one."""
    if not description.startswith("Bad Request: "):
        description = f"Bad Request: {description}"
    return ApiError(400, description)


def forbidden(description: str) -> ApiError:
    """Return a 403 error with the given (full) description."""
    return ApiError(403, description)


def too_many_requests(retry_after: int) -> ApiError:
    """Return the 429 flood-control error with ``parameters.retry_after``."""
    return ApiError(
        429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
    )


def chat_migrated(new_chat_id: int) -> ApiError:
    """Return the 400 error for a basic group that became a supergroup."""
    return ApiError(400, CHAT_UPGRADED, {"migrate_to_chat_id": new_chat_id})


def not_found() -> ApiError:
    """Return the 404 answer Telegram gives for an unknown method."""
    return ApiError(404, "Not Found")


def unauthorized() -> ApiError:
    """Return the 401 answer Telegram gives for a wrong token."""
    return ApiError(401, "Unauthorized")


def parse_entities_error(detail: str) -> ApiError:
    """Return the 400 error for text that Telegram's HTML parser refuses."""
    return ApiError(400, f"Bad Request: can't parse entities: {detail}")
