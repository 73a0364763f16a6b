"""Print where ergmfit is installed, its size and the versions CI runs with (used by .ci/run).

Fails when ``ergmfit`` would be imported from the source tree instead of the installed package.
"""
import importlib.metadata as md
import os
import platform
import subprocess
import sys

RUNTIME = ["numpy", "scipy", "networkx", "joblib", "tqdm", "pandas", "matplotlib", "pytest",
           "pytest-xdist", "hypothesis", "distributed", "dask", "arviz", "pip"]


def tree_size(path):
    """Bytes of the files under ``path`` (what ``du --apparent-size`` counts)."""
    return sum(os.path.getsize(os.path.join(root, f))
               for root, _, files in os.walk(path) for f in files)


def version(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "not installed"


def main():
    sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
    import ergmfit
    package = os.path.dirname(os.path.realpath(ergmfit.__file__))
    if package == os.path.realpath("ergmfit"):
        sys.exit(f"ergmfit imports from the source tree ({package}), not the installed wheel")
    du = subprocess.run(["du", "-sh", package], capture_output=True, text=True).stdout.split()
    du_k = subprocess.run(["du", "-sk", package], capture_output=True, text=True).stdout.split()
    size = tree_size(package)
    allocated = f"{int(du_k[0]) * 1024 / 1e6:.2f} MB" if du_k else "?"
    print(f"installed: ergmfit {version('ergmfit')} in {package}: "
          f"{size:,} bytes of files = {size / 1e6:.2f} MB ({size / 2**20:.2f} MiB); "
          f"du -s {allocated}, du -sh {du[0] if du else '?'}")
    print(f"Python {platform.python_version()} on {platform.platform()}")
    print("ran with: " + ", ".join(f"{name} {version(name)}" for name in RUNTIME))


if __name__ == "__main__":
    main()
