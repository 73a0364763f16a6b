"""Short Equilibrium Expectation runs for the tests."""
import warnings

from ergmfit.estimation.ee.estimator import EE
from ergmfit.exceptions import ConvergenceWarning

#: settings of a short EE run (a few hundred proposals per step)
SHORT = dict(ee_steps=10, ee_inner_steps=20, sampler_steps=300, s_steps=20, se_samplesize=100)


def quiet_fit(model, **kw):
    """An EE fit with its ConvergenceWarnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return EE(**kw).fit(model)
