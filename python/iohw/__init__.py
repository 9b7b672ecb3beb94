"""iohw from Python: the cases of a suite as numpy arrays, the C judge's
verdict on an output, an exec-protocol program made from a function, and a
pytest plugin (docs/PYTHON.md).

    import iohw
    for case in iohw.open_suite("suite/", filter="rank=2,dt=f32"):
        v = iohw.check(case, my_conv_transpose(case.x, case.w, case.bias,
                                               **case.attrs))
        assert v.ok, v.block

Everything that judges goes through the `iohw` program (`iohw check`,
`iohw run --list`): the rules are the C judge's, never reimplemented here.
"""
from .program import IohwError, find_program
from .case import Case
from .suite import Suite, open_suite, generate
from .verdict import Verdict, check
from .serve import Unsupported, serve

__version__ = "0.1.0"
__all__ = ["Case", "IohwError", "Suite", "Unsupported", "Verdict", "check",
           "find_program", "generate", "open_suite", "serve"]
