"""ABI: exported symbols == declared functions, enum/status values == SPEC, headers valid C11/C++11/C++17,
the generated cdef is current, every library name of the install tree resolves its symbols."""
import os
import re
import subprocess
import sys

import pytest

from helpers import REPO

LIB = os.path.join(REPO, "build", "lib", "libpyaclnn.so")
INC = os.path.join(REPO, "include")

# Values from SPEC §1.3 / §1.4 (independent of our headers).
SPEC_VALUES = {
    "ACL_DT_UNDEFINED": -1, "ACL_FLOAT": 0, "ACL_FLOAT16": 1, "ACL_INT8": 2, "ACL_INT32": 3, "ACL_UINT8": 4,
    "ACL_INT16": 6, "ACL_UINT16": 7, "ACL_UINT32": 8, "ACL_INT64": 9, "ACL_UINT64": 10, "ACL_DOUBLE": 11,
    "ACL_BOOL": 12, "ACL_STRING": 13, "ACL_COMPLEX64": 16, "ACL_COMPLEX128": 17, "ACL_BF16": 27, "ACL_INT4": 29,
    "ACL_UINT1": 30, "ACL_COMPLEX32": 33, "ACL_HIFLOAT8": 34, "ACL_FLOAT8_E5M2": 35, "ACL_FLOAT8_E4M3FN": 36,
    "ACL_FLOAT8_E8M0": 37, "ACL_FLOAT6_E3M2": 38, "ACL_FLOAT6_E2M3": 39, "ACL_FLOAT4_E2M1": 40,
    "ACL_FLOAT4_E1M2": 41,
    "ACL_FORMAT_UNDEFINED": -1, "ACL_FORMAT_NCHW": 0, "ACL_FORMAT_NHWC": 1, "ACL_FORMAT_ND": 2,
    "ACL_FORMAT_NC1HWC0": 3, "ACL_FORMAT_FRACTAL_Z": 4, "ACL_FORMAT_NC1HWC0_C04": 12, "ACL_FORMAT_HWCN": 16,
    "ACL_FORMAT_NDHWC": 27, "ACL_FORMAT_FRACTAL_NZ": 29, "ACL_FORMAT_NCDHW": 30, "ACL_FORMAT_NDC1HWC0": 32,
    "ACL_FRACTAL_Z_3D": 33, "ACL_FORMAT_NC": 35, "ACL_FORMAT_NCL": 47, "ACL_FORMAT_FRACTAL_NZ_C0_16": 50,
    "ACL_FORMAT_FRACTAL_NZ_C0_32": 51, "ACL_FORMAT_FRACTAL_NZ_C0_2": 52, "ACL_FORMAT_FRACTAL_NZ_C0_4": 53,
    "ACL_FORMAT_FRACTAL_NZ_C0_8": 54,
    "ACL_MEMCPY_HOST_TO_HOST": 0, "ACL_MEMCPY_HOST_TO_DEVICE": 1, "ACL_MEMCPY_DEVICE_TO_HOST": 2,
    "ACL_MEMCPY_DEVICE_TO_DEVICE": 3, "ACL_MEMCPY_DEFAULT": 4, "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE": 5,
    "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE": 6, "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE": 7,
    "ACL_MEM_MALLOC_HUGE_FIRST": 0, "ACL_MEM_MALLOC_HUGE_ONLY": 1, "ACL_MEM_MALLOC_NORMAL_ONLY": 2,
    "ACL_MEM_MALLOC_HUGE_FIRST_P2P": 3, "ACL_MEM_MALLOC_HUGE_ONLY_P2P": 4, "ACL_MEM_MALLOC_NORMAL_ONLY_P2P": 5,
    "ACL_MEM_MALLOC_HUGE1G_ONLY": 6, "ACL_MEM_MALLOC_HUGE1G_ONLY_P2P": 7, "ACL_MEM_TYPE_LOW_BAND_WIDTH": 0x100,
    "ACL_MEM_TYPE_HIGH_BAND_WIDTH": 0x1000, "ACL_MEM_ACCESS_USER_SPACE_READONLY": 0x100000,
    "ACL_OPT_DETERMINISTIC": 0, "ACL_OPT_ENABLE_DEBUG_KERNEL": 1, "ACL_OPT_STRONG_CONSISTENCY": 2,
    "ACL_OPT_ENABLE_KERNEL_EARLY_START": 3, "ACL_DEVICE": 0, "ACL_HOST": 1,
    "ACL_DEBUG": 0, "ACL_INFO": 1, "ACL_WARNING": 2, "ACL_ERROR": 3,
    "ACL_MEMTYPE_DEVICE": 0, "ACL_MEMTYPE_HOST": 1, "ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT": 2,
    "ACL_SUCCESS": 0, "ACL_ERROR_NONE": 0, "ACL_ERROR_INVALID_PARAM": 100000, "ACL_ERROR_UNINITIALIZE": 100001,
    "ACL_ERROR_REPEAT_INITIALIZE": 100002, "ACL_ERROR_INVALID_FILE": 100003, "ACL_ERROR_WRITE_FILE": 100004,
    "ACL_ERROR_INVALID_FILE_SIZE": 100005, "ACL_ERROR_PARSE_FILE": 100006, "ACL_ERROR_FILE_MISSING_ATTR": 100007,
    "ACL_ERROR_FILE_ATTR_INVALID": 100008, "ACL_ERROR_INVALID_DUMP_CONFIG": 100009,
    "ACL_ERROR_INVALID_PROFILING_CONFIG": 100010, "ACL_ERROR_REPEAT_FINALIZE": 100037,
    "ACL_ERROR_PROF_REPEAT_SUBSCRIBE": 148046, "ACL_ERROR_INVALID_BUNDLE_MODEL_ID": 148053,
    "ACL_ERROR_BAD_ALLOC": 200000, "ACL_ERROR_API_NOT_SUPPORT": 200001, "ACL_ERROR_INVALID_DEVICE": 200002,
    "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED": 200003, "ACL_ERROR_RESOURCE_NOT_MATCH": 200004,
    "ACL_ERROR_INVALID_RESOURCE_HANDLE": 200005, "ACL_ERROR_FEATURE_UNSUPPORTED": 200006,
    "ACL_ERROR_PROF_MODULES_UNSUPPORTED": 200007, "ACL_ERROR_STORAGE_OVER_LIMIT": 300000,
    "ACL_ERROR_INTERNAL_ERROR": 500000, "ACL_ERROR_FAILURE": 500001, "ACL_ERROR_GE_FAILURE": 500002,
    "ACL_ERROR_RT_FAILURE": 500003, "ACL_ERROR_DRV_FAILURE": 500004, "ACL_ERROR_PROFILING_FAILURE": 500005,
    "ACL_RT_SUCCESS": 0, "ACL_ERROR_RT_PARAM_INVALID": 107000, "ACL_ERROR_RT_INVALID_DEVICEID": 107001,
    "ACL_ERROR_RT_CONTEXT_NULL": 107002, "ACL_ERROR_RT_STREAM_CONTEXT": 107003,
    "ACL_ERROR_RT_SYSPARAMOPT_NOT_SET": 107021, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT": 207000,
    "ACL_ERROR_RT_MEMORY_ALLOCATION": 207001, "ACL_ERROR_RT_MEMORY_FREE": 207002, "ACL_ERROR_RT_NO_DEVICE": 207004,
    "ACL_ERROR_RT_INTERNAL_ERROR": 507000,
    "ACLNN_SUCCESS": 0, "ACLNN_ERR_PARAM_NULLPTR": 161001, "ACLNN_ERR_PARAM_INVALID": 161002,
    "ACLNN_ERR_RUNTIME_ERROR": 361001, "ACLNN_ERR_INNER": 561000, "ACLNN_ERR_INNER_INFERSHAPE_ERROR": 561001,
    "ACLNN_ERR_INNER_TILING_ERROR": 561002, "ACLNN_ERR_INNER_FIND_KERNEL_ERROR": 561003,
    "ACLNN_ERR_INNER_CREATE_EXECUTOR": 561101, "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR": 561102,
    "ACLNN_ERR_INNER_NULLPTR": 561103, "ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE": 561104,
    "ACLNN_ERR_INNER_KEY_CONFLICT": 561105, "ACLNN_ERR_INNER_KEY_CONFILICT": 561105,
    "ACLNN_ERR_INNER_INVALID_IMPL_MODE": 561106, "ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND": 561107,
    "ACLNN_ERR_INNER_LOAD_JSON_FAILED": 561108, "ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND": 561109,
    "ACLNN_ERR_INNER_JSON_FORMAT_INVALID": 561110, "ACLNN_ERR_INNER_JSON_DTYPE_INVALID": 561111,
    "ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND": 561112, "ACLNN_ERR_INNER_OP_FILE_INVALID": 561113,
    "ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND": 561114, "ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH": 561115,
    "ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE": 561116, "ACLNN_ERR_INNER_INPUT_JSON_IS_NULL": 561117,
    "ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID": 561118, "ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID": 561119,
}

# Which library names must export which symbols (SPEC §1.1).
LIB_SYMBOLS = {
    "libascendcl.so": ["aclInit", "aclFinalize", "aclFinalizeReference", "aclGetRecentErrMsg", "aclrtMalloc",
                       "aclrtMemcpy", "aclrtCreateStream", "aclDataTypeSize", "aclFloat16ToFloat", "aclFloatToFloat16"],
    "libacl_rt.so": ["aclrtMalloc", "aclrtSetDevice"],
    "libruntime.so": ["aclrtMalloc", "aclrtSetDevice", "aclrtResetDeviceForce"],
    "libnnopbase.so": ["aclCreateTensor", "aclCreateScalar", "aclCreateIntArray", "aclCreateFloatArray",
                       "aclCreateBoolArray", "aclCreateTensorList", "aclCreateScalarList", "aclDestroyTensor",
                       "aclGetViewShape", "aclInitTensor", "aclSetAclOpExecutorRepeatable",
                       "aclDestroyAclOpExecutor", "aclSetInputTensorAddr", "AclSetInputTensorAddr",
                       "aclSetRawTensorAddr", "aclGetRawTensorAddr", "aclnnInit", "aclnnFinalize"],
    "libopapi_cv.so": ["aclnnGridSampler2D", "aclnnGridSampler2DBackwardGetWorkspaceSize",
                       "aclnnUpsampleNearestExact2d", "aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize"],
    "libopapi_nn.so": ["aclnnAvgPool2d", "aclnnAvgPool2dBackwardGetWorkspaceSize",
                       "aclnnMultiScaleDeformableAttnFunction", "aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize"],
    "libopapi.so": ["aclnnAvgPool2dBackward", "aclnnGridSampler2DBackward", "aclnnUpsampleNearestExact2dBackward",
                    "aclnnMultiScaleDeformableAttentionGrad"],
    "libopapi_math.so": ["aclCreateTensor"],
    # the names torch_npu links (issue 19)
    "libacl_op_compiler.so": ["aclopCompileAndExecute", "aclSetCompileopt", "aclopCreateAttr", "aclopSetAttrInt"],
    "libge_runner.so": ["aclInit"],
    "libgraph.so": ["aclInit"],
    "libacl_tdt_channel.so": ["aclInit"],
    "libhccl.so": ["HcclGetRootInfo", "HcclCommInitRootInfo", "HcclCommInitRootInfoConfig", "HcclAllReduce",
                   "HcclBroadcast", "HcclAllGather", "HcclReduceScatter", "HcclAlltoAll", "HcclAlltoAllV",
                   "HcclSend", "HcclRecv", "HcclGroupStart", "HcclGroupEnd", "HcclCommDestroy",
                   "HcclGetCommAsyncError", "MsprofReportApi", "MsprofReportCompactInfo",
                   "MsprofReportAdditionalInfo", "MsprofGetHashId", "MsprofRegisterCallback", "MsprofSysCycleTime",
                   "rtDevBinaryRegister", "rtFunctionRegister", "rtKernelLaunch", "rtGetC2cCtrlAddr"],
}


def exported(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()[1:2] == ["T"]}


def declared():
    text = open(os.path.join(REPO, "pyaclnn", "_cdef.h")).read()
    text = re.sub(r"typedef[^;]*;", "", text)
    return set(re.findall(r"\b([A-Za-z_]\w*)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*;", text))


def test_exports_equal_declarations():
    exp, dec = exported(LIB), declared()
    assert dec - exp == set(), f"declared in include/ but not exported: {sorted(dec - exp)}"
    assert exp - dec == set(), f"exported but not declared in include/: {sorted(exp - dec)}"


def test_only_acl_symbols_exported():
    out = subprocess.run(["nm", "-D", "--defined-only", LIB], capture_output=True, text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines()]
    bad = [n for n in names if not re.match(r"^(acl|aclnn|Acl)", n)]
    assert bad == []


def test_hccl_library_exports_only_its_families(installed_tree):
    """libhccl.so holds the non-acl names (Hccl*, Msprof*, rt*) so that libpyaclnn.so exports only acl names."""
    names = exported(os.path.join(installed_tree, "lib64", "libhccl.so"))
    assert names and all(re.match(r"^(Hccl|Msprof|rt[A-Z])", n) for n in names), sorted(names)


def test_every_op_in_ops_inc_is_exported():
    ops = re.findall(r"^ACL_OP\((\w+), (\w+)\)", open(os.path.join(REPO, "libsrc", "ops", "ops.inc")).read(), re.M)
    assert ops
    exp = exported(LIB)
    for op, prefix in ops:
        assert f"{prefix}{op}" in exp and f"{prefix}{op}GetWorkspaceSize" in exp, op


def test_cdef_is_current():
    gen = subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_cdef.py"), INC], capture_output=True,
                         text=True, check=True, cwd=REPO).stdout
    assert gen == open(os.path.join(REPO, "pyaclnn", "_cdef.h")).read(), "pyaclnn/_cdef.h is stale: run `make cdef`"


def test_enum_values_match_spec(tmp_path):
    inc = tmp_path / "enum_list.inc"
    inc.write_text("".join(f"P({k});\n" for k in SPEC_VALUES))
    exe = tmp_path / "probe"
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Werror", f"-I{INC}", f"-I{tmp_path}",
                    os.path.join(REPO, "tests", "c", "enum_probe.c"), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    got = {k: int(v) for k, v in (line.split() for line in out.splitlines())}
    assert got == SPEC_VALUES


ALL_HEADERS = ["acl/acl.h", "aclnn/aclnn_base.h", "aclnn/acl_meta.h"] + \
    [f"aclnnop/{h}" for h in sorted(os.listdir(os.path.join(INC, "aclnnop")))]


@pytest.mark.parametrize("lang,std", [("c", "c11"), ("c++", "c++11"), ("c++", "c++17")])
def test_headers_compile(tmp_path, lang, std):
    src = tmp_path / ("t.c" if lang == "c" else "t.cpp")
    body = "".join(f'#include "{h}"\n' for h in ALL_HEADERS)
    if lang == "c++":
        body += "int main() { aclDataType d = aclDataType::ACL_FLOAT; aclFormat f = aclFormat::ACL_FORMAT_ND;\n" \
                "  return (int)d + (int)f - 2 + OK; }\n"
    else:
        body += "int main(void) { aclDataType d = ACL_FLOAT; return (int)d + OK; }\n"
    src.write_text(body)
    cc = "gcc" if lang == "c" else "g++"
    flags = ["-Wall", "-Wextra", "-Werror"] + (["-pedantic"] if lang == "c" else [])
    subprocess.run([cc, f"-std={std}", *flags, f"-I{INC}", str(src), "-o", str(tmp_path / "a.out")], check=True)


def test_each_header_self_contained(tmp_path):
    for h in ALL_HEADERS:
        src = tmp_path / "one.c"
        src.write_text(f'#include "{h}"\n#include "{h}"\nint main(void) {{ return 0; }}\n')
        subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{INC}", str(src), "-o",
                        str(tmp_path / "a.out")], check=True)


def test_c_api_smoke(tmp_path):
    import native  # against the library under test; sanitized under `make asan`
    exe = native.build("api_smoke.c", tmp_path / "api_smoke")
    out = native.run(exe)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "api_smoke ok" in out.stdout


@pytest.mark.parametrize("name", sorted(LIB_SYMBOLS))
def test_install_tree_library_names(name, installed_tree):
    path = os.path.join(installed_tree, "lib64", name)
    assert os.path.exists(path), path
    exp = exported(path)
    missing = [s for s in LIB_SYMBOLS[name] if s not in exp]
    assert missing == []


def test_install_tree_layout(installed_tree):
    prefix = installed_tree
    for d in ("include/acl/acl.h", "include/aclnn/acl_meta.h", "include/aclnn/aclnn_base.h",
              "include/aclnnop/aclnn_util.h", "include/aclnnop/aclnn_avgpool2d_backward.h", "set_env.sh"):
        assert os.path.exists(os.path.join(prefix, d)), d
    env = subprocess.run(["bash", "-c", f"source {prefix}/set_env.sh && env"], capture_output=True, text=True,
                         check=True).stdout
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "LD_LIBRARY_PATH", "ASCEND_OPP_PATH"):
        assert re.search(rf"^{var}=", env, re.M), var
    assert os.path.realpath(prefix) in env
