"""An exec-protocol program that does no work (bench/python_overhead.sh):
iohw.serve around a function that hands back the case's own expected
output, so what `iohw run` spends on it is the Python side's overhead."""
import iohw


def nowork(case):
    return case.expected


iohw.serve(nowork, describe={"name": "nowork", "version": "1"})
