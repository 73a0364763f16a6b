"""Dyadic covariates of two-mode networks in statnet's form: an n1 x n2 matrix, mode-1
nodes as rows and mode-2 nodes as columns (statnet refuses an n x n one: "Dyadic
covariate matrix has dimension 129x129, 100x29 expected"; ergmfit takes both).  Here they
become the n x n matrices the dyadic kernels read, with both off-diagonal blocks filled."""
from __future__ import annotations

import numpy as np

#: a two-mode n1 x n2 covariate is expanded to a dense n x n one up to this many nodes
#: (32 MB), to a sparse one beyond
DENSE_MAX_N = 2000


def is_block(net, shape) -> bool:
    """Is ``shape`` statnet's n1 x n2 covariate of the two-mode network ``net``?"""
    return net.bipartite is not None and tuple(shape) == (net.bipartite, net.n - net.bipartite)


def expected_shape(net) -> str:
    """The covariate shapes ``net`` takes, for error messages."""
    n, n1 = net.n, net.bipartite
    if n1 is None:
        return f"{n} x {n} (rows and columns in node order)"
    return (f"{n1} x {n - n1} (statnet's two-mode form: mode-1 rows, mode-2 columns), "
            f"or {n} x {n}")


def dense(net, M) -> np.ndarray:
    """The n x n matrix of an n1 x n2 covariate."""
    n1 = net.bipartite
    full = np.zeros((net.n, net.n))
    full[:n1, n1:] = M
    full[n1:, :n1] = np.transpose(M)
    return full


def sparse(net, m):
    """The n x n CSR matrix of an n1 x n2 covariate (dense or scipy sparse)."""
    import scipy.sparse as sp
    n1 = net.bipartite
    coo = sp.coo_matrix(m)
    rows = np.concatenate([coo.row, coo.col + n1]).astype(np.int64)
    cols = np.concatenate([coo.col + n1, coo.row]).astype(np.int64)
    return sp.csr_matrix((np.concatenate([coo.data, coo.data]), (rows, cols)),
                         shape=(net.n, net.n))
