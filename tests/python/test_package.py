"""iohw.open_suite, iohw.generate, the tensors' orders and iohw.check
against cases whose answers are known: the stored output (PASS), one
element moved (FAIL there), the kernel read in reverse (the judge's
"kernel flipped")."""
import numpy as np
import pytest

import iohw
import numpy_conv_transpose as ref


def test_cases_and_ids(casefile):
    s = iohw.open_suite(casefile)
    assert s.ids == ["problem.0", "problem.1", "problem.2", "problem.3",
                     "problem.4"]


def test_filter_is_the_programs(casefile):
    assert iohw.open_suite(casefile, filter="dt=f64").ids == ["problem.2"]
    assert iohw.open_suite(casefile, filter="g>1").ids == ["problem.1"]
    assert iohw.open_suite(casefile, filter="rank=2,dt=f32").ids == [
        "problem.0", "problem.3"]


def test_bad_filter_names_it(casefile):
    with pytest.raises(iohw.IohwError, match="nosuchkey"):
        iohw.open_suite(casefile, filter="nosuchkey=3")


def test_missing_suite_named():
    with pytest.raises(iohw.IohwError, match="/nonexistent/suite"):
        iohw.open_suite("/nonexistent/suite")


def test_problem_fields(casefile):
    c = iohw.open_suite(casefile).case("problem.1")
    p = c.problem
    assert (p["in_channels"], p["out_channels"], p["groups"]) == (4, 6, 2)
    assert p["stride"] == [2] and p["pad_begin"] == [1] and p["pad_end"] == [0]
    assert p["has_bias"] == 1 and c.dtype == "f32" and c.direction == "fwd"
    # (5 - 1) * 2 - 1 + (3 - 1) + 1 = 10
    assert c.attrs["out_size"] == [10]
    assert "g>1" not in c.tags and "1d" in c.tags


def test_stored_and_strict_orders(casefile):
    c = iohw.open_suite(casefile).case("problem.0")
    assert c.stored["x"].shape == (1, 4, 4, 2)      # NHWC
    assert c.stored["w"].shape == (3, 2, 3, 3)      # OIHW
    assert c.x.shape == (1, 2, 4, 4)
    assert c.w.shape == (2, 3, 3, 3)
    assert c.x[0, 1, 2, 3] == c.stored["x"][0, 2, 3, 1]
    assert c.w[1, 2, 0, 1] == c.stored["w"][2, 1, 0, 1]
    assert c.expected.shape == (1, 3, 9, 9)
    assert np.array_equal(c.from_strict_data(c.expected), c.stored["y"])


def test_direction_and_quant(casefile):
    s = iohw.open_suite(casefile)
    b = s.case("problem.3")
    assert b.direction == "bwd_d" and b.output_names == ["dx"]
    assert b.x is None and b.dy.shape[1] == 2
    q = s.case("problem.4")
    assert q.quant["y_dtype"] == "s8" and "zp_x" in q.quant


@pytest.mark.parametrize("cid", ["problem.0", "problem.1", "problem.2",
                                 "problem.3", "problem.4"])
def test_stored_output_passes(casefile, cid):
    c = iohw.open_suite(casefile).case(cid)
    v = iohw.check(c, c.expected)
    assert v.status == "PASS", v.block


def test_one_element_off_fails_there(casefile):
    c = iohw.open_suite(casefile).case("problem.0")
    y = c.expected.copy()
    y[0, 2, 4, 5] += 1
    v = iohw.check(c, y)
    assert v.status == "FAIL" and v.mismatches == 1
    assert v.points[0]["coord"] == [0, 2, 0, 4, 5]
    assert v.points[0]["expected"] == pytest.approx(
        float(c.stored["y_f64"][0, 4, 5, 2]))
    assert "__REPRO: iohw run --backend LIB" in v.block
    assert v.repro.endswith("--filter 'id=problem.0'")


def test_numpy_reference_passes(casefile):
    for cid in ("problem.0", "problem.1", "problem.2"):
        c = iohw.open_suite(casefile).case(cid)
        assert iohw.check(c, ref.conv_transpose(c.x, c.w, c.bias, **c.attrs)).ok


def test_flipped_kernel_diagnosed(casefile):
    c = iohw.open_suite(casefile).case("problem.0")
    y = ref.conv_transpose(c.x, c.w, c.bias, flip_kernel=True, **c.attrs)
    v = iohw.check(c, y)
    assert v.status == "FAIL"
    assert "kernel flipped" in v.diagnosis
    assert "diagnosis: matches the oracle with kernel flipped" in v.block


def test_io_exchange_diagnosed(casefile):
    # The I/O exchange (TVM's layout bug) on a case stored in IOHW.
    c = iohw.open_suite(casefile).case("problem.2")
    v = iohw.check(c, ref.conv_transpose(c.x, c.w, c.bias, swap_io=True, **c.attrs))
    assert v.status == "FAIL"
    assert "weight I and O exchanged" in v.diagnosis
