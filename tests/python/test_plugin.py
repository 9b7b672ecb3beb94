"""The pytest plugin, run as a user runs it (an inner pytest in its own
process): one item per case named by its id, a failing item showing the
judge's diagnosis and the repro line, a refusal skipped with its reason,
--junitxml, -k, and --iohw-isolate surviving a segfaulting function."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

from conftest import TOP

TEST = '''
import os, signal
import iohw.pytest, numpy_conv_transpose as ref

@iohw.pytest.cases(%(path)r, filter="dt=f32,rank=2")
def test_good(case):
    case.check(case.expected)

@iohw.pytest.cases(%(path)r, filter="dt=f32")
def test_flipped(case):
    if case.direction != "fwd":
        raise iohw.Unsupported("forward only here")
    case.check(ref.conv_transpose(case.x, case.w, case.bias,
                                  flip_kernel=True, **case.attrs))

@iohw.pytest.cases(%(path)r, filter="dt=f64")
def test_swapped(case):
    case.check(ref.conv_transpose(case.x, case.w, case.bias,
                                  swap_io=True, **case.attrs))
'''


def inner(tmp_path, casefile, *args):
    (tmp_path / "test_inner.py").write_text(TEST % {"path": casefile})
    env = dict(os.environ)
    env["IOHW_ISOLATE_TIMEOUT"] = "300"   # a loaded machine is no failure
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(TOP, "python"), os.path.join(TOP, "examples", "python")])
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                        "-p", "iohw.pytest_plugin", "-rs", "-v"] + list(args)
                       + [str(tmp_path / "test_inner.py")],
                       cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def test_items_ids_failures_skips(tmp_path, casefile):
    rc, out = inner(tmp_path, casefile, "-k", "good or flipped",
                    "--junitxml", str(tmp_path / "j.xml"))
    assert rc == 1, out
    assert "test_good[problem.0] PASSED" in out
    assert "test_good[problem.3] PASSED" in out
    assert "test_flipped[problem.0] FAILED" in out
    assert "test_flipped[problem.1] FAILED" in out
    assert "test_flipped[problem.3] SKIPPED" in out
    assert "forward only here" in out
    assert "diagnosis: matches the oracle with kernel flipped" in out
    assert "__REPRO: iohw run --backend LIB" in out
    suite = ET.parse(str(tmp_path / "j.xml")).getroot().iter("testcase")
    names = sorted(t.get("name") for t in suite)
    assert names == ["test_flipped[problem.0]", "test_flipped[problem.1]",
                     "test_flipped[problem.3]", "test_good[problem.0]",
                     "test_good[problem.3]"]


def test_exitfirst(tmp_path, casefile):
    rc, out = inner(tmp_path, casefile, "-x", "-k", "flipped")
    assert rc == 1
    assert "test_flipped[problem.0] FAILED" in out
    assert "test_flipped[problem.1]" not in out


def test_isolation_same_verdicts(tmp_path, casefile):
    # In isolation the function runs in an exec program; its case.check
    # hands y over.  The flipped kernel fails there with the same diagnosis.
    rc, out = inner(tmp_path, casefile, "--iohw-isolate", "-k",
                    "flipped and (problem.0 or problem.3)")
    assert rc == 1, out
    assert "test_flipped[problem.0] FAILED" in out
    assert "test_flipped[problem.3] SKIPPED" in out
    assert "diagnosis: matches the oracle with kernel flipped" in out
    assert "forward only here" in out


CRASH = '''
import os, signal
import iohw.pytest

@iohw.pytest.cases(%(path)r, filter="dt=f64")
def test_segv(case):
    os.kill(os.getpid(), signal.SIGSEGV)
'''


def test_isolated_crash_is_the_items_failure(tmp_path, casefile):
    (tmp_path / "test_segv.py").write_text(CRASH % {"path": casefile})
    env = dict(os.environ)
    env["IOHW_ISOLATE_TIMEOUT"] = "300"
    env["PYTHONPATH"] = os.path.join(TOP, "python")
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                        "-p", "iohw.pytest_plugin", "-v", "--iohw-isolate",
                        str(tmp_path / "test_segv.py")], cwd=str(tmp_path),
                       env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    assert p.returncode == 1, p.stdout
    assert "test_segv[problem.2] FAILED" in p.stdout
    assert "ERROR problem.2" in p.stdout or "CRASH problem.2" in p.stdout
    assert "1 failed" in p.stdout


def test_xdist(tmp_path, casefile):
    # pytest-xdist (Debian's python3-pytest-xdist): every worker collects
    # the same items, so -n distributes them.
    import pytest
    pytest.importorskip("xdist")
    rc, out = inner(tmp_path, casefile, "-n", "2", "-k", "flipped")
    assert rc == 1, out
    assert "2 failed, 1 skipped" in out
    assert "kernel flipped" in out


def test_io_exchange_through_the_plugin(tmp_path, casefile):
    rc, out = inner(tmp_path, casefile, "-k", "swapped")
    assert rc == 1, out
    assert "test_swapped[problem.2] FAILED" in out
    assert "diagnosis: matches the oracle with weight I and O exchanged" in out
