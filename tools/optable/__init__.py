"""The op table: one declarative entry per public aclnn operator.

Each family file in this package (``tools/optable/<family>.py``) defines ``OPS``, a list of :class:`Op`.
``tools/gen_ops.py`` turns the table into every file that would otherwise be written once per op: the public
headers (``include/aclnnop/``), the op list (``libsrc/ops/ops.inc``), the second phase of every op and the whole
first phase of table-driven families (``libsrc/ops/gen/``), and the test/Python metadata
(``pyaclnn/_optable.py``). Tests read the same table (``tests/ops/test_table_*.py``).

An entry holds
  name      the op without the ``aclnn`` prefix ("Add", "InplaceAdd")
  prefix    the prefix of its C symbols: "aclnn" (default) or "acl" (aclStft, aclRfft1D)
  args      the first phase's C parameters in API order, as the real header writes them (without
            workspaceSize/executor); the argument kinds are read off the C types
  header    the header that declares it, as the real toolkit groups ops (``aclnn_add.h``)
  lib       the library it belongs to: math, nn, cv (all resolve to libpyaclnn.so)
  family    "custom": the first phase is hand-written in ``libsrc/ops/<file>.c``;
            "elementwise": generated entirely from the fields below (libsrc/ops/elementwise.c is the engine)
Elementwise fields
  dtypes    the ASCEND910B dtype support list of the tensor inputs (API order is the check order); for a
            hand-written op its main list, available to the C code as ACL_DT_LIST_<Name> (ops/gen/all_ops.h),
            to the tests as pyaclnn._optable.OPS[name]["dtypes"] and listed in docs/OPS.md
  formula   the scalar formula, a C expression over inputs a, b, c and scalars s0, s1 (in the compute type; the
            scalar-like arguments - aclScalar* and int64_t/double/float/bool attributes - in API order);
            a str (all compute classes) or a dict {"f": float classes, "i": int64 class, "c": complex classes}
  compute   "same": compute in the promoted dtype; "float": int/bool inputs are computed (and returned) as float32
  result    "promote" (the result dtype is the compute dtype), "bool" (comparisons, predicates) or "real"
            (a complex compute type gives its real counterpart: abs, angle)
  out_rule  "cast" (out may be any dtype the result can be cast to), "same" (out dtype == result dtype),
            "list" (out dtype must be in dtypes too)
  scalar_promote  which aclScalar arguments take part in the promotion as PyTorch's wrapped numbers do: True (all),
            False (none: e.g. Add's alpha only has to be castable to the tensors' promoted dtype), or a tuple of names
  check     the name of an op-specific C hook ``aclnnStatus hook(ew_ctx *c)`` run at the 'h' stage of `order`
            (declared in ``libsrc/ops/ew_<family>.h``, which the generated family file includes), or None
  torch     the oracle for the generated tests: a Python expression over a, b, c, s0, s1 and ``torch``
  optional  names of aclScalar arguments that may be NULL (S_HAS(k) in the formula tells)
  scalar_cast_check  False: aclScalar arguments are converted to the compute dtype without the can-cast check
            (clamp-like ops take a float bound for an integer tensor)
  out_dtypes  with out_rule "list": the dtypes `out` may have (default: dtypes)
  inout     the argument an Inplace op writes, when the header declares it const (default: its aclTensor*)
  arg_dtypes  {name: dtypes}: a tensor (or aclScalar) argument's own support list (a bool mask, a condition; for a
            hand-written op ACL_DT_LIST_<Name>_<name>)
  no_promote  tensor arguments that do not take part in the promotion (where's condition, masked_fill's mask)
  order     the check stages after the NULL checks, in the op_api's order (default "dpfsh"): d dtype lists (tensor
            inputs, aclScalar lists, same_dtype, out's list), p promotion and the result -> out rule, f format rules,
            s shapes (rank, broadcast, out's shape), h the check hook, e the early empty return (any tensor input
            empty -> a no-op executor before the later stages; an empty out always ends in one)
  formats   storage-format rules, in order: "a=b" (same format) or "!a" (not a private format such as NC1HWC0/NZ)
  null_code "inner" (every NULL gives ACLNN_ERR_INNER_NULLPTR 561103) or the names that give it
  need_one  optional aclScalar names of which at least one must be given (161001)
  scalar_dtypes  True (the op's list) or a list every aclScalar's dtype must be in (arg_dtypes may name a scalar)
  scalar_mode  how the promoting scalars join: "wrapped" (PyTorch's wrapped numbers, default), "full"
            (PromoteType with the scalar's dtype), "float" (only a floating scalar promotes)
  scalar_cast_check  True / False / the aclScalar names that must cast to the compute dtype
  promoted  the list the promoted dtype must be in
  promote   a C hook (ew_ctx *) setting the promoted dtype (c->pdt) and, when the op computes in another dtype
            than the one its checks use, the compute dtype (c->kdt)
  same_dtype  tensor arguments that must have the first tensor input's dtype
  rank      8 (default), None (no limit: the tensors are coalesced to at most 8 dims) or "contig" (the limit only
            for a non-contiguous tensor)
  compute   also "out": computed in out's dtype (every tensor input must cast to it)
  vec       True: the fp32 class computes in fp32 over libsrc/kernels/vmath.h (exp, erf, tanh, log1p, fmin, fmax
            as branch-free polynomials), compiled once per SIMD level from one body (tools/gen_ops.py turns the "f"
            formula's literals into float ones and its functions into vm_*; a formula dict's "f32" entry replaces
            it, e.g. to call the gelu_math.h helpers, or is a tuple (loop-invariant condition over the scalars, then,
            else): one loop per branch); the double class keeps libm
  out_rule  also "any": no engine rule for out's dtype (the hook checks it)
  domain, scalars, skip_dtypes, skip_special, input_dtypes, out_dtype, bad_dtype, no_bcast: test-only hints
            (tests/ops/table_harness.py, test_table_elementwise.py)
"""
import importlib
import pkgutil
import re

# aclDataType names (include/acl/acl_base.h) by short name
DT = {
    "f32": "ACL_FLOAT", "f16": "ACL_FLOAT16", "bf16": "ACL_BF16", "f64": "ACL_DOUBLE",
    "i8": "ACL_INT8", "i16": "ACL_INT16", "i32": "ACL_INT32", "i64": "ACL_INT64", "u8": "ACL_UINT8",
    "bool": "ACL_BOOL", "c64": "ACL_COMPLEX64", "c128": "ACL_COMPLEX128",
    "u16": "ACL_UINT16", "u32": "ACL_UINT32", "u64": "ACL_UINT64", "c32": "ACL_COMPLEX32",
}
FLOAT = ("f32", "f16", "bf16")
REAL_FLOAT = ("f32", "f16", "bf16", "f64")
INT = ("i8", "i16", "i32", "i64", "u8")
COMPLEX = ("c64", "c128")
ALL = REAL_FLOAT + INT + ("bool",) + COMPLEX

KINDS = {
    "const aclTensor*": "tensor", "aclTensor*": "out", "const aclScalar*": "scalar", "aclScalar*": "scalar",
    "const aclIntArray*": "intarray", "aclIntArray*": "intarray", "const aclFloatArray*": "floatarray", "aclFloatArray*": "floatarray",
    "const aclBoolArray*": "boolarray", "const aclTensorList*": "tensorlist", "aclTensorList*": "outlist",
    "const aclScalarList*": "scalarlist", "bool": "bool", "const bool": "bool", "int64_t": "int",
    "const int64_t": "int", "int32_t": "int", "const int32_t": "int", "int": "int", "int8_t": "int",
    "const int8_t": "int", "uint64_t": "int", "double": "double", "const double": "double", "float": "float",
    "const float": "float", "const char*": "str", "char*": "str", "aclDataType": "dtype",
    "const aclDataType": "dtype", "int64_t*": "outint", "uint64_t*": "outint", "bool*": "outbool",
}


class Arg:
    def __init__(self, text):
        text = " ".join(text.split())
        m = re.match(r"^(.*?[\s*&])(\w+)$", text)
        if not m:
            raise ValueError(f"cannot parse argument {text!r}")
        self.text = text
        self.ctype = re.sub(r"\s*\*\s*", "*", m.group(1).strip())
        self.name = m.group(2)
        if self.ctype not in KINDS:
            raise ValueError(f"unknown argument type {self.ctype!r} in {text!r}")
        self.kind = KINDS[self.ctype]


class Op:
    def __init__(self, name, args, header, lib="math", family="custom", dtypes=None, formula=None,
                 compute="same", result="promote", out_rule="cast", scalar_promote=True, check=None, torch=None,
                 inplace=None, test=True, note=None, prefix="aclnn", **extra):
        self.name = name
        self.prefix = prefix  # the C symbols are <prefix><name>[GetWorkspaceSize]: aclnnAdd, aclStft
        self.args_text = " ".join(args.split())
        self.args = [Arg(a) for a in split_args(self.args_text)]
        self.header = header
        self.lib = lib
        self.family = family
        self.dtypes = tuple(dtypes or ())
        self.formula = formula
        self.compute = compute
        self.result = result
        self.out_rule = out_rule
        self.scalar_promote = scalar_promote
        self.check = check
        self.torch = torch
        self.test = test
        self.note = note
        self.extra = extra
        if "out" in extra:  # an output the real header declares const (aclnnLog2's `const aclTensor* out`)
            outs = extra["out"] if isinstance(extra["out"], (tuple, list)) else (extra["out"],)
            for a in self.args:
                if a.name in outs:
                    a.kind = "out"
        # in-place ops: the tensor argument that is both read and written (aclTensor* selfRef)
        self.inplace = inplace if inplace is not None else name.startswith("Inplace")
        if self.inplace and family == "elementwise":  # another non-const tensor of an Inplace op is an input
            io = self.inout_name()
            for a in self.args:
                if a.kind == "out" and a.name != io:
                    a.kind = "tensor"
        for d in self.dtypes:
            if d not in DT:
                raise ValueError(f"{name}: unknown dtype {d}")
        if family == "elementwise":
            if formula is None:
                raise ValueError(f"{name}: an elementwise op needs a formula")
            outs = [a for a in self.args if a.kind == "out"]
            if len(outs) != 1 and not (self.inplace and not outs):
                raise ValueError(f"{name}: an elementwise op has exactly one aclTensor* (out or selfRef)")

    @property
    def sym(self):
        """The C symbol of the second phase ("aclnnAdd"; "aclStft" for the acl-prefixed interfaces)."""
        return self.prefix + self.name

    def inout_name(self):
        """The argument an in-place op reads and writes: `inout=` or its aclTensor* (some real headers declare it
        const aclTensor* selfRef), else None."""
        if not self.inplace:
            return None
        if "inout" in self.extra:
            return self.extra["inout"]
        outs = [a.name for a in self.args if a.kind == "out"]
        return outs[0] if outs else next(a.name for a in self.args if a.kind == "tensor")

    @property
    def tensor_ins(self):
        return [a for a in self.args if a.kind == "tensor"]

    @property
    def scalars(self):
        """The scalar-like arguments (aclScalar and plain number attributes), s0, s1, ... of the formula."""
        return [a for a in self.args if a.kind in ("scalar", "int", "double", "float", "bool")]


def split_args(text):
    return [a.strip() for a in text.split(",") if a.strip()]


def families():
    """The family module names of this package, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load(family=None):
    """Every Op of the table (or of one family), in family order then file order; names are unique."""
    ops, seen = [], {}
    for fam in families() if family is None else [family]:
        mod = importlib.import_module(f"{__name__}.{fam}")
        for op in mod.OPS:
            if op.name in seen:
                raise ValueError(f"op {op.name} is listed in {seen[op.name]} and {fam}")
            seen[op.name] = fam
            op.table = fam
            ops.append(op)
    return ops


# ---- helpers for the family files: the X / Xs / InplaceX / InplaceXs groups the real headers declare ----

def ew(name, args, header, **kw):
    return Op(name, args, header, family="elementwise", **kw)
