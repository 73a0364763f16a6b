"""Networks: the Python view (:class:`Network`), the compiled state and file I/O."""
from .network import Network
from ._state import NetworkState
from .io import as_network, load_any, read_estimnet_attributes, read_network
from ._matrix import is_matrix, valued_adjacency

__all__ = ["Network", "NetworkState", "as_network", "load_any", "read_network",
           "is_matrix", "valued_adjacency",
           "read_estimnet_attributes"]
