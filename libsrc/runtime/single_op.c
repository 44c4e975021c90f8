/* The single-operator API: operator attributes (a named list of typed values, copied) and
 * aclopCompileAndExecute. An operator type sent here is recorded (PYACLNN_SINGLE_OP_LOG=<file> appends one line per
 * call with its tensors and attribute names); the types of single_op_dispatch.c (the ones torch_npu sends) run
 * through the aclnn functions of the same computation; any other type is refused with ACL_ERROR_OP_NOT_FOUND and a
 * message naming it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "common/registry.h"
#include "common/status.h"
#include "runtime/runtime.h"
#include "runtime/single_op.h"

typedef enum { A_BOOL, A_INT, A_FLOAT, A_STRING, A_DTYPE, A_LIST_BOOL, A_LIST_INT, A_LIST_FLOAT, A_LIST_STRING,
               A_LIST_LIST_INT } attr_kind;
typedef struct {
    char *name;
    attr_kind kind;
    int64_t i;
    double f;
    char *s;
    int n;          /* list length (flattened count for list-of-lists) */
    void *values;   /* copied list values */
    int *lens;      /* list-of-lists: numValues per list */
} attr_entry;
struct aclopAttr { attr_entry *e; int n, cap; };

aclopAttr *aclopCreateAttr(void) {
    acl_set_api("aclopCreateAttr");
    aclopAttr *a = calloc(1, sizeof *a);
    if (!a || !acl_reg_add(a, ACL_KIND_OP_ATTR)) {
        free(a);
        ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory creating an aclopAttr");
        return NULL;
    }
    return a;
}

static void clear_entry(attr_entry *e) {
    free(e->name);
    free(e->s);
    if (e->kind == A_LIST_STRING)
        for (int k = 0; k < e->n; k++) free(((char **)e->values)[k]);
    free(e->values);
    free(e->lens);
}

void aclopDestroyAttr(const aclopAttr *attr) {
    if (!attr || !acl_reg_remove(attr, ACL_KIND_OP_ATTR)) return;
    aclopAttr *a = (aclopAttr *)attr;
    for (int k = 0; k < a->n; k++) clear_entry(&a->e[k]);
    free(a->e);
    free(a);
}

/* The entry for name (replacing an existing one), or NULL after reporting. */
static attr_entry *entry(aclopAttr *attr, const char *name, attr_kind kind) {
    if (!attr) { ACL_REPORT(ACL_ERROR_INVALID_PARAM, "attr must not be NULL"); return NULL; }
    if (!acl_reg_is(attr, ACL_KIND_OP_ATTR)) {
        ACL_REPORT(ACL_ERROR_INVALID_PARAM, "attr %p is not a live aclopAttr", (void *)attr);
        return NULL;
    }
    if (!name) { ACL_REPORT(ACL_ERROR_INVALID_PARAM, "attrName must not be NULL"); return NULL; }
    attr_entry *e = NULL;
    for (int k = 0; k < attr->n; k++)
        if (strcmp(attr->e[k].name, name) == 0) { e = &attr->e[k]; clear_entry(e); break; }
    if (!e) {
        if (attr->n == attr->cap) {
            int nc = attr->cap ? attr->cap * 2 : 8;
            attr_entry *ne = realloc(attr->e, (size_t)nc * sizeof *ne);
            if (!ne) { ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory"); return NULL; }
            attr->e = ne;
            attr->cap = nc;
        }
        e = &attr->e[attr->n++];
    }
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->name = strdup(name);
    if (!e->name) { attr->n--; ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory"); return NULL; }
    return e;
}

#define SCALAR_SETTER(fn, ctype, kind, field)                                   \
    aclError fn(aclopAttr *attr, const char *attrName, ctype attrValue) {      \
        acl_set_api(#fn);                                                      \
        attr_entry *e = entry(attr, attrName, kind);                           \
        if (!e) return ACL_ERROR_INVALID_PARAM;                                \
        e->field = attrValue;                                                  \
        return ACL_SUCCESS;                                                    \
    }
SCALAR_SETTER(aclopSetAttrBool, uint8_t, A_BOOL, i)
SCALAR_SETTER(aclopSetAttrInt, int64_t, A_INT, i)
SCALAR_SETTER(aclopSetAttrFloat, float, A_FLOAT, f)
SCALAR_SETTER(aclopSetAttrDataType, aclDataType, A_DTYPE, i)

aclError aclopSetAttrString(aclopAttr *attr, const char *attrName, const char *attrValue) {
    acl_set_api("aclopSetAttrString");
    if (!attrValue) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "attrValue must not be NULL");
    attr_entry *e = entry(attr, attrName, A_STRING);
    if (!e) return ACL_ERROR_INVALID_PARAM;
    e->s = strdup(attrValue);
    return e->s ? ACL_SUCCESS : ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory");
}

static aclError set_list(const char *api, aclopAttr *attr, const char *attrName, attr_kind kind, int numValues,
                         const void *values, size_t elem) {
    acl_set_api(api);
    if (numValues < 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "numValues %d must be >= 0", numValues);
    if (numValues > 0 && !values) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "values must not be NULL");
    attr_entry *e = entry(attr, attrName, kind);
    if (!e) return ACL_ERROR_INVALID_PARAM;
    e->n = numValues;
    if (numValues) {
        e->values = malloc((size_t)numValues * elem);
        if (!e->values) return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory");
        memcpy(e->values, values, (size_t)numValues * elem);
    }
    return ACL_SUCCESS;
}

aclError aclopSetAttrListBool(aclopAttr *attr, const char *attrName, int numValues, const uint8_t *values) {
    return set_list("aclopSetAttrListBool", attr, attrName, A_LIST_BOOL, numValues, values, sizeof *values);
}
aclError aclopSetAttrListInt(aclopAttr *attr, const char *attrName, int numValues, const int64_t *values) {
    return set_list("aclopSetAttrListInt", attr, attrName, A_LIST_INT, numValues, values, sizeof *values);
}
aclError aclopSetAttrListFloat(aclopAttr *attr, const char *attrName, int numValues, const float *values) {
    return set_list("aclopSetAttrListFloat", attr, attrName, A_LIST_FLOAT, numValues, values, sizeof *values);
}

aclError aclopSetAttrListString(aclopAttr *attr, const char *attrName, int numValues, const char **values) {
    acl_set_api("aclopSetAttrListString");
    if (numValues < 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "numValues %d must be >= 0", numValues);
    if (numValues > 0 && !values) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "values must not be NULL");
    for (int k = 0; k < numValues; k++)
        if (!values[k]) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "values[%d] must not be NULL", k);
    attr_entry *e = entry(attr, attrName, A_LIST_STRING);
    if (!e) return ACL_ERROR_INVALID_PARAM;
    if (numValues) {
        char **v = calloc((size_t)numValues, sizeof *v);
        if (!v) return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory");
        e->values = v;
        for (int k = 0; k < numValues; k++) {
            v[k] = strdup(values[k]);
            e->n = k + 1;
            if (!v[k]) return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory");
        }
    }
    return ACL_SUCCESS;
}

aclError aclopSetAttrListListInt(aclopAttr *attr, const char *attrName, int numLists, const int *numValues,
                                 const int64_t *const values[]) {
    acl_set_api("aclopSetAttrListListInt");
    if (numLists < 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "numLists %d must be >= 0", numLists);
    if (numLists > 0 && (!numValues || !values))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "numValues and values must not be NULL");
    int64_t total = 0;
    for (int k = 0; k < numLists; k++) {
        if (numValues[k] < 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "numValues[%d] must be >= 0", k);
        if (numValues[k] > 0 && !values[k]) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "values[%d] must not be NULL", k);
        total += numValues[k];
        if (total > INT32_MAX) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "too many values");
    }
    attr_entry *e = entry(attr, attrName, A_LIST_LIST_INT);
    if (!e) return ACL_ERROR_INVALID_PARAM;
    e->n = numLists;
    if (numLists) {
        e->lens = malloc((size_t)numLists * sizeof *e->lens);
        e->values = malloc((size_t)(total ? total : 1) * sizeof(int64_t));
        if (!e->lens || !e->values) return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory");
        int64_t *dst = e->values;
        for (int k = 0; k < numLists; k++) {
            e->lens[k] = numValues[k];
            if (numValues[k]) memcpy(dst, values[k], (size_t)numValues[k] * sizeof(int64_t));
            dst += numValues[k];
        }
    }
    return ACL_SUCCESS;
}

static const attr_entry *find_attr(const aclopAttr *attr, const char *name) {
    for (int k = 0; attr && k < attr->n; k++)
        if (strcmp(attr->e[k].name, name) == 0) return &attr->e[k];
    return NULL;
}

bool acl_op_attr_int(const aclopAttr *attr, const char *name, int64_t *value) {
    const attr_entry *e = find_attr(attr, name);
    if (!e || (e->kind != A_INT && e->kind != A_BOOL && e->kind != A_DTYPE)) return false;
    *value = e->i;
    return true;
}

const char *acl_op_attr_string(const aclopAttr *attr, const char *name) {
    const attr_entry *e = find_attr(attr, name);
    return e && e->kind == A_STRING ? e->s : NULL;
}

bool acl_op_attr_float(const aclopAttr *attr, const char *name, double *value) {
    const attr_entry *e = find_attr(attr, name);
    if (!e || e->kind != A_FLOAT) return false;
    *value = e->f;
    return true;
}

static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_descs(FILE *f, const char *tag, int n, const aclTensorDesc *const desc[],
                      const aclDataBuffer *const buf[]) {
    fprintf(f, " %s=[", tag);
    for (int k = 0; k < n && desc; k++) {
        const aclTensorDesc *d = desc[k];
        if (!d) { fprintf(f, "%snull", k ? " " : ""); continue; }
        fprintf(f, "%s%d(", k ? " " : "", (int)aclGetTensorDescType(d));
        size_t nd = aclGetTensorDescNumDims(d);
        for (size_t j = 0; j < nd && nd != ACL_UNKNOWN_RANK; j++) {
            int64_t v = 0;
            aclGetTensorDescDimV2(d, j, &v);
            fprintf(f, "%s%lld", j ? "," : "", (long long)v);
        }
        fprintf(f, ")f%d%s", (int)aclGetTensorDescFormat(d), aclGetTensorDescAddress(d) ? "c" : "");
        if (buf && buf[k]) fprintf(f, "#%zu", aclGetDataBufferSizeV2(buf[k]));
    }
    fputc(']', f);
}

/* PYACLNN_SINGLE_OP_LOG=<file>: one line per call, "type in=[dtype(dims)f<format>[c: const]#bytes ...] out=[...]
 * attr=[name:kind ...]" (the dtypes are aclDataType values). */
static void log_op(const char *opType, int numInputs, const aclTensorDesc *const inputDesc[],
                   const aclDataBuffer *const inputs[], int numOutputs, const aclTensorDesc *const outputDesc[],
                   const aclopAttr *attr) {
    const char *path = getenv("PYACLNN_SINGLE_OP_LOG");
    if (!path || !*path) return;
    pthread_mutex_lock(&g_log_lock);
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%s", opType);
        log_descs(f, "in", numInputs, inputDesc, inputs);
        log_descs(f, "out", numOutputs, outputDesc, NULL);
        fprintf(f, " attr=[");
        for (int k = 0; attr && k < attr->n; k++) fprintf(f, "%s%s:%d", k ? " " : "", attr->e[k].name, attr->e[k].kind);
        fprintf(f, "]\n");
        fclose(f);
    }
    pthread_mutex_unlock(&g_log_lock);
}

static aclError compile_and_execute(const char *opType, int numInputs, const aclTensorDesc *const inputDesc[],
                                    const aclDataBuffer *const inputs[], int numOutputs,
                                    const aclTensorDesc *const outputDesc[], aclDataBuffer *const outputs[],
                                    const aclopAttr *attr, aclrtStream stream) {
    if (!opType) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "opType must not be NULL");
    if (numInputs < 0 || numOutputs < 0)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "numInputs %d and numOutputs %d must be >= 0", numInputs,
                          numOutputs);
    if (numInputs > 0 && (!inputDesc || !inputs))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "inputDesc and inputs must not be NULL (%s)", opType);
    if (numOutputs > 0 && (!outputDesc || !outputs))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "outputDesc and outputs must not be NULL (%s)", opType);
    if (attr && !acl_reg_is(attr, ACL_KIND_OP_ATTR))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "attr is not a live aclopAttr (%s)", opType);
    if (!acl_stream_valid(stream))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "stream %p is not a live stream (%s)", stream, opType);
    log_op(opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, attr);
    const acl_single_op *op = acl_single_op_find(opType);
    if (op) {
        acl_single_op_call call = {opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr,
                                   stream};
        return op->run(&call);
    }
    return ACL_REPORT(ACL_ERROR_OP_NOT_FOUND, "operator type '%s' (%d inputs, %d outputs) is not among the types the "
                      "single-operator path of the emulator runs (docs/TORCH_NPU.md)", opType,
                      numInputs, numOutputs);
}

aclError aclopCompileAndExecute(const char *opType, int numInputs, const aclTensorDesc *const inputDesc[],
                                const aclDataBuffer *const inputs[], int numOutputs,
                                const aclTensorDesc *const outputDesc[], aclDataBuffer *const outputs[],
                                const aclopAttr *attr, aclopEngineType engineType, aclopCompileType compileFlag,
                                const char *opPath, aclrtStream stream) {
    acl_set_api("aclopCompileAndExecute");
    return compile_and_execute(opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr, stream);
}

/* The operator types run here write outputs of the shapes their descriptions give, so the descriptions stay. */
aclError aclopCompileAndExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                  aclDataBuffer *inputs[], int numOutputs, aclTensorDesc *outputDesc[],
                                  aclDataBuffer *outputs[], aclopAttr *attr, aclopEngineType engineType,
                                  aclopCompileType compileFlag, const char *opPath, aclrtStream stream) {
    acl_set_api("aclopCompileAndExecuteV2");
    return compile_and_execute(opType, numInputs, (const aclTensorDesc *const *)inputDesc,
                               (const aclDataBuffer *const *)inputs, numOutputs,
                               (const aclTensorDesc *const *)outputDesc, outputs, attr, stream);
}
