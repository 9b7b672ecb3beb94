"""Finding and running the `iohw` program."""
import os
import shutil
import subprocess


class IohwError(Exception):
    """The iohw program failed or was given bad input; the message is its
    own."""


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(os.path.dirname(here))
    for build in ("build", "build-dbg", "build-rel"):
        yield os.path.join(top, build, "iohw")


def find_program():
    """The iohw program: $IOHW_BIN, else `iohw` on PATH, else a build folder
    of the source tree this package lies in."""
    env = os.environ.get("IOHW_BIN")
    if env:
        if not os.access(env, os.X_OK):
            raise IohwError("IOHW_BIN=%s is not an executable program" % env)
        return env
    found = shutil.which("iohw")
    if found:
        return found
    for path in _candidates():
        if os.access(path, os.X_OK):
            return path
    raise IohwError("no iohw program: set IOHW_BIN, put iohw on PATH or "
                    "build it (cmake --build build --target iohw)")


def run(args, ok=(0,)):
    """Runs `iohw ARGS`; returns (exit status, stdout).  An exit status not
    in ok raises IohwError with the program's message."""
    p = subprocess.run([find_program()] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode not in ok:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        raise IohwError("\n".join(msg) if msg else "iohw %s: exit status %d"
                        % (args[0], p.returncode))
    return p.returncode, p.stdout
