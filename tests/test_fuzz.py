"""The C ABI fuzzer (tests/c/fuzz.c) for a short budget: every exported function with hostile arguments, each
call returning a documented code with a message, nothing crashing or hanging. `make fuzz` runs a longer budget
on the ASan+UBSan build; `FUZZ_SECONDS` sets this test's budget."""
import os

import native


def test_fuzz_short_budget(tmp_path):
    exe = native.build("fuzz.c", tmp_path / "fuzz")
    seconds = os.environ.get("FUZZ_SECONDS", "2")
    res = native.run(exe, "-t", seconds, "-s", "7", timeout=float(seconds) + 120)
    assert res.returncode == 0 and "fuzz ok" in res.stdout, res.stdout[-4000:] + res.stderr[-4000:]
    # every op was reached, and most of them got past phase 1 into a second phase at least once
    for line in res.stdout.splitlines():
        if "phase-1 ok" in line:
            fields = line.split()
            assert int(fields[fields.index("cases") + 1]) > 0, line
            assert int(fields[fields.index("phases") + 1]) > 0, line


def test_fuzz_replays_one_case(tmp_path):
    """A case is reproducible from (seed, case): -c runs exactly that case."""
    exe = native.build("fuzz.c", tmp_path / "fuzz")
    a = native.run(exe, "-s", "3", "-c", "17")
    b = native.run(exe, "-s", "3", "-c", "17")
    assert a.returncode == 0 and "fuzz ok" in a.stdout, a.stdout + a.stderr
    strip = [l for l in a.stdout.splitlines() if not l.startswith("total")]
    assert strip == [l for l in b.stdout.splitlines() if not l.startswith("total")]
