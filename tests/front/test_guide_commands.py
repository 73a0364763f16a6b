"""The guide's shell commands for the Pokec runs are a user's: run from the repository root in
the README's environment, with relative paths, not this machine's (``/work/...``, a copy of the
code on ``PYTHONPATH``, ``/path/to/ergmfit``), and every argument they give is one the script's
own parser accepts."""
import argparse
import re
import shlex

import pytest

from support.paths import ROOT, load_script

GUIDE = ROOT / "docs" / "guide" / "large_networks.md"
STOP = {">>", ">", "2>&1", "<", "&", "&&", ";", "|"}


def _commands():
    text = GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```(?:text|bash|sh)\n(.*?)^```", text, flags=re.S | re.M)
    lines = [ln for b in blocks for ln in b.replace("\\\n", " ").splitlines()]
    return [ln for ln in lines if "benchmarks/" in ln and not ln.lstrip().startswith("#")]


class _Parsed(Exception):
    pass


def test_the_commands_name_no_machine_paths():
    commands = _commands()
    assert len(commands) >= 3
    for line in commands:
        assert not re.search(r"/work/|/path/to|PYTHONPATH|venv/bin", line), line


@pytest.mark.parametrize("line", _commands())
def test_the_scripts_accept_the_arguments(line, monkeypatch):
    words = shlex.split(line)
    k = words.index("python")
    script, args = words[k + 1], []
    for w in words[k + 2:]:
        if w in STOP:
            break
        args.append(w)
    assert not script.startswith("/") and (ROOT / script).is_file(), script
    module = load_script(ROOT / script)
    real = argparse.ArgumentParser.parse_args

    def parse(self, argv=None, namespace=None):
        real(self, args, namespace)             # SystemExit(2) on an argument it does not take
        raise _Parsed
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse)
    with pytest.raises(_Parsed):
        module.main()
