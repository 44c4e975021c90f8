#include "common/dtype.h"

size_t acl_dtype_size(aclDataType dt) {
    switch (dt) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: case ACL_COMPLEX32: return 4;
    case ACL_FLOAT16: case ACL_INT16: case ACL_UINT16: case ACL_BF16: return 2;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: case ACL_HIFLOAT8: case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN: case ACL_FLOAT8_E8M0: return 1;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
    }
}

const char *acl_dtype_name(aclDataType dt) {
    switch (dt) {
    case ACL_DT_UNDEFINED: return "DT_UNDEFINED";
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_INT8: return "INT8";
    case ACL_INT32: return "INT32";
    case ACL_UINT8: return "UINT8";
    case ACL_INT16: return "INT16";
    case ACL_UINT16: return "UINT16";
    case ACL_UINT32: return "UINT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT64: return "UINT64";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_BOOL: return "BOOL";
    case ACL_STRING: return "STRING";
    case ACL_COMPLEX64: return "COMPLEX64";
    case ACL_COMPLEX128: return "COMPLEX128";
    case ACL_BF16: return "BF16";
    case ACL_INT4: return "INT4";
    case ACL_UINT1: return "UINT1";
    case ACL_COMPLEX32: return "COMPLEX32";
    case ACL_HIFLOAT8: return "HIFLOAT8";
    case ACL_FLOAT8_E5M2: return "FLOAT8_E5M2";
    case ACL_FLOAT8_E4M3FN: return "FLOAT8_E4M3FN";
    case ACL_FLOAT8_E8M0: return "FLOAT8_E8M0";
    case ACL_FLOAT6_E3M2: return "FLOAT6_E3M2";
    case ACL_FLOAT6_E2M3: return "FLOAT6_E2M3";
    case ACL_FLOAT4_E2M1: return "FLOAT4_E2M1";
    case ACL_FLOAT4_E1M2: return "FLOAT4_E1M2";
    default: return "UNKNOWN_DTYPE";
    }
}

const char *acl_format_name(aclFormat fmt) {
    switch (fmt) {
    case ACL_FORMAT_UNDEFINED: return "UNDEFINED";
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04: return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN: return "HWCN";
    case ACL_FORMAT_NDHWC: return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW: return "NCDHW";
    case ACL_FORMAT_NDC1HWC0: return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC: return "NC";
    case ACL_FORMAT_NCL: return "NCL";
    case ACL_FORMAT_FRACTAL_NZ_C0_16: return "FRACTAL_NZ_C0_16";
    case ACL_FORMAT_FRACTAL_NZ_C0_32: return "FRACTAL_NZ_C0_32";
    case ACL_FORMAT_FRACTAL_NZ_C0_2: return "FRACTAL_NZ_C0_2";
    case ACL_FORMAT_FRACTAL_NZ_C0_4: return "FRACTAL_NZ_C0_4";
    case ACL_FORMAT_FRACTAL_NZ_C0_8: return "FRACTAL_NZ_C0_8";
    default: return "UNKNOWN_FORMAT";
    }
}

size_t aclDataTypeSize(aclDataType dataType) { return acl_dtype_size(dataType); }

/* Documented saturation mode of the ACL helpers: NaN and +-Inf become +-65504 when narrowing. */
aclFloat16 aclFloatToFloat16(float value) {
    uint32_t x;
    memcpy(&x, &value, 4);
    if ((x & 0x7fffffffu) >= 0x7f800000u) return (aclFloat16)(((x >> 16) & 0x8000u) | 0x7bffu);
    uint16_t h = acl_f32_to_f16(value);
    if ((h & 0x7fffu) == 0x7c00u) h = (uint16_t)((h & 0x8000u) | 0x7bffu);
    return h;
}

/* Documented saturation mode when widening: +-Inf reads as +-65536 and NaN as 98304. */
float aclFloat16ToFloat(aclFloat16 value) {
    uint16_t em = value & 0x7fffu;
    if (em == 0x7c00u) return (value & 0x8000u) ? -65536.0f : 65536.0f;
    if (em > 0x7c00u) return 98304.0f;
    return acl_f16_to_f32(value);
}
