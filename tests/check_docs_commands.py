#!/usr/bin/env python3
"""Runs the shell commands of README.md's and docs/*.md's ```sh blocks as
written, each document in a fresh folder that looks like a clone with a
build: build/ is the tree's build, the source folders are linked in, iohw
is on PATH, and ./libmine.so and mine.c are the backend of
examples/backend-example.  Commands run one by one (a line ending in a
backslash joins the next) with bash; each must exit 0, or 1 for the
commands that report failing cases that way (iohw run, report diff,
fuzz).  A comment before a block says what the test leaves out and why:

    <!-- docs-test skip REASON -->             the whole block
    <!-- docs-test skip "PREFIX" REASON -->    the commands starting PREFIX

A block whose first line is #! is a script's text, not commands.

Usage: check_docs_commands.py SOURCE_DIR BUILD_DIR
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINKED = ["include", "examples", "cases", "backends", "scripts", "docs", "bench"]
PLACEHOLDERS = {"/path/to/iohw/include": "include"}
MAY_EXIT_1 = re.compile(r"^(\S*iohw (run|report diff|fuzz)|\S+=\S+ .*iohw run)\b")
DIRECTIVE = re.compile(r'<!-- docs-test skip(?: "([^"]+)")? (.*?) -->')


def blocks(text):
    """(line, skip_all, skip_prefixes, commands) per ```sh block."""
    lines = text.split("\n")
    out, pending, i = [], [], 0
    while i < len(lines):
        m = DIRECTIVE.search(lines[i])
        if m:
            pending.append((m.group(1), m.group(2)))
        elif lines[i].strip() == "```sh":
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            out.append((start + 1, pending, body))
            pending = []
        elif lines[i].strip():
            pending = []
        i += 1
    return out


def commands(body):
    cmds, cur = [], ""
    for line in body:
        cur += line
        if cur.endswith("\\"):
            cur = cur[:-1] + " "
            continue
        if cur.strip() and not cur.strip().startswith("#"):
            cmds.append(cur.strip())
        cur = ""
    return cmds


def workspace(src, build):
    top = tempfile.mkdtemp(prefix="iohw-docs-")
    for name in LINKED:
        os.symlink(os.path.join(src, name), os.path.join(top, name))
    os.symlink(build, os.path.join(top, "build"))
    bindir = os.path.join(top, ".bin")
    os.mkdir(bindir)
    os.symlink(os.path.join(build, "iohw"), os.path.join(bindir, "iohw"))
    shutil.copy(os.path.join(src, "examples/backend-example/mine.c"), top)
    subprocess.run(["gcc", "-std=c11", "-O2", "-fPIC", "-shared",
                    "-I" + os.path.join(src, "include"), "mine.c", "-o", "libmine.so"],
                   cwd=top, check=True)
    return top, bindir


def run_doc(path, src, build):
    text = open(path).read()
    failures, ran, skipped = 0, 0, 0
    top, bindir = workspace(src, build)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
    env.pop("IOHW_EXEC_COMMAND", None)
    try:
        for line, directives, body in blocks(text):
            where = "%s:%d" % (os.path.relpath(path, src), line)
            whole = [why for prefix, why in directives if prefix is None]
            if whole or (body and body[0].startswith("#!")):
                print("skip %s: %s" % (where, whole[0] if whole else "a script's text"))
                skipped += 1
                continue
            for cmd in commands(body):
                why = [w for p, w in directives if p is not None and cmd.startswith(p)]
                if why:
                    print("skip %s: %s: %s" % (where, cmd.split("#")[0].strip(), why[0]))
                    skipped += 1
                    continue
                for a, b in PLACEHOLDERS.items():
                    cmd = cmd.replace(a, b)
                r = subprocess.run(["bash", "-c", cmd], cwd=top, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                ok = r.returncode == 0 or (r.returncode == 1 and MAY_EXIT_1.match(cmd))
                ran += 1
                if not ok:
                    failures += 1
                    tail = r.stdout.decode(errors="replace")[-1500:]
                    print("FAIL %s: exit %d: %s\n%s" % (where, r.returncode, cmd, tail))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print("%s: %d commands run, %d skipped, %d failed" %
          (os.path.relpath(path, src), ran, skipped, failures))
    return failures


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src, build = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    docs = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs/*.md")))
    failures = sum(run_doc(d, src, build) for d in docs)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
