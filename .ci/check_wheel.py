"""Check a built ergmfit wheel (used by .ci/run): no sources (nor .pxd headers) in it, every
extension compiled.

Usage: python .ci/check_wheel.py dist/ergmfit-*.whl   (from the repository root)
"""
import glob
import os
import sys
import zipfile


def main(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    sources = [n for n in names if n.endswith((".c", ".cpp", ".pyx", ".pxd", ".pxi", ".tp"))]
    if sources:
        sys.exit(f"the wheel holds sources it should not: {sources}")
    n_pyx = len(glob.glob(os.path.join("ergmfit", "**", "*.pyx"), recursive=True))
    n_compiled = sum(n.endswith((".so", ".pyd")) for n in names)
    if n_compiled != n_pyx + 1:  # + the shared utility module ergmfit._cyutility
        sys.exit(f"the wheel has {n_compiled} compiled modules, expected {n_pyx} + 1")
    print(f"wheel: {wheel}, {os.path.getsize(wheel) / 1024:.0f} kB, {n_compiled} compiled modules")


if __name__ == "__main__":
    main(sys.argv[1])
