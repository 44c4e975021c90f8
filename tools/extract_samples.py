#!/usr/bin/env python3
"""Extract the C++ sample of every seed document into samples/<seed>.cpp, byte for byte.

The sample is the fenced code block that contains `int main`; seed 001 has no fences, so there it runs from the
`#include <iostream>` line to the end of the file. Seed 003 is double-encoded UTF-8: its code is taken from the
repaired copy (the code tokens are identical, only the comments differ).

  extract_samples.py SEEDS_DIR OUT_DIR     write the samples
  extract_samples.py SEEDS_DIR OUT_DIR --check   exit 1 if any sample differs from its seed
"""
import pathlib
import re
import sys


def sample_of(path: pathlib.Path) -> str:
    text = path.read_text(encoding="utf-8")
    blocks = re.findall(r"^[ \t]*```[A-Za-z]*[ \t]*\n(.*?)^[ \t]*```", text, flags=re.S | re.M)
    for b in blocks:
        if "int main" in b:
            return b
    start = text.find("#include <iostream>")
    if start < 0:
        raise SystemExit(f"{path.name}: no sample found")
    return text[start:] if text.endswith("\n") else text[start:] + "\n"


def seeds(seeds_dir: pathlib.Path):
    for p in sorted(seeds_dir.glob("*.txt")):
        stem = p.name.split(".")[0]
        if stem.endswith("_e78a0648000420a1") and ".repaired" not in p.name:
            continue  # the mojibake copy; its repaired twin supplies the sample
        yield stem.replace(".repaired-utf8", ""), p


def main(argv):
    seeds_dir, out_dir = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    check = "--check" in argv
    bad = 0
    for stem, path in seeds(seeds_dir):
        code = sample_of(path)
        out = out_dir / f"{stem}.cpp"
        if check:
            if not out.exists() or out.read_text(encoding="utf-8") != code:
                print(f"{out}: differs from {path.name}")
                bad += 1
        else:
            out.write_text(code, encoding="utf-8")
            print(f"{out} <- {path.name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
