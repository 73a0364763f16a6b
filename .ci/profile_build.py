"""Per-module build profile: Cython and gcc CPU seconds, C lines and module size.

Run from the repository root (a copy is made, the sources there are not touched)::

    python .ci/profile_build.py [--directive NAME=VALUE ...] [--macro NAME=VALUE ...]
                                [--cflags "-O1 ..."] [--only MODULE ...] [--keep DIR]

Every extension of ``setup.py`` (with the directives, macros and flags given on top of
``setup.py``'s) is translated by Cython, one after another in this process (the first
module's figure includes Cython's warm-up), then compiled by gcc with the flags
``setup.py`` gives it, one at a time (CPU seconds of the gcc child, user + system), and
linked. Prints one row per module and the totals. Used for docs/build.md.
"""
import argparse
import glob
import os
import resource
import runpy
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time


def load_setup(root):
    """setup.py's module namespace, without running setup()."""
    import setuptools
    real = setuptools.setup
    setuptools.setup = lambda **kw: None
    try:
        cwd = os.getcwd()
        os.chdir(root)
        return runpy.run_path(os.path.join(root, "setup.py"))
    finally:
        os.chdir(cwd)
        setuptools.setup = real


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--directive", action="append", default=[])
    ap.add_argument("--macro", action="append", default=[])
    ap.add_argument("--cflags", default="", help="extra gcc flags, appended to every module's")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--keep", default=None, help="build in this directory (kept)")
    ap.add_argument("--no-gcc", action="store_true")
    ap.add_argument("--no-glue", action="store_true", help="do not mark the glue functions -O1")
    ap.add_argument("--glue-level", default=None,
                    help="the glue's level instead of setup.py's GLUE_LEVEL (O1, Os, O0)")
    args = ap.parse_args()

    src = os.getcwd()
    work = args.keep or tempfile.mkdtemp(prefix="ergmprof_")
    if os.path.exists(os.path.join(work, "ergmfit")):
        shutil.rmtree(os.path.join(work, "ergmfit"))
    shutil.copytree(os.path.join(src, "ergmfit"), os.path.join(work, "ergmfit"),
                    ignore=shutil.ignore_patterns("*.c", "*.so", "__pycache__", "*.html"))
    shutil.copy(os.path.join(src, "setup.py"), work)
    # rendered templates must be re-rendered from the .tp
    for tp in glob.glob(os.path.join(work, "ergmfit", "**", "*.tp"), recursive=True):
        target = tp[:-3]
        if os.path.exists(target):
            os.remove(target)
    os.chdir(work)
    ns = load_setup(work)
    for d in args.directive:
        k, v = d.split("=", 1)
        ns["CYTHON_DIRECTIVES"][k] = {"True": True, "False": False}.get(v, v)
    ns["render_templates"]()
    exts = ns["extensions"]()
    extra_macros = [tuple(m.split("=", 1)) for m in args.macro]
    for ext in exts:
        ext.define_macros += extra_macros
        ext.extra_compile_args += args.cflags.split()
    if args.only:
        keep = set(args.only) | {ns["SHARED_UTILITY_MODULE"]}
        exts = [e for e in exts if e.name in keep]

    import numpy as np
    from Cython.Build import cythonize
    rows = {}
    for ext in exts:
        if ext.name == ns["SHARED_UTILITY_MODULE"]:
            continue
        ext.include_dirs.append(np.get_include())
        t0 = time.process_time()
        cythonize([ext], language_level=3, nthreads=0, quiet=True, force=True,
                  shared_utility_qualified_name=ns["SHARED_UTILITY_MODULE"],
                  compiler_directives=ns["CYTHON_DIRECTIVES"])
        rows[ext.name] = {"cython": time.process_time() - t0}
    util = [e for e in exts if e.name == ns["SHARED_UTILITY_MODULE"]]
    t0 = time.process_time()
    # the shared utility module is generated when cythonize() sees it among the extensions
    cythonize(util, language_level=3, nthreads=0, quiet=True, force=True,
              shared_utility_qualified_name=ns["SHARED_UTILITY_MODULE"],
              compiler_directives=ns["CYTHON_DIRECTIVES"])
    rows[ns["SHARED_UTILITY_MODULE"]] = {"cython": time.process_time() - t0}

    cc = sysconfig.get_config_var("CC").split()
    cflags = sysconfig.get_config_var("CFLAGS").split()
    ccshared = sysconfig.get_config_var("CCSHARED").split()
    ldshared = sysconfig.get_config_var("LDSHARED").split()
    inc = ["-I" + sysconfig.get_paths()["include"], "-I" + np.get_include()]
    for ext in exts:
        c = ext.name.replace(".", os.sep) + ".c"
        r = rows[ext.name]
        if "mark_glue_file" in ns and not args.no_glue:
            ns["mark_glue_file"](c)
            if args.glue_level:
                with open(c, encoding="utf-8") as f:
                    level = ns.get("GLUE_LEVEL", "O1")      # setup.py's, replaced
                    text = f.read().replace(f'optimize ("{level}")',
                                            f'optimize ("{args.glue_level}")')
                with open(c, "w", encoding="utf-8") as f:
                    f.write(text)
        with open(c, encoding="utf-8") as f:
            r["lines"] = sum(1 for _ in f)
        if args.no_gcc:
            continue
        o = c[:-2] + ".o"
        so = c[:-2] + sysconfig.get_config_var("EXT_SUFFIX")
        macros = ["-D%s=%s" % m if m[1] is not None else "-D" + m[0] for m in ext.define_macros]
        cmd = cc + cflags + ccshared + inc + macros + ["-c", c, "-o", o] + ext.extra_compile_args
        t0 = child_cpu()
        subprocess.run(cmd, check=True)
        r["gcc"] = child_cpu() - t0
        r["flags"] = " ".join(a for a in ext.extra_compile_args if a.startswith("-O"))
        t0 = child_cpu()
        subprocess.run(ldshared + [o, "-o", so] + ext.extra_link_args, check=True)
        r["link"] = child_cpu() - t0
        r["so"] = os.path.getsize(so)
    tot = {"lines": 0, "cython": 0.0, "gcc": 0.0, "link": 0.0, "so": 0}
    print(f"{'module':40s} {'C lines':>8s} {'Cython':>7s} {'gcc':>7s} {'flags':>6s} {'.so B':>9s}")
    for name, r in sorted(rows.items(), key=lambda kv: -kv[1].get("gcc", kv[1]["lines"])):
        print(f"{name:40s} {r['lines']:8d} {r['cython']:7.2f} {r.get('gcc', 0):7.2f} "
              f"{r.get('flags', ''):>6s} {r.get('so', 0):9d}")
        for k in tot:
            tot[k] += r.get(k, 0)
    print(f"{'total (' + str(len(rows)) + ' modules)':40s} {tot['lines']:8d} {tot['cython']:7.2f} "
          f"{tot['gcc']:7.2f} {'':6s} {tot['so']:9d}   links {tot['link']:.2f}")
    print("load average:", " ".join(f"{x:.1f}" for x in os.getloadavg()), " dir:", work)
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())
