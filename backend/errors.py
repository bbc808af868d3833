"""One catalogue of the errors users can see, each naming what happened and the next step.

Pages catch `StudioError` and show `str(error)`; nothing below it should reach a user as a
traceback.
"""

from __future__ import annotations


class StudioError(Exception):
    """Base for every error the app explains to a user."""

    code = "E000"

    def __init__(self, what: str, fix: str = "") -> None:
        self.what = what
        self.fix = fix
        super().__init__(self.__str__())

    def __str__(self) -> str:
        text = f"[{self.code}] {self.what}"
        return f"{text} {self.fix}" if self.fix else text


class ConfigError(StudioError):
    """A setting is missing, malformed or contradicts another."""

    code = "E100"


class ServerUnreachableError(StudioError):
    """A model or store server did not answer in time or refused the connection."""

    code = "E200"


class ModelNotFoundError(StudioError):
    """The server answered but does not have the named model."""

    code = "E201"


class LLMRequestError(StudioError):
    """The server answered with an error or an empty reply after all retries."""

    code = "E202"


class BadDocumentError(StudioError):
    """An uploaded file cannot be turned into text (corrupt, encrypted, empty, image-only...)."""

    code = "E300"


class StoreMismatchError(StudioError):
    """The index was built with another embedder or chunking than the current settings."""

    code = "E400"


class MalformedOutputError(StudioError):
    """A model reply could not be parsed into the structure a stage needs."""

    code = "E500"
