"""The array types the package's annotations name: one home below every layer that uses them."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

#: An array of floats (coordinates and lengths in metres, times in seconds, years, weights).
Floats = NDArray[np.float64]
#: An array of indices (nodes, edges, agents, cities).
Ints = NDArray[np.intp]
#: An array of flags (one per agent, edge or city).
Bools = NDArray[np.bool_]
