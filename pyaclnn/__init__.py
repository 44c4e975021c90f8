"""pyaclnn: Huawei CANN's aclnn API emulated on the CPU, driven from numpy.

The C library exports the real ``acl*``/``aclnn*`` symbols; this package loads it with cffi. The public op
functions take numpy arrays of any strides, PyTorch CPU tensors or ``__dlpack__`` objects (passed to the library
over their own memory, see :mod:`pyaclnn.tensor`) and return numpy arrays (float32, float16, float64 where the op
allows it, and bfloat16 through ``ml_dtypes``); ``out=`` is written in place. Errors are raised as
:class:`AclError` subclasses carrying the aclnn status code and the library's message. :mod:`pyaclnn.lowlevel`
drives the C ABI directly.
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
