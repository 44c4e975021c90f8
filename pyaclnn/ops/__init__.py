"""Public numpy API of every op (one module per op family) and the shared launcher."""
from ._common import launch
from .avg_pool import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .grid_sampler import *  # noqa: F401,F403
from .msda import *  # noqa: F401,F403
from .upsample import *  # noqa: F401,F403
from .table import call, scalar, table_ops  # noqa: F401
from .elementwise import *  # noqa: F401,F403
from . import avg_pool, conv, elementwise, grid_sampler, msda, upsample, table

__all__ = ["launch", "call", "scalar", "table_ops"] + elementwise.__all__ + avg_pool.__all__ + conv.__all__ + grid_sampler.__all__ + msda.__all__ + upsample.__all__
