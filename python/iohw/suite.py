"""Suites: the cases of case files and suite folders, selected by the
filter expressions of `iohw run --filter` (the program selects: the
grammar is its own), and suites written by `iohw gen`."""
import fcntl
import hashlib
import os
import shutil
import tempfile

from . import program
from .case import Case


def _files(path):
    if os.path.isdir(path):
        names = sorted(n for n in os.listdir(path) if n.endswith(".h5"))
        if not names:
            raise program.IohwError("%s: a suite folder without .h5 case files"
                                    % path)
        return [os.path.join(path, n) for n in names]
    if not os.path.exists(path):
        raise program.IohwError("%s: no such case file or suite folder" % path)
    return [path]


class Suite:
    """The selected cases of some case files, in file order, then id
    order.  entries holds (file, id, descriptor); iterating or indexing
    reads the cases (iohw.Case)."""

    def __init__(self, paths, filter=None):
        if isinstance(paths, str):
            paths = [paths]
        self.paths = list(paths)
        self.filter = filter
        self.entries = []
        for path in self.paths:
            for f in _files(path):
                self.entries.extend(_list(f, filter))

    def __len__(self):
        return len(self.entries)

    def __getitem__(self, i):
        f, cid, _ = self.entries[i]
        return Case(f, cid)

    def __iter__(self):
        for i in range(len(self.entries)):
            yield self[i]

    @property
    def ids(self):
        return [cid for _, cid, _ in self.entries]

    def case(self, case_id):
        """The case of this id."""
        for f, cid, _ in self.entries:
            if cid == case_id:
                return Case(f, cid)
        raise KeyError("no case %r in %s" % (case_id, " ".join(self.paths)))

    def select(self, filter):
        """The cases of this suite that also match filter."""
        s = Suite.__new__(Suite)
        s.paths, s.filter = self.paths, filter
        keep = set()
        for path in self.paths:
            for f in _files(path):
                keep.update((f, cid) for f, cid, _ in _list(f, filter))
        s.entries = [e for e in self.entries if (e[0], e[1]) in keep]
        return s


def _list(f, filter):
    args = ["run", "--list", f]
    if filter:
        args += ["--filter", filter]
    _, out = program.run(args)
    rows = []
    for line in out.splitlines():
        if "\t" in line:
            cid, desc = line.split("\t", 1)
            rows.append((f, cid, desc))
    return rows


def open_suite(path, filter=None):
    """The cases of a suite folder or case file (or a list of them), those
    matching filter (`iohw run --filter`'s expression) when given."""
    return Suite(path, filter)


def cache_dir():
    """Where generated suites are kept: $IOHW_CACHE, else ~/.cache/iohw."""
    d = os.environ.get("IOHW_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "iohw")
    os.makedirs(d, exist_ok=True)
    return d


def _key(words):
    exe = program.find_program()
    st = os.stat(exe)
    text = "\0".join([exe, str(st.st_mtime_ns), str(st.st_size)] + words)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def generate(profile=None, problem=None, out=None, filter=None):
    """A suite written by `iohw gen`: a profile (smoke, ci, full, models)
    into the folder out, or one case per descriptor of problem (a string or
    a list) into the case file out.  Without out, into the cache
    (cache_dir()), written once per profile and iohw program."""
    if (profile is None) == (problem is None):
        raise ValueError("iohw.generate: give profile= or problem=, one of them")
    if profile is not None:
        args = ["gen", "--profile", profile]
        name = "%s-%s" % (profile, _key(args))
    else:
        problems = [problem] if isinstance(problem, str) else list(problem)
        args = ["gen"]
        for p in problems:
            args += ["--problem", p]
        name = "problem-%s.h5" % _key(args)
    if out is None:
        out = os.path.join(cache_dir(), name)
        _write_once(args, out)
    else:
        program.run(args + ["-o", out])
    return Suite(out, filter)


def _write_once(args, out):
    """Runs `iohw gen ARGS -o OUT` unless out exists; one writer at a time
    (pytest-xdist workers), into a temporary name renamed at the end."""
    with open(out + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(out):
            return
        tmp = tempfile.mkdtemp(dir=os.path.dirname(out), prefix=".gen-")
        try:
            target = os.path.join(tmp, os.path.basename(out))
            program.run(args + ["-o", target])
            os.rename(target, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
