"""``family_of``'s docstring said every MRF is binary; a Potts model is 'one-hot', a ChainCRF
'chain', an RBM 'rbm' and a product model its factors' family.  Its text names the family of
every public MRF class, and its example (run by tests/front/test_doctests.py) shows them."""
import inspect
import re

import ergmfit.mrf as mrf
from ergmfit.families import family_of


def test_the_docstring_names_every_mrf_family_and_has_an_example():
    doc = family_of.__doc__
    text = " ".join(doc.split())
    assert "binary variables)" not in text        # the old claim, "MRF ...: BINARY, binary variables"
    names = {}
    for name, obj in vars(mrf).items():
        if inspect.isclass(obj) and not name.startswith("_") and hasattr(obj, "family"):
            fam = obj.__dict__.get("family", getattr(obj, "family"))
            if not isinstance(fam, property):
                names[name] = fam.name
    assert {"binary", "one-hot", "chain", "rbm"} <= set(names.values()), names
    for cls, fam in names.items():
        assert fam == "binary" or repr(fam) in doc, f"{cls}'s family {fam!r} is not in the docstring"
    assert "ProductModel" in doc and re.search(r"factors' family", text)
    assert ">>> " in doc and "'one-hot'" in doc.split("Examples")[1]
