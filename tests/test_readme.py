"""The README's "Python users" examples are copy-paste runnable: every ```python block of that section runs here
as it is written, each in a fresh namespace (blocks importing torch skip without PyTorch; the pyACL block runs
in its own interpreter with the installed tree's site-packages on PYTHONPATH, as set_env.sh arranges)."""
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python_blocks():
    text = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
    m = re.search(r"^## Python users\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, "README.md has no '## Python users' section"
    return re.findall(r"^```python\n(.*?)^```", m.group(1), re.S | re.M)


BLOCKS = python_blocks()


def test_the_section_covers_every_op_with_numpy_and_torch():
    ops = ["avg_pool2d", "avg_pool2d_backward", "grid_sampler2d", "grid_sampler2d_backward",
           "multi_scale_deformable_attn", "multi_scale_deformable_attn_backward", "upsample_nearest_exact2d",
           "upsample_nearest_exact2d_backward"]
    numpy_text = "\n".join(b for b in BLOCKS if "import torch" not in b)
    torch_text = "\n".join(b for b in BLOCKS if "import torch" in b)
    for op in ops:
        assert re.search(rf"pyaclnn\.{op}\(", numpy_text), f"no numpy example for {op}"
        assert re.search(rf"pyaclnn\.{op}\(", torch_text), f"no torch example for {op}"


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_python_block_runs(index, request):
    code = BLOCKS[index]
    if "import torch" in code:
        request.getfixturevalue("torch")  # skips cleanly without PyTorch (or with PYACLNN_SKIP_TORCH)
    if not re.search(r"^import acl$", code, re.M):
        exec(compile(code, f"README.md python block {index}", "exec"), {"__name__": "__readme__"})
        return
    # the pyACL block initialises and finalises the runtime of the installed tree: its own interpreter
    env = dict(os.environ)
    path = [request.getfixturevalue("site_packages"), REPO]
    env["PYTHONPATH"] = os.pathsep.join(path + [env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                         cwd=str(request.getfixturevalue("tmp_path")))
    assert res.returncode == 0, f"README block {index} failed:\n{code}\n--- stderr ---\n{res.stderr}"
