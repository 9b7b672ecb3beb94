"""iohw.serve: a Python function as an exec-protocol program under
`iohw run` (libiohw_exec.so): the numpy reference passes, the same with the
kernel read in reverse fails with the judge's "kernel flipped", a refusal
is UNSUPPORTED with its reason, an exception is an ERROR naming it."""
import json
import os
import subprocess
import sys

import iohw
from conftest import TOP

PROGRAM = '''
import os
import iohw, numpy_conv_transpose as ref

def conv(case):
    if case.direction != "fwd" or case.quant is not None:
        raise iohw.Unsupported("float forward only")
    if case.dtype == "f64" and os.environ.get("SERVE_TEST_RAISE"):
        raise ValueError("no f64 today")
    return ref.conv_transpose(case.x, case.w, case.bias,
                              flip_kernel=bool(os.environ.get("SERVE_TEST_FLIP")),
                              swap_io=bool(os.environ.get("SERVE_TEST_SWAP")),
                              **case.attrs)

iohw.serve(conv, describe={"name": "numpy-ref", "version": "1"})
'''


def run(tmp_path, casefile, protocol, **env_extra):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    from iohw.isolate import exec_backend
    env = dict(os.environ)
    env.update(env_extra)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(TOP, "python"), os.path.join(TOP, "examples", "python")])
    env["IOHW_EXEC_COMMAND"] = "%s %s" % (sys.executable, prog)
    env["IOHW_EXEC_PROTOCOL"] = protocol
    report = str(tmp_path / "r.json")
    p = subprocess.run([iohw.find_program(), "run", "--backend", exec_backend(),
                        casefile, "--json", report, "--jobs", "1",
                        "--timeout", "300"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    with open(report) as f:
        rows = json.load(f)["cases"]
    return p.returncode, {r["id"]: r for r in rows}, p.stdout


def test_reference_passes_protocol_2(tmp_path, casefile):
    rc, rows, out = run(tmp_path, casefile, "2")
    assert rc == 0, out
    for cid in ("problem.0", "problem.1", "problem.2"):
        assert rows[cid]["status"] == "PASS", out
    assert rows["problem.3"]["status"] == "UNSUPPORTED"
    assert "bwd_d" in rows["problem.3"]["message"]


def test_flipped_kernel_fails_protocol_1(tmp_path, casefile):
    rc, rows, out = run(tmp_path, casefile, "1", SERVE_TEST_FLIP="1")
    assert rc == 1
    assert rows["problem.0"]["status"] == "FAIL"
    assert "kernel flipped" in rows["problem.0"]["diagnosis"]


def test_exception_is_an_error(tmp_path, casefile):
    rc, rows, out = run(tmp_path, casefile, "2", SERVE_TEST_RAISE="1")
    assert rc == 1
    assert rows["problem.2"]["status"] == "ERROR"
    assert "ValueError: no f64 today" in rows["problem.2"]["message"]
    assert rows["problem.0"]["status"] == "PASS"


def test_io_exchange_fails_protocol_2(tmp_path, casefile):
    rc, rows, out = run(tmp_path, casefile, "2", SERVE_TEST_SWAP="1")
    assert rc == 1, out
    assert rows["problem.2"]["status"] == "FAIL"
    assert "weight I and O exchanged" in rows["problem.2"]["diagnosis"]
