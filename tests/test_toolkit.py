"""The toolkit side of the package: `python -m pyaclnn {prefix,info,cc,samples}`, the CANN-shaped install tree
(self-locating set_env.sh, alias libraries that link and dlopen), the README's C/C++ shell snippets, and (slow,
skipped with PYACLNN_SKIP_SLOW=1) an sdist -> wheel -> fresh venv install that runs the samples from outside
the repository."""
import filecmp
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from helpers import REPO

PREFIX = os.path.join(REPO, "build", "cann")
SHARED_GOLDEN = os.path.join(os.path.dirname(REPO), "shared", "golden")
EXPECTED = os.path.join(REPO, "samples", "expected")
ALIASES = ["libascendcl.so", "libacl_rt.so", "libruntime.so", "libnnopbase.so", "libopapi.so", "libopapi_nn.so",
           "libopapi_cv.so", "libopapi_math.so"]
STEMS = sorted(f[:-4] for f in os.listdir(os.path.join(REPO, "samples")) if f.endswith(".cpp"))
HAVE_CMAKE = shutil.which("cmake") is not None
slow = pytest.mark.skipif(bool(os.environ.get("PYACLNN_SKIP_SLOW")), reason="PYACLNN_SKIP_SLOW is set")


def expected(stem):
    with open(os.path.join(EXPECTED, stem + ".stdout"), "rb") as f:
        return f.read()


def clean_env(**extra):
    """The environment without any toolkit set-up (no LD_LIBRARY_PATH/ASCEND_*), so rpaths and self-location
    are what is tested."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_") and k != "LD_LIBRARY_PATH"}
    env.update(extra)
    return env


def pyaclnn_cli(*args, cwd=REPO, env=None, timeout=600):
    """`python -m pyaclnn ARGS` with this checkout's package, from any directory."""
    env = dict(env or clean_env())
    env["PYTHONPATH"] = os.pathsep.join([REPO] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return subprocess.run([sys.executable, "-m", "pyaclnn", *args], cwd=cwd, env=env, capture_output=True,
                          timeout=timeout)


def ops_inc():
    text = open(os.path.join(REPO, "libsrc", "ops", "ops.inc")).read()
    return sorted(p + n for n, p in re.findall(r"^ACL_OP\((\w+), (\w+)\)", text, re.M))


@pytest.fixture(scope="module")
def tree():
    """build/cann as `make install` leaves it (the test run depends on it being current)."""
    subprocess.run(["make", "-s", "install"], cwd=REPO, check=True, capture_output=True, timeout=600)
    return PREFIX


@pytest.fixture(scope="module")
def filter_tree(tmp_path_factory, tree):
    """The packaged flavour of the tree: aliases as ELF filter libraries, stripped library, no set_env fallback."""
    prefix = str(tmp_path_factory.mktemp("ftree") / "cann")
    subprocess.run(["make", "-s", "install", f"PREFIX={prefix}", "ALIASES_AS=filters", "INSTALL_STRIP=1",
                    "SET_ENV_FALLBACK="], cwd=REPO, check=True, capture_output=True, timeout=600)
    return prefix


# ------------------------------------------------------------------------------------------ expected output
@pytest.mark.skipif(not os.path.isdir(SHARED_GOLDEN), reason="../shared/golden not present")
def test_expected_outputs_are_the_shared_golden_files():
    cmp = filecmp.dircmp(EXPECTED, SHARED_GOLDEN)
    assert cmp.left_only == [] and cmp.right_only == [], (cmp.left_only, cmp.right_only)
    _, mismatch, errors = filecmp.cmpfiles(EXPECTED, SHARED_GOLDEN, cmp.common_files, shallow=False)
    assert mismatch == [] and errors == []


def test_every_sample_has_expected_output():
    assert len(STEMS) == 5
    for stem in STEMS:
        assert expected(stem).endswith(b"\n")


# ------------------------------------------------------------------------------------------- help, prefix
def test_help_lists_the_commands():
    for flag in ("-h", "--help"):
        res = pyaclnn_cli(flag)
        assert res.returncode == 0
        for cmd in ("prefix", "info", "cc", "samples"):
            assert re.search(rb"^\s+%s\s" % cmd.encode(), res.stdout, re.M), (cmd, res.stdout)
    res = pyaclnn_cli()
    assert res.returncode == 2 and b"usage:" in res.stderr
    res = pyaclnn_cli("frobnicate")
    assert res.returncode == 2 and b"invalid choice" in res.stderr
    import pyaclnn
    assert pyaclnn_cli("--version").stdout.decode().strip() == f"pyaclnn {pyaclnn.__version__}"


def test_prefix_in_checkout(tree):
    res = pyaclnn_cli("prefix", cwd=REPO)
    assert res.returncode == 0, res.stderr
    assert os.path.realpath(res.stdout.decode().strip()) == os.path.realpath(PREFIX)
    # the module also runs as a plain script without site-packages (what the Makefile does: no cffi/numpy needed)
    res = subprocess.run([sys.executable, "-S", os.path.join(REPO, "pyaclnn", "_toolkit.py"), "prefix"], cwd="/",
                         capture_output=True, text=True)
    assert os.path.realpath(res.stdout.strip()) == os.path.realpath(PREFIX)


def test_prefix_errors_are_clear(tmp_path):
    # a checkout without any tree
    (tmp_path / "co" / "pyaclnn").mkdir(parents=True)
    (tmp_path / "co" / "libsrc").mkdir()
    (tmp_path / "co" / "Makefile").write_text("")
    shutil.copy(os.path.join(REPO, "pyaclnn", "_toolkit.py"), tmp_path / "co" / "pyaclnn")
    res = subprocess.run([sys.executable, str(tmp_path / "co" / "pyaclnn" / "_toolkit.py"), "prefix"],
                         capture_output=True, text=True)
    assert res.returncode == 1 and res.stdout == ""
    assert "make install" in res.stderr and "pip install" in res.stderr
    # an installed package that lost its tree
    (tmp_path / "site" / "pyaclnn").mkdir(parents=True)
    shutil.copy(os.path.join(REPO, "pyaclnn", "_toolkit.py"), tmp_path / "site" / "pyaclnn")
    res = subprocess.run([sys.executable, str(tmp_path / "site" / "pyaclnn" / "_toolkit.py"), "prefix"],
                         capture_output=True, text=True)
    assert res.returncode == 1 and "reinstall" in res.stderr
    # samples --prefix on something that is not a tree
    res = pyaclnn_cli("samples", "--prefix", str(tmp_path))
    assert res.returncode == 1 and b"not a pyaclnn toolkit tree" in res.stderr


# --------------------------------------------------------------------------------------------------- info
def test_info(tree):
    import pyaclnn
    res = pyaclnn_cli("info", env=clean_env(PYACLNN_SOC_NAME="Ascend310P3", OMP_NUM_THREADS="3"))
    assert res.returncode == 0, res.stderr
    out = res.stdout.decode()
    fields = dict(re.findall(r"^(\S[^:]*):\s+(.*)$", out, re.M))
    assert fields["version"] == pyaclnn.__version__
    assert os.path.realpath(fields["library"]) == os.path.realpath(pyaclnn.library_path)
    assert os.path.realpath(fields["toolkit tree"]) == os.path.realpath(PREFIX)
    assert fields["SoC"] == "Ascend310P3"
    assert fields["OpenMP threads"].split()[0] == "3"
    listed = re.findall(r"^  (acl\w+)\s+(\S+)$", out, re.M)
    assert sorted(op for op, _ in listed) == ops_inc()
    assert fields["ops"] == str(len(ops_inc()))
    for op, header in listed:
        text = open(os.path.join(PREFIX, "include", header)).read()
        assert f"{op}GetWorkspaceSize(" in text.replace(" (", "(")
    assert fields["SIMD level"].split()[0] in ("avx512", "avx2", "portable")
    variants = dict(re.findall(r"^  ([a-z_0-9]+)\s+(avx512|avx2|portable) ", out, re.M))
    assert {"upsample_nearest_bwd", "upsample_nearest_fwd", "msda", "gemm"} <= set(variants)


def test_info_simd_variants_follow_the_cap(tree):
    res = pyaclnn_cli("info", env=clean_env(PYACLNN_SIMD="avx2"))
    assert res.returncode == 0, res.stderr
    out = res.stdout.decode()
    assert re.search(r"^SIMD level:\s+(avx2|portable) \(capped by PYACLNN_SIMD\)", out, re.M), out
    variants = dict(re.findall(r"^  ([a-z_0-9]+)\s+(avx512|avx2|portable) ", out, re.M))
    assert "avx512" not in variants.values() and "upsample_nearest_bwd" in variants, out


def test_elf_exports_agree_with_nm(tree):
    from pyaclnn import _toolkit
    lib = os.path.join(PREFIX, "lib64", "libpyaclnn.so")
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    assert _toolkit.elf_exports(lib) == sorted(l.split()[-1] for l in nm.splitlines() if l.split()[1] in "TtiW")


# ----------------------------------------------------------------------------------------------------- cc
def test_cc_builds_a_sample_that_runs_directly(tree, tmp_path):
    stem = "003_e78a0648000420a1"
    exe = tmp_path / "up"
    res = pyaclnn_cli("cc", os.path.join(REPO, "samples", stem + ".cpp"), "-o", str(exe), "-v", "-O1")
    assert res.returncode == 0, res.stderr
    cmdline = res.stderr.decode()
    for part in ("-O1", f"-I{PREFIX}/include", f"-I{PREFIX}/include/aclnnop", f"-I{PREFIX}/include/aclnn",
                 f"-L{PREFIX}/lib64", f"-Wl,-rpath,{PREFIX}/lib64", "-lopapi", "-lnnopbase", "-lascendcl"):
        assert part in cmdline.split(), part
    run = subprocess.run([str(exe)], cwd="/", env=clean_env(), capture_output=True, timeout=120)
    assert run.returncode == 0 and run.stdout == expected(stem)


C_PROGRAM = r"""
#include <stdio.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d.h"
int main(void) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    printf("%s %d %s\n", GREETING, (int)aclInit(NULL), aclrtGetSocName());
    /* NULL self: CANN reports 161001 */
    printf("%d\n", (int)aclnnAvgPool2dGetWorkspaceSize(NULL, NULL, NULL, NULL, false, true, 0, 0, NULL, &ws, &ex));
    return 0;
}
"""


def test_cc_c_program_default_output_and_extra_args(tree, tmp_path):
    src = tmp_path / "probe.c"
    src.write_text(C_PROGRAM)
    res = pyaclnn_cli("cc", str(src), '-DGREETING="hello"', "-std=c11", "-v", cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    compiler = res.stderr.decode().split()[0]
    assert "++" not in compiler  # a C file gets the C compiler
    exe = tmp_path / "probe"  # default output: the source's stem, in the current directory
    run = subprocess.run([str(exe)], env=clean_env(PYACLNN_SOC_NAME="Ascend910B4"), capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0
    assert run.stdout.split("\n")[:2] == ["hello 0 Ascend910B4", "161001"]


def test_cc_errors(tree, tmp_path):
    res = pyaclnn_cli("cc")
    assert res.returncode == 2 and b"usage:" in res.stdout
    res = pyaclnn_cli("cc", "-O2")
    assert res.returncode == 1 and b"no C/C++ source or object file" in res.stderr
    res = pyaclnn_cli("cc", str(tmp_path / "missing.cpp"))
    assert res.returncode == 1 and b"no such file" in res.stderr
    bad = tmp_path / "bad.cpp"
    bad.write_text("int main() { return undeclared_name; }\n")
    res = pyaclnn_cli("cc", str(bad), "-o", str(tmp_path / "bad"))
    assert res.returncode != 0 and b"undeclared_name" in res.stderr and not (tmp_path / "bad").exists()


# ------------------------------------------------------------------------------------------------ samples
def test_samples_command(tree, tmp_path):
    res = pyaclnn_cli("samples", "--no-cmake", "--build-dir", str(tmp_path / "b"), cwd=str(tmp_path))
    out = res.stdout.decode()
    assert res.returncode == 0, out + res.stderr.decode()
    for stem in STEMS:
        assert re.search(rf"^{stem}\s+aclnn\w+\s+match \(cc build\)$", out, re.M), out
    assert f": {len(STEMS)}/{len(STEMS)}" in out
    # a changed expected value is reported and fails the command (a copy of the tree with one sample)
    t = tmp_path / "t"
    shutil.copytree(PREFIX, t, symlinks=True)
    for stem in STEMS[:4]:
        (t / "samples" / (stem + ".cpp")).unlink()
    lines = expected(STEMS[4]).split(b"\n")
    lines[7] = lines[7].replace(b"0.062500", b"0.062501")
    (t / "samples" / "expected" / (STEMS[4] + ".stdout")).write_bytes(b"\n".join(lines))
    res = pyaclnn_cli("samples", "--prefix", str(t), "--no-cmake", cwd=str(tmp_path))
    out = res.stdout.decode()
    assert res.returncode == 1
    assert re.search(rf"^{STEMS[4]}\s+aclnnAvgPool2dBackward\s+differs \(cc build, exit 0: 1 differing lines; "
                     r"first: out result\[7\] is: 0.062500\)$", out, re.M), out
    assert out.splitlines()[-1] == f"samples matching {t}/samples/expected: 0/1"


def test_cc_compile_only_then_link(tree, tmp_path):
    stem = "002_b646fc8d88ffb909"
    shutil.copy(os.path.join(REPO, "samples", stem + ".cpp"), tmp_path / "msda.cpp")
    res = pyaclnn_cli("cc", "msda.cpp", "-c", "-v", cwd=str(tmp_path))  # default output: msda.o
    assert res.returncode == 0 and (tmp_path / "msda.o").exists(), res.stderr
    assert b"-lopapi" not in res.stderr and b"warning" not in res.stderr
    res = pyaclnn_cli("cc", "msda.o", "-o", "linked", cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    run = subprocess.run([str(tmp_path / "linked")], env=clean_env(), capture_output=True, timeout=120)
    assert run.returncode == 0 and run.stdout == expected(stem)


# ------------------------------------------------------------------------------------------- install tree
def test_install_tree_carries_samples_and_site_packages(tree):
    names = [s + ".cpp" for s in STEMS] + ["CMakeLists.txt"]
    match, _, _ = filecmp.cmpfiles(os.path.join(REPO, "samples"), os.path.join(PREFIX, "samples"), names,
                                   shallow=False)
    assert match == names
    assert not filecmp.dircmp(EXPECTED, os.path.join(PREFIX, "samples", "expected")).diff_files
    site = os.path.join(PREFIX, "python", "site-packages")
    assert os.path.isdir(site)
    src = os.path.join(REPO, "tools", "site-packages")
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if f.endswith(".pyc"):
                continue
            rel = os.path.relpath(os.path.join(root, f), src)
            assert filecmp.cmp(os.path.join(src, rel), os.path.join(site, rel), shallow=False), rel


SHELLS = list({os.path.realpath(shutil.which(s)): s for s in ("zsh", "dash", "sh", "bash") if shutil.which(s)}.values())


@pytest.mark.parametrize("shell", SHELLS)
def test_set_env_locates_itself(tree, tmp_path, shell):
    copy = tmp_path / "moved" / "toolkit"
    shutil.copytree(PREFIX, copy, symlinks=True)
    (tmp_path / "link").symlink_to(copy)
    (tmp_path / "set_env_link.sh").symlink_to(copy / "set_env.sh")
    script = ('. "$1"; . "$1"; printf "%s\\n" "$ASCEND_HOME_PATH" "$ASCEND_CUSTOM_PATH" "$LD_LIBRARY_PATH" '
              '"$PYTHONPATH"')
    for path in (copy / "set_env.sh", tmp_path / "link" / "set_env.sh", tmp_path / "set_env_link.sh"):
        res = subprocess.run([shell, "-c", script, shell, str(path)], cwd="/", env=clean_env(LD_LIBRARY_PATH="/x"),
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stderr
        home, custom, ld, pp = res.stdout.split("\n")[:4]
        assert os.path.realpath(home) == os.path.realpath(copy), (path, home)  # not the install-time PREFIX
        assert custom == home
        assert ld == f"{home}/lib64:/x"  # sourced twice: added once
        assert pp.split(":")[0] == f"{home}/python/site-packages"


def test_set_env_relative_path_and_strict_bash(tree, tmp_path):
    shutil.copytree(PREFIX, tmp_path / "t", symlinks=True)
    script = "set -euo pipefail; cd t && source ./set_env.sh && cd / && echo $ASCEND_HOME_PATH"
    res = subprocess.run(["bash", "-c", script],
                         cwd=str(tmp_path), env=clean_env(), capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert os.path.realpath(res.stdout.strip()) == os.path.realpath(tmp_path / "t")


def test_set_env_without_tree_fails_cleanly(filter_tree, tmp_path):
    # a set_env.sh whose directory holds no tree and whose fallback is empty (the packaged flavour)
    shutil.copy(os.path.join(filter_tree, "set_env.sh"), tmp_path / "set_env.sh")
    res = subprocess.run(["bash", "-c", '. "$1"; echo "rc=$? home=${ASCEND_HOME_PATH:-}"', "bash",
                          str(tmp_path / "set_env.sh")], env=clean_env(), capture_output=True, text=True)
    assert res.stdout.strip() == "rc=1 home="
    assert "cannot locate" in res.stderr


PROBE_C = r"""
#include <stdio.h>
extern const char *aclrtGetSocName(void);
extern int aclInit(const char *);
int main(void) { printf("%d %s\n", aclInit(NULL), aclrtGetSocName()); return 0; }
"""

DLOPEN_PY = r"""
import ctypes, os, sys
lib64 = sys.argv[1]
real = ctypes.CDLL(os.path.join(lib64, "libpyaclnn.so"))
addr = lambda l, n: ctypes.cast(getattr(l, n), ctypes.c_void_p).value
for name in sys.argv[2:]:
    l = ctypes.CDLL(os.path.join(lib64, name))
    l.aclrtGetSocName.restype = ctypes.c_char_p
    assert addr(l, "aclInit") == addr(real, "aclInit"), name      # one copy of the library
    print(name, l.aclInit(None), l.aclrtGetSocName().decode())
"""


@pytest.mark.parametrize("flavour", ["symlinks", "filters"])
def test_alias_libraries_link_and_dlopen(tree, filter_tree, tmp_path, flavour):
    prefix = PREFIX if flavour == "symlinks" else filter_tree
    lib64 = os.path.join(prefix, "lib64")
    size = os.path.getsize(os.path.join(lib64, "libpyaclnn.so"))
    for name in ALIASES:
        path = os.path.join(lib64, name)
        if flavour == "symlinks":
            assert os.path.islink(path) and os.readlink(path) == "libpyaclnn.so"
        else:
            assert not os.path.islink(path) and os.path.isfile(path)
            assert os.path.getsize(path) < min(256 * 1024, size // 4)  # one stub per exported symbol (hundreds of ops)
    src = tmp_path / "probe.c"
    src.write_text(PROBE_C)
    for name in ALIASES:
        exe = tmp_path / ("probe_" + name)
        subprocess.run(["cc", str(src), "-o", str(exe), f"-L{lib64}", "-l" + name[3:-3], f"-Wl,-rpath,{lib64}"],
                       check=True, capture_output=True)
        run = subprocess.run([str(exe)], env=clean_env(PYACLNN_SOC_NAME="Ascend910B4"), capture_output=True,
                             text=True)
        assert run.returncode == 0 and run.stdout == "0 Ascend910B4\n", (name, run.stdout, run.stderr)
    res = subprocess.run([sys.executable, "-c", DLOPEN_PY, lib64, *ALIASES],
                         env=clean_env(PYACLNN_SOC_NAME="Ascend910B4"), capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    # aclInit once per process: the first alias initialises, every later one shares that state (100002)
    assert res.stdout.splitlines() == [f"{ALIASES[0]} 0 Ascend910B4"] + [f"{n} 100002 Ascend910B4"
                                                                         for n in ALIASES[1:]]


# ------------------------------------------------------------------------------------------- README (C/C++)
def readme_blocks():
    text = open(os.path.join(REPO, "README.md")).read()
    section = text.split("## C and C++ users", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```sh\n(.*?)^```", section, re.M | re.S)


def python_shim(tmp_path, python):
    """A PATH directory whose `python` (and `pip`) are the interpreter under test."""
    d = tmp_path / "shim"
    d.mkdir(exist_ok=True)
    for name, cmd in (("python", f'"{python}"'), ("pip", f'"{python}" -m pip')):
        (d / name).write_text(f'#!/bin/sh\nexec {cmd} "$@"\n')
        (d / name).chmod(0o755)
    return str(d)


def run_block(block, tmp_path, python=sys.executable, cwd=REPO, timeout=600, extra_env=None):
    env = clean_env(**(extra_env or {}))
    env["PATH"] = python_shim(tmp_path, python) + os.pathsep + env["PATH"]
    env["TMPDIR"] = str(tmp_path)  # for the blocks' mktemp
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], cwd=cwd, env=env, capture_output=True,
                          timeout=timeout)


def check_block_output(block, res):
    assert res.returncode == 0, (block, res.stdout.decode()[-2000:], res.stderr.decode()[-2000:])
    for stem in STEMS:
        if stem in block:
            assert expected(stem) in res.stdout, stem
    if "pyaclnn samples" in block:
        assert re.search(rb"samples matching .*: (\d)/\1$", res.stdout, re.M), res.stdout
        assert all(l.split()[2] == b"match" for l in res.stdout.splitlines() if l[:3].isdigit())


def test_readme_has_c_section_blocks():
    blocks = readme_blocks()
    assert len(blocks) >= 4
    assert sum("pip install" in b for b in blocks) == 1


@pytest.mark.parametrize("index", [i for i, b in enumerate(readme_blocks()) if "pip install" not in b])
def test_readme_c_section_block(tree, tmp_path, index):
    block = readme_blocks()[index]
    if "cmake" in block and not HAVE_CMAKE:
        pytest.skip("cmake not installed")
    check_block_output(block, run_block(block, tmp_path))


# ----------------------------------------------------------------------------------- wheel in a fresh venv
@slow
def test_wheel_from_sdist_in_fresh_venv(tmp_path):
    """sdist -> wheel (builds the library from scratch) -> a fresh venv -> `python -m pyaclnn samples` from outside
    the repository; then the README's pip block, as written, in the same venv. numpy/cffi come from the system
    site-packages; nothing is downloaded (hence no build isolation)."""
    try:
        import setuptools.command.bdist_wheel  # noqa: F401  (setuptools >= 70.1)
    except ImportError:
        pytest.importorskip("wheel.bdist_wheel", reason="needs setuptools >= 70.1 or the wheel package")
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
                    "b.build_sdist(sys.argv[1])", str(dist)], cwd=REPO, check=True, capture_output=True, timeout=300)
    sdist, = dist.glob("pyaclnn-*.tar.gz")
    offline = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps", "-w",
                    str(dist), str(sdist)], cwd=str(tmp_path), check=True, capture_output=True, env=offline,
                   timeout=900)
    wheel, = dist.glob("pyaclnn-*.whl")
    with zipfile.ZipFile(wheel) as z:
        infos = {i.filename: i for i in z.infolist()}
    lib64 = "pyaclnn/cann/lib64/"
    for name in ALIASES + ["libpyaclnn.so"]:
        info = infos[lib64 + name]
        assert (info.external_attr >> 16) & 0o170000 == 0o100000, name  # regular files, no symlinks
    assert infos[lib64 + "libpyaclnn.so"].file_size < 8 * 1024 * 1024  # stripped (about 2.8 MB with ~700 ops)
    for part in ("pyaclnn/cann/set_env.sh", "pyaclnn/cann/include/acl/acl.h", "pyaclnn/cann/samples/CMakeLists.txt",
                 f"pyaclnn/cann/samples/expected/{STEMS[0]}.stdout", "pyaclnn/__main__.py", "pyaclnn/_toolkit.py"):
        assert part in infos, part
    assert not any(n.startswith("pyaclnn/lib/") for n in infos)  # one copy of the library

    venv = tmp_path / "venv"
    # --without-pip: pip, setuptools, numpy and cffi all come from the system site-packages (a venv's seeded
    # setuptools may be too old to build a wheel without network access)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True,
                   timeout=300)
    py = str(venv / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True, env=offline,
                   timeout=300)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = clean_env()
    env.pop("PYACLNN_LIBRARY", None)  # the installed package's own library, whatever the suite runs against
    res = subprocess.run([py, "-m", "pyaclnn", "prefix"], cwd=str(outside), env=env, capture_output=True, text=True)
    prefix = res.stdout.strip()
    assert res.returncode == 0 and prefix.startswith(str(venv)) and prefix.endswith("pyaclnn/cann"), res
    res = subprocess.run([py, "-m", "pyaclnn", "samples"], cwd=str(outside), env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"{len(STEMS)}/{len(STEMS)}" in res.stdout
    res = subprocess.run([py, "-c", "import pyaclnn; print(pyaclnn.library_path)"], cwd=str(outside), env=env,
                         capture_output=True, text=True)
    assert res.stdout.strip() == os.path.join(prefix, "lib64", "libpyaclnn.so")

    # the README's pip block, as written, with this venv's python and pip (in-tree `pip install .`)
    if not HAVE_CMAKE:
        return
    block, = [b for b in readme_blocks() if "pip install" in b]
    check_block_output(block, run_block(block, tmp_path, python=py, timeout=900,
                                        extra_env={"PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
                                                   "PIP_DISABLE_PIP_VERSION_CHECK": "1"}))
