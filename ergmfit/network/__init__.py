"""Networks: the Python view (:class:`Network`), the compiled state and file I/O."""
from .network import Network
from .networks import Layer, Layers, Networks
from ._state import NetworkState
from .io import as_network, load_any, read_estimnet_attributes, read_network
from ._matrix import is_matrix, valued_adjacency
from .memory import cache_budget, cache_memory, set_cache_memory

__all__ = ["Network", "Networks", "Layer", "Layers", "NetworkState", "as_network", "load_any",
           "read_network", "is_matrix", "valued_adjacency",
           "read_estimnet_attributes", "cache_memory", "set_cache_memory", "cache_budget"]
