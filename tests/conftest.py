import json
import pathlib

import pytest

REFERENCE = pathlib.Path(__file__).parent / "reference"


def load_reference(name):
    with open(REFERENCE / name, encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture(scope="session")
def statnet_stats():
    return load_reference("statnet_stats.json")["evaluations"]


@pytest.fixture(scope="session")
def statnet_fits():
    return load_reference("statnet_fits.json")["fits"]
