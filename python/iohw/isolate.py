"""--iohw-isolate: a test function run for one case in an exec-protocol
program under `iohw run` (a crash, a hang or a runaway allocation is that
item's failure, not pytest's)."""
import importlib.util
import json
import os
import sys
import tempfile

from . import program


def exec_backend():
    """libiohw_exec.so: $IOHW_EXEC_LIB, else beside the iohw program."""
    env = os.environ.get("IOHW_EXEC_LIB")
    if env:
        return env
    d = os.path.dirname(os.path.realpath(program.find_program()))
    for cand in (os.path.join(d, "backends", "libiohw_exec.so"),
                 os.path.join(d, "..", "lib", "iohw", "libiohw_exec.so")):
        if os.path.exists(cand):
            return cand
    raise program.IohwError("no libiohw_exec.so beside %s: set IOHW_EXEC_LIB"
                            % program.find_program())


def run_isolated(fn, f, cid):
    import pytest
    mod = sys.modules[fn.__module__]
    with tempfile.TemporaryDirectory(prefix="iohw-isolate-") as tmp:
        report = os.path.join(tmp, "r.json")
        env = dict(os.environ)
        env["IOHW_EXEC_COMMAND"] = "%s -m iohw.isolate %s %s" % (
            sys.executable, os.path.abspath(mod.__file__), fn.__name__)
        env["IOHW_EXEC_PROTOCOL"] = "3"
        env["IOHW_ISOLATED_PROGRAM"] = "1"
        env.pop("IOHW_PYTEST_ISOLATE", None)
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
            + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        import subprocess
        p = subprocess.run([program.find_program(), "run", "--backend",
                            exec_backend(), f, "--filter", "id=" + cid,
                            "--json", report, "--jobs", "1"] + _timeout(),
                           env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if not os.path.exists(report):
            pytest.fail("iohw run wrote no report:\n" + p.stdout, pytrace=False)
        with open(report) as r:
            rows = json.load(r)["cases"]
    if not rows:
        pytest.fail("iohw run ran no case %s:\n%s" % (cid, p.stdout),
                    pytrace=False)
    row = rows[0]
    if row["status"] == "UNSUPPORTED":
        pytest.skip(row["message"])
    if row["status"] != "PASS":
        pytest.fail(_block(row), pytrace=False)


def _timeout():
    """--timeout S from $IOHW_ISOLATE_TIMEOUT (else iohw run's default)."""
    t = os.environ.get("IOHW_ISOLATE_TIMEOUT")
    return ["--timeout", t] if t else []


def _block(row):
    lines = ["%s %s (%s)" % (row["status"], row["id"], row["file"]),
             "  problem:   " + row["descriptor"]]
    if row.get("message"):
        lines.append("  message:   " + row["message"])
    if row.get("diagnosis"):
        lines.append("  diagnosis: " + row["diagnosis"])
    lines.append("  __REPRO: " + row.get("repro", ""))
    return "\n".join(lines)


def _load(path, name):
    spec = importlib.util.spec_from_file_location("iohw_isolated_tests", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = getattr(mod, name)
    return getattr(fn, "__iohw_function__", fn)


def main(argv):
    from .pytest import CapturingCase, _Returned
    from .serve import Unsupported, serve
    fn = _load(argv[1], argv[2])

    def compute(case):
        c = CapturingCase(case.file, case.id)
        try:
            fn(case=c)
        except _Returned as r:
            return r.y
        raise RuntimeError("%s returned without calling case.check(y)"
                           % argv[2])

    def supports(case):
        # The function's own refusal (iohw.Unsupported) is the answer.
        try:
            fn(case=CapturingCase(case.file, case.id))
        except Unsupported as e:
            return str(e) or "unsupported"
        except BaseException:  # _Returned, or a failure run() reports
            return None
        return None
    serve(compute, supports=supports,
          describe={"name": argv[2], "protocols": "1 2 3",
                    "supports": "problem", "quantized": "1",
                    "directions": "fwd bwd_d bwd_w"},
          argv=[argv[0]] + argv[3:])


if __name__ == "__main__":
    main(sys.argv)
