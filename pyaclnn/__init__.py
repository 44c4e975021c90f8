"""pyaclnn: Huawei CANN's aclnn API emulated on the CPU, driven from numpy.

The C library exports the real ``acl*``/``aclnn*`` symbols; this package loads it with cffi. The public
functions take and return numpy arrays (float32, float16, and bfloat16 through ``ml_dtypes``); errors are
raised as :class:`AclError` subclasses carrying the aclnn status code and the library's message.
"""
__version__ = "0.1.0"

from ._ffi import ffi, lib, library_path  # noqa: F401
from .errors import (AclError, AclnnInnerError, AclnnNullptrError, AclnnParamError,  # noqa: F401
                     AclRuntimeError, check, recent_error_message)
from .runtime import Stream, ensure_device, get_deterministic, set_deterministic, soc_name  # noqa: F401
from .tensor import AclTensor, DeviceBuffer, bfloat16, bool_array, int_array  # noqa: F401
from .ops import *  # noqa: F401,F403
from .ops import launch  # noqa: F401
from . import lowlevel  # noqa: F401,E402
