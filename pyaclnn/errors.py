"""Exceptions carrying the ACL / aclnn status code and the library's own message (aclGetRecentErrMsg)."""
from ._ffi import ffi, lib

__all__ = ["AclError", "AclnnNullptrError", "AclnnParamError", "AclnnInnerError", "AclRuntimeError", "check",
           "recent_error_message"]


class AclError(Exception):
    """Base class; raised directly only for codes without a more specific class."""

    def __init__(self, code, api, message=None):
        self.code = int(code)
        self.api = api
        self.message = message or ""
        text = f"{api} failed with status {self.code}"
        if self.message:
            text += f": {self.message}"
        super().__init__(text)


class AclnnNullptrError(AclError, ValueError):
    """161001 ACLNN_ERR_PARAM_NULLPTR: a required argument was NULL."""


class AclnnParamError(AclError, ValueError):
    """161002 ACLNN_ERR_PARAM_INVALID: an argument's dtype, shape, format or value is not accepted."""


class AclnnInnerError(AclError, RuntimeError):
    """361xxx / 561xxx: runtime or internal errors of the aclnn framework."""


class AclRuntimeError(AclError, RuntimeError):
    """ACL runtime errors (1xxxxx, 2xxxxx, 5xxxxx)."""


def _exc_for(code):
    if code == lib.ACLNN_ERR_PARAM_NULLPTR:
        return AclnnNullptrError
    if code == lib.ACLNN_ERR_PARAM_INVALID:
        return AclnnParamError
    if 361000 <= code < 362000 or 561000 <= code < 562000:
        return AclnnInnerError
    if 100000 <= code < 600000:
        return AclRuntimeError
    return AclError


def recent_error_message():
    """aclGetRecentErrMsg() as a str ('' when nothing was reported); reading it clears it."""
    p = lib.aclGetRecentErrMsg()
    return "" if p == ffi.NULL else ffi.string(p).decode("utf-8", "replace")


def check(status, api):
    """Raise the exception for a non-zero status, with the library's message attached."""
    if status != 0:
        raise _exc_for(status)(status, api, recent_error_message())
    return status
