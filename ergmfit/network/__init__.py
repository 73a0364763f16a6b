"""Networks: the Python view (:class:`Network`), the compiled state and file I/O."""
from .network import Network, as_network
from ._state import NetworkState

__all__ = ["Network", "NetworkState", "as_network"]
