#!/usr/bin/env python3
"""Where each table op comes from upstream, and whether our prototypes still match it.

    python3 tools/upstream.py [--mirror DIR] [--write]

Reads the bare mirrors of hicann/ops-math, ops-nn and ops-cv (DIR/hicann+<repo>/repo, as `fetch` lays them out;
default: the nearest folder named .mirror above this checkout) and, for every op of the table (tools/optable),
finds the public header that declares it and the op_api source that defines its first phase. It prints every op
whose first-phase parameters (normalised: whitespace, comments) differ from the table's `args`, and exits 1 if
there is one.

--write records the facts in tools/optable/_upstream.py (committed, plain data): per op the repository, commit,
header and source paths, and the exact parameter lists of both phases as the real header writes them. gen_ops.py
takes the trailing parameters' names and the second phase from there (the real headers vary: `opExecutor`,
`const aclrtStream stream`, `workspace_size`), docs/UPSTREAM.md is generated from it, and tests/test_optable.py
checks the generated headers against it without needing the mirrors. Nothing of the upstream code is copied:
only names, paths and prototypes (the API itself).
"""
import argparse
import os
import pprint
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import optable  # noqa: E402

REPOS = ("ops-math", "ops-nn", "ops-cv")
OPTIONAL_REPOS = ("ops-transformer",)  # read when mirrored (the ops llama.cpp's CANN backend calls)
OUT = os.path.join(HERE, "optable", "_upstream.py")


def default_mirror():
    d = REPO
    while os.path.dirname(d) != d:
        if os.path.isdir(os.path.join(d, ".mirror")):
            return os.path.join(d, ".mirror")
        d = os.path.dirname(d)
    return os.path.join(os.path.dirname(REPO), ".mirror")


def git(gitdir, *a):
    return subprocess.run(["git", "--git-dir", gitdir] + list(a), capture_output=True, check=True).stdout


def strip_comments(t):
    return re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", t, flags=re.S))


def norm_params(text):
    """'const aclTensor *self,aclTensor*  out' -> 'const aclTensor* self, aclTensor* out'."""
    out = []
    for p in text.split(","):
        p = " ".join(p.split())
        p = re.sub(r"\s*(\*+)\s*", r"\1 ", p).strip()
        out.append(p)
    return ", ".join(out)


def scan(mirror):
    """{aclnnName: [(repo, commit, header, p1, p2)]} from every public header outside experimental/, and
    {aclnnName: [(repo, source)]} for the op_api sources that define a first phase."""
    decl, defs, docs = {}, {}, {}
    for repo in REPOS + OPTIONAL_REPOS:
        gd = os.path.join(mirror, "hicann+" + repo, "repo")
        if not os.path.isdir(gd) and repo in OPTIONAL_REPOS:
            continue
        if not os.path.isdir(gd):
            sys.exit(f"no mirror of hicann/{repo} at {gd}")
        commit = git(gd, "rev-parse", "HEAD").decode().strip()
        for path in git(gd, "ls-tree", "-r", "--name-only", "HEAD").decode().split():
            if path.startswith("experimental/"):
                continue
            base = os.path.basename(path)
            if re.fullmatch(r"acl(nn)?_\w+\.h", base):
                t = strip_comments(git(gd, "show", "HEAD:" + path).decode("utf8", "replace"))
                p1s = {m.group(1): m.group(2) for m in re.finditer(
                    r"aclnnStatus\s+(acl\w+?)GetWorkspaceSize\s*\(([^;{]*?)\)\s*;", t)}
                p2s = {m.group(1): m.group(2) for m in re.finditer(r"aclnnStatus\s+(acl\w+)\s*\(([^;{]*?)\)\s*;", t)}
                for name, p1 in p1s.items():
                    decl.setdefault(name, []).append(
                        (repo, commit, path, norm_params(p1), norm_params(p2s[name]) if name in p2s else None))
            elif repo == "ops-nn" and "/docs/" in path and re.fullmatch(r"acl(nn)?\w+\.md", base):
                # ops-nn interfaces generated from an op definition (foreach/) have no header in the repository:
                # their docs page is the only statement of the prototype
                t = git(gd, "show", "HEAD:" + path).decode("utf8", "replace")
                p1s = {m.group(1): m.group(2) for m in re.finditer(
                    r"aclnnStatus\s+(acl\w+?)GetWorkspaceSize\s*\(([^;{]*?)\)", t)}
                p2s = {m.group(1): m.group(2) for m in re.finditer(r"aclnnStatus\s+(acl\w+)\s*\(([^;{]*?)\)", t)}
                for name, p1 in p1s.items():
                    if base == name + ".md":
                        docs.setdefault(name, []).append(
                            (repo, commit, path, norm_params(p1), norm_params(p2s[name]) if name in p2s else None))
            elif "/op_api/" in path and re.fullmatch(r"acl(nn)?_\w+\.cpp", base):
                t = git(gd, "show", "HEAD:" + path).decode("utf8", "replace")
                for m in re.finditer(r"aclnnStatus\s+(acl\w+?)GetWorkspaceSize\s*\(", t):
                    defs.setdefault(m.group(1), []).append((repo, path))
    for name, rows in docs.items():  # a docs prototype only where no header declares the op
        if name not in decl:
            decl[name] = rows
    return decl, defs


def table_p1(op):
    return norm_params(op.args_text + ", uint64_t* workspaceSize, aclOpExecutor** executor")


def same_types(a, b):
    """Parameter lists equal up to the parameter names (the last word of each)."""
    strip = lambda s: [re.sub(r"\s*\w+$", "", p) for p in s.split(", ")]  # noqa: E731
    return strip(a) == strip(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", default=default_mirror())
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    decl, defs = scan(a.mirror)
    rows, bad, none = {}, 0, []
    for op in optable.load():
        name = op.sym
        cands = decl.get(name, [])
        mine = table_p1(op)
        # prefer the declaration whose parameters (names aside) match ours, then the header named like ours
        cands = sorted(cands, key=lambda c: (not same_types(c[3], mine), os.path.basename(c[2]) != op.header,
                                             "arch35" in c[2], c[2]))
        if not cands:
            print(f"{op.name}: no upstream header declares it (kept as the docs write it)")
            none.append(op.name)
            continue
        repo, commit, header, p1, p2 = cands[0]
        src = [s for r, s in defs.get(name, []) if r == repo]
        if not same_types(p1, mine) or p1.rsplit(", ", 2)[0] != mine.rsplit(", ", 2)[0]:
            bad += 1
            print(f"{op.name}: first phase differs from {repo}:{header}\n  table:    {mine}\n  upstream: {p1}")
        if os.path.basename(header) != op.header and not header.endswith(".md"):
            print(f"{op.name}: upstream declares it in {os.path.basename(header)}, the table in {op.header}")
        rows[op.name] = {"repo": repo, "commit": commit, "header": header, "source": src[0] if src else None,
                         "phase1": p1, "phase2": p2}
    if a.write:
        text = ('"""Generated by tools/upstream.py --write from the hicann mirrors -- do not edit.\n\n'
                "Per table op: the upstream repository and commit its prototypes and validation follow, the header "
                "that declares it,\nthe op_api source that defines its first phase, and both phases' parameter "
                'lists exactly as that header writes them."""\n'
                "OPS = " + pprint.pformat(rows, width=118, sort_dicts=True) + "\n\n"
                "# ops no upstream header declares (CANN generates their first phase from the op definition); their\n"
                "# prototypes follow the docs page\n"
                "NO_HEADER = " + pprint.pformat(sorted(none), width=118) + "\n")
        with open(OUT, "w") as f:
            f.write(text)
        print(f"wrote {os.path.relpath(OUT, REPO)} ({len(rows)} ops)")
    print(f"upstream: {len(rows)} ops found upstream, {bad} with a different first phase")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
