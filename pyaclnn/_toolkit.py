"""The command line (`python -m pyaclnn ...`) and the CANN-shaped toolkit tree it serves.

Commands: ``prefix`` (path of the tree), ``info`` (version, library, SoC, OpenMP threads, ops), ``cc`` (compile
and link a CANN C/C++ program against the tree, rpath set), ``samples`` (build the bundled doc samples with ``cc``
and with the docs' CMake file, run them, compare stdout with the expected output).

This module uses only the standard library and imports the rest of the package only for ``info``, so the
Makefile runs it as a script (``python3 pyaclnn/_toolkit.py samples ...``) on a machine without cffi/numpy.
The tree is the one shipped inside the package (``pyaclnn/cann``, made by ``pip install``) or, in a source
checkout, ``build/cann`` (made by ``make install``).
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile

PKG = pathlib.Path(__file__).resolve().parent
LIBNAME = "libpyaclnn.so"
# Link line of `cc`: the aggregate op library and the two runtime libraries, as the docs' CMake files link them.
LINK_LIBS = ["opapi", "nnopbase", "ascendcl"]
C_SUFFIXES = (".c",)
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".cp", ".CPP")
OBJECT_SUFFIXES = (".o", ".a", ".so")
RUN_TIMEOUT = 120


class ToolkitError(Exception):
    """A user-facing failure: printed as `pyaclnn: <message>`, exit status 1."""


# ---------------------------------------------------------------------------------------------------- the tree
def _is_tree(path):
    return (path / "lib64" / LIBNAME).exists() and (path / "include" / "acl").is_dir()


def find_prefix():
    """The CANN-shaped tree: pyaclnn/cann when installed, else build/cann (`make install`) or build/pip/cann
    (`pip install .`) in a source checkout."""
    packaged = PKG / "cann"
    if _is_tree(packaged):
        return packaged
    repo = PKG.parent
    if (repo / "libsrc").is_dir() and (repo / "Makefile").exists():
        built = repo / "build" / "cann"
        for tree in (built, repo / "build" / "pip" / "cann"):
            if _is_tree(tree):
                return tree
        raise ToolkitError(f"no CANN-shaped tree in this source checkout ({built} is missing): run `make install` "
                           "in " + str(repo) + ", or `pip install " + str(repo) + "`")
    raise ToolkitError(f"the toolkit tree shipped with the package is missing ({packaged}): reinstall pyaclnn")


def _prefix_arg(value):
    if value is None:
        return find_prefix()
    path = pathlib.Path(value).resolve()
    if not _is_tree(path):
        raise ToolkitError(f"{value} is not a pyaclnn toolkit tree (no lib64/{LIBNAME} or include/acl)")
    return path


def toolkit_env(prefix, base=None):
    """The environment `source <prefix>/set_env.sh` gives (for running programs built without an rpath)."""
    env = dict(os.environ if base is None else base)
    root = str(prefix)
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_CUSTOM_PATH", "ASCEND_AICPU_PATH"):
        env[var] = root
    env["ASCEND_OPP_PATH"] = os.path.join(root, "opp")
    for var, sub in (("LD_LIBRARY_PATH", "lib64"), ("PYTHONPATH", "python/site-packages"), ("PATH", "bin")):
        d = os.path.join(root, sub)
        parts = [p for p in env.get(var, "").split(os.pathsep) if p]
        if d not in parts:
            env[var] = os.pathsep.join([d] + parts)
    return env


# ------------------------------------------------------------------------------------------ exported symbols
def elf_exports(path):
    """Names of the functions a shared object exports (defined STT_FUNC/GNU_IFUNC symbols in .dynsym)."""
    data = pathlib.Path(path).read_bytes()
    if data[:4] != b"\x7fELF":
        raise ToolkitError(f"{path} is not an ELF file")
    is64, endian = data[4] == 2, "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(endian + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(endian + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x2E)
    sections = []
    for i in range(shnum):
        off = shoff + i * shentsize
        if is64:
            _, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, sh_entsize = struct.unpack_from(
                endian + "IIQQQQIIQQ", data, off)
        else:
            _, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, sh_entsize = struct.unpack_from(
                endian + "IIIIIIIIII", data, off)
        sections.append((sh_type, sh_offset, sh_size, sh_link, sh_entsize))
    names = []
    for sh_type, sh_offset, sh_size, sh_link, sh_entsize in sections:
        if sh_type != 11:  # SHT_DYNSYM
            continue
        str_off = sections[sh_link][1]
        for off in range(sh_offset + sh_entsize, sh_offset + sh_size, sh_entsize):  # entry 0 is the null symbol
            if is64:
                st_name, st_info, _, st_shndx = struct.unpack_from(endian + "IBBH", data, off)
            else:
                st_name, _, _, st_info, _, st_shndx = struct.unpack_from(endian + "IIIBBH", data, off)
            if st_shndx == 0 or (st_info & 0xF) not in (2, 10) or (st_info >> 4) not in (1, 2):
                continue  # undefined, not a function, or local
            end = data.index(b"\0", str_off + st_name)
            names.append(data[str_off + st_name:end].decode())
    return sorted(names)


def ops_available(library):
    """The aclnn operators a library exports: every aclnnXxx with both aclnnXxxGetWorkspaceSize and aclnnXxx."""
    exported = set(elf_exports(library))
    suffix = "GetWorkspaceSize"
    return sorted(n[:-len(suffix)] for n in exported
                  if n.startswith("acl") and n.endswith(suffix) and n[:-len(suffix)] in exported)


def op_headers(prefix):
    """{op name: header path relative to include/} from the tree's aclnnop headers."""
    found = {}
    for h in sorted((pathlib.Path(prefix) / "include" / "aclnnop").glob("*.h")):
        for name in re.findall(r"\b(acl\w+)GetWorkspaceSize\s*\(", h.read_text(errors="replace")):
            found.setdefault(name, "aclnnop/" + h.name)
    return found


# ------------------------------------------------------------------------------------------------------- cc
def _compiler(cplusplus):
    var, names = ("CXX", ("c++", "g++", "clang++")) if cplusplus else ("CC", ("cc", "gcc", "clang"))
    if os.environ.get(var):
        return os.environ[var].split()
    for n in names:
        if shutil.which(n):
            return [n]
    raise ToolkitError(f"no {'C++' if cplusplus else 'C'} compiler found (set {var})")


def cc_command(prefix, sources, output, extra=(), cplusplus=None):
    """The compiler line that builds `sources` (+ extra arguments) against the tree, rpath set to its lib64."""
    prefix = pathlib.Path(prefix)
    if cplusplus is None:  # objects only: link as C++ (harmless for C objects)
        cplusplus = any(not str(s).endswith(C_SUFFIXES) for s in sources)
    inc, lib64 = prefix / "include", prefix / "lib64"
    cmd = (_compiler(cplusplus) + [str(s) for s in sources] + list(extra)
           + [f"-I{inc}", f"-I{inc / 'aclnnop'}", f"-I{inc / 'aclnn'}", "-o", str(output)])
    if not {"-c", "-S", "-E"} & set(extra):  # linking
        cmd += [f"-L{lib64}", f"-Wl,-rpath,{lib64}"] + [f"-l{name}" for name in LINK_LIBS]
    return cmd


def _split_cc_args(argv):
    """cc's own options (-o OUT, -v, --prefix DIR) apart from sources and compiler arguments (passed through)."""
    sources, extra, output, verbose, prefix = [], [], None, False, None
    it = iter(argv)
    for a in it:
        if a == "-o":
            output = next(it, None)
            if output is None:
                raise ToolkitError("cc: -o needs a file name")
        elif a.startswith("-o") and len(a) > 2:
            output = a[2:]
        elif a in ("-v", "--verbose"):
            verbose = True
        elif a == "--prefix":
            prefix = next(it, None)
            if prefix is None:
                raise ToolkitError("cc: --prefix needs a directory")
        elif a.startswith("--prefix="):
            prefix = a.split("=", 1)[1]
        elif not a.startswith("-") and a.endswith(SOURCE_SUFFIXES + OBJECT_SUFFIXES):
            sources.append(a)  # sources and objects, in order
        else:
            extra.append(a)
    return sources, extra, output, verbose, prefix


CC_HELP = """usage: python -m pyaclnn cc FILE.cpp|FILE.c|FILE.o [FILE ...] [-o OUT] [-v] [--prefix DIR] [compiler args]

Compile and link a CANN C/C++ program against the emulated toolkit. Adds -I include -I include/aclnnop
-I include/aclnn, -L lib64, -Wl,-rpath,lib64 and -l{libs}, so the program runs directly
(no set_env.sh needed). C++ sources use $CXX (default c++), C-only programs $CC (default cc). OUT defaults
to the first file's name without its suffix (with -c: .o), in the current directory. Other arguments (-O2,
-DNAME, -lm, -c, ...) go to the compiler unchanged. -v prints the compiler line. --prefix DIR uses another
toolkit tree. Exit status: the compiler's.
""".format(libs=" -l".join(LINK_LIBS))


def cmd_cc(argv):
    if not argv or any(a in ("-h", "--help") for a in argv):
        print(CC_HELP, end="")
        return 0 if argv else 2
    sources, extra, output, verbose, prefix = _split_cc_args(argv)
    if not sources:
        raise ToolkitError("cc: no C/C++ source or object file given (" + ", ".join(SOURCE_SUFFIXES + OBJECT_SUFFIXES)
                           + ")")
    for s in sources:
        if not os.path.isfile(s):
            raise ToolkitError(f"cc: {s}: no such file")
    prefix = _prefix_arg(prefix)
    if output is None:
        stem = os.path.splitext(os.path.basename(sources[0]))[0]
        output = stem + (".o" if "-c" in extra else "")
    cmd = cc_command(prefix, sources, output, extra)
    if verbose:
        print(" ".join(cmd), file=sys.stderr)
    try:
        return subprocess.call(cmd)
    except OSError as exc:
        raise ToolkitError(f"cc: cannot run {cmd[0]}: {exc}") from None


# -------------------------------------------------------------------------------------------------- samples
def sample_op(source):
    m = re.search(r"(aclnn\w+?)GetWorkspaceSize", pathlib.Path(source).read_text(errors="replace"))
    return m.group(1) if m else "?"


def _build_cc(prefix, src, out_dir):
    exe = out_dir / src.stem
    log = out_dir / (src.stem + ".log")
    exe.unlink(missing_ok=True)
    with open(log, "w") as f:
        cmd = cc_command(prefix, [src], exe)
        f.write(" ".join(cmd) + "\n")
        f.flush()
        subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    return exe if exe.exists() else None


def _build_cmake(prefix, sample_dir, out_dir, jobs, cmake):
    """The docs' way: cmake <samples> -DCMAKE_CXX_COMPILER=... -DCMAKE_SKIP_RPATH=TRUE && make."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    env = dict(os.environ, ASCEND_CUSTOM_PATH=str(prefix))
    cxx = _compiler(True)
    with open(out_dir / "cmake.log", "w") as f:
        rc = subprocess.call([cmake, str(sample_dir), f"-DCMAKE_CXX_COMPILER={cxx[0]}", "-DCMAKE_SKIP_RPATH=TRUE"],
                             cwd=out_dir, env=env, stdout=f, stderr=subprocess.STDOUT)
    if rc == 0:
        cache = (out_dir / "CMakeCache.txt").read_text(errors="replace")
        keep_going = ["--", "-k"] if "CMAKE_GENERATOR:INTERNAL=Unix Makefiles" in cache else []
        with open(out_dir / "build.log", "w") as f:
            subprocess.call([cmake, "--build", ".", "-j", str(jobs)] + keep_going, cwd=out_dir, env=env, stdout=f,
                            stderr=subprocess.STDOUT)
    return out_dir / "bin"


def _run(exe, env):
    try:
        res = subprocess.run([str(exe)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             timeout=RUN_TIMEOUT)
        return res.returncode, res.stdout, res.stderr
    except subprocess.TimeoutExpired as exc:
        return "timeout", exc.stdout or b"", b"timed out after %d s" % RUN_TIMEOUT


def compare_output(expected, rc, out, err):
    """'' when the run matches (exit 0 and stdout byte for byte), else a one-line description of the difference."""
    if rc == 0 and out == expected:
        return ""
    exp_lines, out_lines = expected.decode(errors="replace").splitlines(), out.decode(errors="replace").splitlines()
    ndiff = sum(1 for a, b in zip(exp_lines, out_lines) if a != b) + abs(len(exp_lines) - len(out_lines))
    first = next((b for a, b in zip(exp_lines, out_lines) if a != b), None)
    if first is None and len(out_lines) > len(exp_lines):
        first = out_lines[len(exp_lines)]
    if first is None:
        first = err.decode(errors="replace").strip()[:120] or (
            "output ends early" if len(out_lines) < len(exp_lines) else "bytes differ")
    return f"exit {rc}: {ndiff} differing lines; first: {first}"


def cmd_samples(args):
    prefix = _prefix_arg(args.prefix)
    sample_dir = prefix / "samples"
    sources = sorted(sample_dir.glob("*.cpp"))
    if not sources:
        raise ToolkitError(f"no samples in {sample_dir}")
    expected_dir = pathlib.Path(args.expected) if args.expected else sample_dir / "expected"
    cmake = None if args.no_cmake else shutil.which("cmake")
    variants = (["cmake"] if cmake else []) + ([] if args.no_cc else ["cc"])
    if not variants:
        raise ToolkitError("nothing to build: cmake not found and --no-cc given" if not args.no_cmake
                           else "nothing to build: --no-cmake and --no-cc given")
    jobs = max(1, args.jobs or min(4, os.cpu_count() or 1))
    tmp = None
    if args.build_dir:
        build = pathlib.Path(args.build_dir).resolve()
    else:
        build = pathlib.Path(tempfile.mkdtemp(prefix="pyaclnn-samples-"))
        tmp = build
    try:
        exes = {v: {} for v in variants}
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {}
            if "cc" in variants:
                (build / "cc").mkdir(parents=True, exist_ok=True)
                for src in sources:
                    futures[pool.submit(_build_cc, prefix, src, build / "cc")] = src.stem
            if "cmake" in variants:
                bindir = _build_cmake(prefix, sample_dir, build / "cmake", jobs, cmake)
                for src in sources:
                    exe = bindir / ("sample_" + src.stem)
                    exes["cmake"][src.stem] = exe if exe.exists() else None
            for fut, stem in futures.items():
                exes["cc"][stem] = fut.result()
        run_env = toolkit_env(prefix)  # after `source set_env.sh`; cc builds also run without it (rpath)
        n_match = 0
        for src in sources:
            stem, op = src.stem, sample_op(src)
            exp_path = expected_dir / (stem + ".stdout")
            status, detail = "match", " + ".join(("CMake" if v == "cmake" else "cc") + " build" for v in variants)
            if not exp_path.exists():
                status, detail = "no expected output", f"{exp_path} missing"
            else:
                expected = exp_path.read_bytes()
                for v in variants:
                    exe = exes[v][stem]
                    if exe is None:
                        log = build / ("cmake/build.log" if v == "cmake" else f"cc/{stem}.log")
                        status, detail = "does not build", f"{v} build failed: see {log}"
                        break
                    rc, out, err = _run(exe, run_env if v == "cmake" else None)
                    if args.show and v == variants[0]:
                        print(f"---- {stem} ({op}), exit {rc} ----")
                        sys.stdout.write(out.decode(errors="replace"))
                    diff = compare_output(expected, rc, out, err)
                    if diff:
                        status, detail = "differs", f"{v} build, {diff}"
                        break
            n_match += status == "match"
            print(f"{stem:<22} {op:<38} {status} ({detail})")
        print(f"samples matching {expected_dir}: {n_match}/{len(sources)}")
        if args.build_dir:
            print(f"builds and logs in {build}")
        return 0 if n_match == len(sources) else 1
    finally:
        if tmp is not None and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------------------------------- info
def _openmp_threads():
    """omp_get_max_threads() of the OpenMP runtime the library loaded (found in /proc/self/maps)."""
    import ctypes
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if re.search(r"/lib(gomp|omp|iomp5)[.-]", line)}
        for p in sorted(paths):
            return int(ctypes.CDLL(p).omp_get_max_threads()), os.path.basename(p)
    except (OSError, AttributeError):
        pass
    return None, None


# Runs one large call of each calibrated kernel family (libsrc/common/cpu.h) in a fresh interpreter with
# PYACLNN_SIMD_REPORT=1; the library then prints its SIMD level and the variant of every family to stderr.
_SIMD_PROBE = r"""
import numpy as np, pyaclnn
g = np.zeros((4, 32, 128, 96), np.float32)
pyaclnn.upsample_nearest_exact2d_backward(g, (128, 96), (4, 32, 64, 64), (0.0, 0.0))
pyaclnn.upsample_nearest_exact2d(np.zeros((4, 32, 64, 64), np.float32), (96, 96))
"""


def simd_variants():
    """[(family, variant and how it was chosen)] as the library reports them in a fresh process."""
    import subprocess
    env = dict(os.environ, PYACLNN_SIMD_REPORT="1")
    env["PYTHONPATH"] = str(PKG.parent) + os.pathsep + env.get("PYTHONPATH", "")
    try:
        res = subprocess.run([sys.executable, "-c", _SIMD_PROBE], env=env, capture_output=True, text=True,
                             timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        return [("simd", f"unknown ({exc})")]
    rows = []
    for line in res.stderr.splitlines():
        m = re.match(r"pyaclnn simd: (\S+) (?:-> )?(.*)", line)
        if m:
            rows.append((m.group(1), m.group(2)))
    return rows


def cmd_info(args):
    import pyaclnn  # loads the library
    rows = [("version", pyaclnn.__version__), ("library", pyaclnn.library_path)]
    try:
        prefix = find_prefix()
        rows.append(("toolkit tree", str(prefix)))
    except ToolkitError as exc:
        prefix = None
        rows.append(("toolkit tree", f"none ({exc})"))
    rows.append(("SoC", pyaclnn.soc_name()))
    threads, runtime = _openmp_threads()
    rows.append(("OpenMP threads", f"{threads} ({runtime})" if threads else
                 f"unknown (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')})"))
    ops = ops_available(pyaclnn.library_path)
    headers = op_headers(prefix) if prefix else {}
    for fam, what in simd_variants():
        rows.append(("SIMD " + fam if fam == "level" else "  " + fam, what))
    rows.append(("ops", str(len(ops))))
    for k, v in rows:
        print(f"{k + ':':<16}{v}" if not k.startswith("  ") else f"{k:<24}{v}")
    width = max([44] + [len(op) + 2 for op in ops])  # a column wide enough for the longest name
    for op in ops:
        print(f"  {op:<{width}}{headers.get(op, '')}")
    return 0


# ----------------------------------------------------------------------------------------------------- main
def _version():
    try:
        text = (PKG / "__init__.py").read_text()
    except OSError:
        return "unknown"
    m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)", text, re.M)
    return m.group(1) if m else "unknown"


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m pyaclnn",
        description="pyaclnn: a CPU emulator of Huawei CANN's acl/aclnn C API. Commands for the emulated toolkit.",
        epilog="C/C++ users: `source $(python -m pyaclnn prefix)/set_env.sh`, then build as the CANN docs say "
               "(their CMake files use $ASCEND_CUSTOM_PATH), or `python -m pyaclnn cc prog.cpp`.")
    p.add_argument("--version", action="version", version=f"pyaclnn {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("prefix", help="print the path of the CANN-shaped toolkit tree (for ASCEND_CUSTOM_PATH, "
                                  "set_env.sh)", description="Print the path of the CANN-shaped toolkit tree.")
    sub.add_parser("info", help="version, library path, SoC name, OpenMP threads, the ops available",
                   description="Print the version, library path, toolkit tree, SoC name, OpenMP threads and the "
                               "aclnn ops the library exports.")
    sub.add_parser("cc", help="compile and link a CANN C/C++ program against the emulator (rpath set): "
                              "cc FILE.cpp [-o OUT] [compiler args]", add_help=False)
    s = sub.add_parser("samples", help="build the bundled doc samples (cc and CMake), run them, compare stdout with "
                                       "the expected output",
                       description="Build the doc samples shipped in the toolkit tree with `cc` and (if cmake is "
                                   "installed) with the docs' CMake file, run them, compare their stdout byte for "
                                   "byte with the expected output; exit status 1 on any mismatch.")
    s.add_argument("--prefix", help="toolkit tree (default: `python -m pyaclnn prefix`)")
    s.add_argument("--expected", help="directory of <sample>.stdout files (default: PREFIX/samples/expected)")
    s.add_argument("--build-dir", help="keep builds and logs here (default: a temporary directory)")
    s.add_argument("--keep", action="store_true", help="keep the temporary build directory")
    s.add_argument("--no-cmake", action="store_true", help="skip the CMake build")
    s.add_argument("--no-cc", action="store_true", help="skip the cc build")
    s.add_argument("--show", action="store_true", help="print each sample's output")
    s.add_argument("-j", "--jobs", type=int, default=0, help="parallel builds (default: min(4, CPUs))")
    return p


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "cc":  # its arguments go to the compiler: no argparse
            return cmd_cc(argv[1:])
        parser = _parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        if args.command == "prefix":
            print(find_prefix())
            return 0
        if args.command == "info":
            return cmd_info(args)
        return cmd_samples(args)
    except ToolkitError as exc:
        print(f"pyaclnn: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `python -m pyaclnn info | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
