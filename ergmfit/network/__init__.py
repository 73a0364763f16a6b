"""Networks: the Python view (:class:`Network`), the compiled state and file I/O."""
from .network import Network
from .networks import Layer, Layers, Networks
from ._state import NetworkState
from .io import as_network, load_any, read_estimnet_attributes, read_network

__all__ = ["Network", "Networks", "Layer", "Layers", "NetworkState", "as_network", "load_any", "read_network",
           "read_estimnet_attributes"]
