/* The recurrent operator types torch_npu sends to aclopCompileAndExecute when the aclnn LSTM/GRU functions are
 * missing: DynamicRNN (nn.LSTM: one weight [I+H, 4H] over [x_t, h_{t-1}]), DynamicRNNV2 (nn.LSTMCell: separate
 * input and hidden weights) and DynamicGRUV2 (nn.GRU). Forward only, one direction, one layer per call (torch_npu
 * calls once per layer and direction), no peephole, projection or sequence lengths (refused with a message naming
 * the attribute or input).
 *
 * LSTM, gates in the order the gate_order attribute names (i input, j or c candidate, f forget, o output):
 *   i = sigmoid(.), j = tanh(.), f = sigmoid(. + forget_bias), o = sigmoid(.)
 *   c_t = f * c_{t-1} + i * j (clipped to [-cell_clip, cell_clip] when cell_clip > 0), tanhc = tanh(c_t),
 *   h_t = o * tanhc; outputs y = output_h = h_t, output_c = c_t, and i, j, f, o, tanhc, each [T, B, H].
 * GRU (gate_order of r reset, z update, h new; reset_after as torch does by default):
 *   r = sigmoid(xr + hr), z = sigmoid(xz + hz), hn = W_hn h + b_hn, n = tanh(xn + r * hn)
 *   (reset_after false: n = tanh(xn + W_hn (r * h) + b_hn)), h_t = (1 - z) * n + z * h_{t-1};
 *   outputs y = output_h = h_t, update = z, reset = r, new = n, hidden_new = hn.
 * Inputs are read after the stream's earlier work (the stream is synchronised), computed in fp32 (fp64 for double)
 * with sums in a fixed order, and written to the outputs as copies on the call's stream. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/status.h"
#include "runtime/runtime.h"
#include "runtime/single_op.h"

typedef struct {
    int64_t dims[8];
    int nd;
    int64_t numel;
    aclDataType dt;
} shape_t;

static aclError get_shape(const acl_single_op_call *c, const char *side, int k, const aclTensorDesc *d, shape_t *s) {
    if (!d) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: %s %d has no description", c->type, side, k);
    size_t nd = aclGetTensorDescNumDims(d);
    if (nd == ACL_UNKNOWN_RANK || nd > 8)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: %s %d has an unknown rank", c->type, side, k);
    s->nd = (int)nd;
    s->numel = 1;
    s->dt = aclGetTensorDescType(d);
    for (size_t j = 0; j < nd; j++) {
        aclGetTensorDescDimV2(d, j, &s->dims[j]);
        if (s->dims[j] < 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: %s %d has a dynamic shape", c->type, side, k);
        s->numel *= s->dims[j];
    }
    if (s->dt != ACL_FLOAT && s->dt != ACL_FLOAT16 && s->dt != ACL_BF16 && s->dt != ACL_DOUBLE)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: %s %d has data type %d; float, float16, bfloat16 or double "
                          "expected", c->type, side, k, (int)s->dt);
    return ACL_SUCCESS;
}

static int present(const acl_single_op_call *c, int k) {
    return k < c->nin && c->in_desc[k] && aclGetTensorDescType(c->in_desc[k]) != ACL_DT_UNDEFINED;
}

/* Input k as doubles (numel of them, shape checked against want[0..nd)). */
static aclError load(const acl_single_op_call *c, int k, int nd, const int64_t *want, double **out) {
    shape_t s;
    *out = NULL;
    ACL_TRY(get_shape(c, "input", k, c->in_desc[k], &s));
    int same = s.nd == nd;
    for (int j = 0; same && j < nd; j++) same = s.dims[j] == want[j];
    if (!same) {
        char buf[96] = "";
        for (int j = 0; j < nd; j++) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%lld", j ? "," : "", (long long)want[j]);
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: input %d must have shape [%s]", c->type, k, buf);
    }
    size_t es = aclDataTypeSize(s.dt), bytes = (size_t)s.numel * es;
    const void *data = c->in[k] ? aclGetDataBufferAddr(c->in[k]) : aclGetTensorDescAddress(c->in_desc[k]);
    if (bytes && (!data || (c->in[k] && aclGetDataBufferSizeV2(c->in[k]) < bytes)))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: the data buffer of input %d is smaller than its shape", c->type, k);
    void *raw = malloc(bytes ? bytes : 1);
    double *v = malloc((size_t)(s.numel ? s.numel : 1) * sizeof *v);
    if (!raw || !v) {
        free(raw);
        free(v);
        return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->type);
    }
    if (bytes && acl_mem_contains(data, bytes)) {
        if (aclrtMemcpy(raw, bytes, data, bytes, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
            free(raw);
            free(v);
            return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: input %d could not be read", c->type, k);
        }
    } else if (bytes) {
        memcpy(raw, data, bytes);
    }
    for (int64_t i = 0; i < s.numel; i++) {
        switch (s.dt) {
        case ACL_FLOAT: v[i] = ((float *)raw)[i]; break;
        case ACL_FLOAT16: v[i] = acl_f16_to_f32(((uint16_t *)raw)[i]); break;
        case ACL_BF16: v[i] = acl_bf16_to_f32(((uint16_t *)raw)[i]); break;
        default: v[i] = ((double *)raw)[i]; break;
        }
    }
    free(raw);
    *out = v;
    return ACL_SUCCESS;
}

/* Output k (shape [T, B, H] or as checked by the caller) from doubles, as a copy on the stream. */
static aclError store(const acl_single_op_call *c, int k, const double *v, int64_t numel) {
    shape_t s;
    ACL_TRY(get_shape(c, "output", k, c->out_desc[k], &s));
    if (s.numel != numel)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: output %d has %lld elements, %lld expected", c->type, k,
                          (long long)s.numel, (long long)numel);
    size_t es = aclDataTypeSize(s.dt), bytes = (size_t)numel * es;
    if (!bytes) return ACL_SUCCESS;
    void *dst = c->out[k] ? aclGetDataBufferAddr(c->out[k]) : NULL;
    if (!dst || aclGetDataBufferSizeV2(c->out[k]) < bytes)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: the data buffer of output %d is smaller than its shape", c->type, k);
    void *raw = malloc(bytes);
    if (!raw) return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->type);
    for (int64_t i = 0; i < numel; i++) {
        switch (s.dt) {
        case ACL_FLOAT: ((float *)raw)[i] = (float)v[i]; break;
        case ACL_FLOAT16: ((uint16_t *)raw)[i] = acl_f32_to_f16((float)v[i]); break;
        case ACL_BF16: ((uint16_t *)raw)[i] = acl_f32_to_bf16((float)v[i]); break;
        default: ((double *)raw)[i] = v[i]; break;
        }
    }
    aclError rc = aclrtMemcpyAsync(dst, bytes, raw, bytes, ACL_MEMCPY_HOST_TO_DEVICE, c->stream);
    free(raw);
    return rc ? ACL_REPORT(rc, "%s: writing output %d failed", c->type, k) : ACL_SUCCESS;
}

/* Values rounded as the input data type would hold them (fp32 maths for fp32/fp16/bf16). */
static double rnd(double x, int dbl) { return dbl ? x : (double)(float)x; }
static double sigm(double x, int dbl) { return dbl ? 1.0 / (1.0 + exp(-x)) : (double)(1.0f / (1.0f + expf(-(float)x))); }
static double th(double x, int dbl) { return dbl ? tanh(x) : (double)tanhf((float)x); }

static aclError common_attrs(const acl_single_op_call *c, int lstm) {
    const char *dir = acl_op_attr_string(c->attr, "direction");
    if (dir && strcmp(dir, "UNIDIRECTIONAL") != 0)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: direction '%s' is not run by the emulator (UNIDIRECTIONAL "
                          "only)", c->type, dir);
    int64_t v;
    if (acl_op_attr_int(c->attr, "cell_depth", &v) && v > 1)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: cell_depth %lld is not run by the emulator", c->type, (long long)v);
    if (acl_op_attr_int(c->attr, "num_proj", &v) && v != 0)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: num_proj %lld is not run by the emulator", c->type, (long long)v);
    if (lstm && acl_op_attr_int(c->attr, "use_peephole", &v) && v)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: use_peephole is not run by the emulator", c->type);
    const char *act = acl_op_attr_string(c->attr, "activation");
    if (act && strcmp(act, "tanh") != 0)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: activation '%s' is not run by the emulator", c->type, act);
    return ACL_SUCCESS;
}

/* Positions of the gates named by letters in gate_order (e.g. "ijfo"): pos[letter index in names]. */
static aclError gate_positions(const acl_single_op_call *c, const char *dflt, const char *names, int *pos) {
    const char *g = acl_op_attr_string(c->attr, "gate_order");
    if (!g) g = dflt;
    size_t n = strlen(names);
    if (strlen(g) != n) goto bad;
    for (size_t a = 0; a < n; a++) {
        const char *p = strchr(g, names[a]);
        if (!p && names[a] == 'j') p = strchr(g, 'c'); /* the LSTM candidate is also written c ("ifco") */
        if (!p) goto bad;
        pos[a] = (int)(p - g);
    }
    return ACL_SUCCESS;
bad:
    return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: gate_order '%s' is not an order of the gates '%s'", c->type, g, names);
}

static aclError lstm(const acl_single_op_call *c, int v2) {
    /* DynamicRNN: x, w, b, seq_length, init_h, init_c; V2: x, w_input, w_hidden, b, seq_length, init_h, init_c */
    int ix = 0, ib = v2 ? 3 : 2, isl = v2 ? 4 : 3, ih = v2 ? 5 : 4, ic = v2 ? 6 : 5;
    if (c->nin < ib + 1 || c->nout != 8)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s takes x, weights, b (and optional inputs) and 8 outputs; got "
                          "%d inputs and %d outputs", c->type, c->nin, c->nout);
    ACL_TRY(common_attrs(c, 1));
    for (int k = isl; k < c->nin; k++)
        if (present(c, k) && k != ih && k != ic)
            return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: optional input %d (sequence lengths, peephole weights or "
                              "mask) is not run by the emulator", c->type, k);
    shape_t xs, bs;
    ACL_TRY(get_shape(c, "input", ix, c->in_desc[ix], &xs));
    ACL_TRY(get_shape(c, "input", ib, c->in_desc[ib], &bs));
    if (xs.nd != 3 || bs.nd != 1 || bs.dims[0] % 4)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: x must be [T, B, I] and b [4H]", c->type);
    int64_t T = xs.dims[0], B = xs.dims[1], I = xs.dims[2], H = bs.dims[0] / 4;
    int pos[4]; /* i, j, f, o */
    ACL_TRY(gate_positions(c, "ijfo", "ijfo", pos));
    double fb = 0, clip = -1;
    acl_op_attr_float(c->attr, "forget_bias", &fb);
    acl_op_attr_float(c->attr, "cell_clip", &clip);
    int dbl = xs.dt == ACL_DOUBLE;
    aclrtSynchronizeStream(c->stream);
    double *x = NULL, *w = NULL, *wh = NULL, *b = NULL, *h0 = NULL, *c0 = NULL, *out = NULL;
    aclError rc;
    int64_t wx[2] = {v2 ? I : I + H, 4 * H}, whd[2] = {H, 4 * H}, bd[1] = {4 * H}, hd[3] = {1, B, H};
    if ((rc = load(c, ix, 3, xs.dims, &x)) || (rc = load(c, 1, 2, wx, &w)) ||
        (v2 && (rc = load(c, 2, 2, whd, &wh))) || (rc = load(c, ib, 1, bd, &b)) ||
        (present(c, ih) && (rc = load(c, ih, 3, hd, &h0))) || (present(c, ic) && (rc = load(c, ic, 3, hd, &c0))))
        goto done;
    int64_t TBH = T * B * H;
    out = calloc((size_t)(8 * TBH + 4 * H + 2 * B * H + 1), sizeof *out);
    if (!out) { rc = ACL_REPORT(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->type); goto done; }
    double *Y = out, *C = out + TBH, *Gi = out + 2 * TBH, *Gj = out + 3 * TBH, *Gf = out + 4 * TBH,
           *Go = out + 5 * TBH, *Tc = out + 6 * TBH, *g = out + 8 * TBH, *h = g + 4 * H, *cc = h + B * H;
    if (h0) memcpy(h, h0, (size_t)(B * H) * sizeof *h);
    if (c0) memcpy(cc, c0, (size_t)(B * H) * sizeof *cc);
    for (int64_t t = 0; t < T; t++) {
        for (int64_t n = 0; n < B; n++) {
            const double *xt = x + (t * B + n) * I, *hp = h + n * H;
            for (int64_t q = 0; q < 4 * H; q++) {
                double acc = b[q];
                for (int64_t k = 0; k < I; k++) acc += xt[k] * w[k * 4 * H + q];
                const double *wr = v2 ? wh : w + I * 4 * H;
                for (int64_t k = 0; k < H; k++) acc += hp[k] * wr[k * 4 * H + q];
                g[q] = rnd(acc, dbl);
            }
            for (int64_t u = 0; u < H; u++) {
                int64_t o = (t * B + n) * H + u;
                double gi = sigm(g[pos[0] * H + u], dbl), gj = th(g[pos[1] * H + u], dbl),
                       gf = sigm(rnd(g[pos[2] * H + u] + fb, dbl), dbl), go = sigm(g[pos[3] * H + u], dbl);
                double cn = rnd(rnd(gf * cc[n * H + u], dbl) + rnd(gi * gj, dbl), dbl);
                if (clip > 0) cn = cn > clip ? clip : cn < -clip ? -clip : cn;
                double tc = th(cn, dbl);
                Gi[o] = gi, Gj[o] = gj, Gf[o] = gf, Go[o] = go, C[o] = cn, Tc[o] = tc;
                Y[o] = rnd(go * tc, dbl);
            }
        }
        for (int64_t n = 0; n < B; n++)
            for (int64_t u = 0; u < H; u++) {
                h[n * H + u] = Y[(t * B + n) * H + u];
                cc[n * H + u] = C[(t * B + n) * H + u];
            }
    }
    const double *outs[8] = {Y, Y, C, Gi, Gj, Gf, Go, Tc};
    for (int k = 0; k < 8 && !rc; k++) rc = store(c, k, outs[k], TBH);
done:
    free(x), free(w), free(wh), free(b), free(h0), free(c0), free(out);
    return rc;
}

aclError acl_single_op_dynamic_rnn(const acl_single_op_call *c) { return lstm(c, 0); }
aclError acl_single_op_dynamic_rnn_v2(const acl_single_op_call *c) {
    return lstm(c, 1);
}

aclError acl_single_op_dynamic_gru_v2(const acl_single_op_call *c) {
    /* x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length, init_h */
    if (c->nin < 3 || c->nout != 6)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s takes x, weight_input, weight_hidden (and optional inputs) and "
                          "6 outputs; got %d inputs and %d outputs", c->type, c->nin, c->nout);
    ACL_TRY(common_attrs(c, 0));
    if (present(c, 5))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: seq_length is not run by the emulator", c->type);
    shape_t xs, ws;
    ACL_TRY(get_shape(c, "input", 0, c->in_desc[0], &xs));
    ACL_TRY(get_shape(c, "input", 2, c->in_desc[2], &ws));
    if (xs.nd != 3 || ws.nd != 2 || ws.dims[1] != 3 * ws.dims[0])
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: x must be [T, B, I] and weight_hidden [H, 3H]", c->type);
    int64_t T = xs.dims[0], B = xs.dims[1], I = xs.dims[2], H = ws.dims[0];
    int pos[3]; /* r, z, h */
    ACL_TRY(gate_positions(c, "zrh", "rzh", pos));
    int64_t ra = 1;
    acl_op_attr_int(c->attr, "reset_after", &ra);
    int dbl = xs.dt == ACL_DOUBLE;
    aclrtSynchronizeStream(c->stream);
    double *x = NULL, *wi = NULL, *wh = NULL, *bi = NULL, *bh = NULL, *h0 = NULL, *out = NULL;
    aclError rc;
    int64_t wid[2] = {I, 3 * H}, whd[2] = {H, 3 * H}, bd[1] = {3 * H}, hd[2] = {B, H};
    if ((rc = load(c, 0, 3, xs.dims, &x)) || (rc = load(c, 1, 2, wid, &wi)) || (rc = load(c, 2, 2, whd, &wh)) ||
        (present(c, 3) && (rc = load(c, 3, 1, bd, &bi))) || (present(c, 4) && (rc = load(c, 4, 1, bd, &bh))) ||
        (present(c, 6) && (rc = load(c, 6, 2, hd, &h0))))
        goto done;
    int64_t TBH = T * B * H;
    out = calloc((size_t)(5 * TBH + 6 * H + B * H + H + 1), sizeof *out);
    if (!out) { rc = ACL_REPORT(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->type); goto done; }
    double *Y = out, *Z = out + TBH, *R = out + 2 * TBH, *N = out + 3 * TBH, *HN = out + 4 * TBH,
           *gx = out + 5 * TBH, *gh = gx + 3 * H, *h = gh + 3 * H, *rh = h + B * H;
    if (h0) memcpy(h, h0, (size_t)(B * H) * sizeof *h);
    for (int64_t t = 0; t < T; t++) {
        for (int64_t n = 0; n < B; n++) {
            const double *xt = x + (t * B + n) * I, *hp = h + n * H;
            for (int64_t q = 0; q < 3 * H; q++) {
                double a = bi ? bi[q] : 0, e = bh ? bh[q] : 0;
                for (int64_t k = 0; k < I; k++) a += xt[k] * wi[k * 3 * H + q];
                gx[q] = rnd(a, dbl);
                int is_new = q / H == pos[2];
                if (!is_new || ra) {
                    for (int64_t k = 0; k < H; k++) e += hp[k] * wh[k * 3 * H + q];
                    gh[q] = rnd(e, dbl);
                }
            }
            int64_t rp = pos[0] * H, zp = pos[1] * H, np = pos[2] * H;
            for (int64_t u = 0; u < H; u++) R[(t * B + n) * H + u] = sigm(rnd(gx[rp + u] + gh[rp + u], dbl), dbl);
            if (!ra) { /* the hidden part of the new gate uses r * h */
                for (int64_t u = 0; u < H; u++) rh[u] = rnd(R[(t * B + n) * H + u] * hp[u], dbl);
                for (int64_t u = 0; u < H; u++) {
                    double e = bh ? bh[np + u] : 0;
                    for (int64_t k = 0; k < H; k++) e += rh[k] * wh[k * 3 * H + np + u];
                    gh[np + u] = rnd(e, dbl);
                }
            }
            for (int64_t u = 0; u < H; u++) {
                int64_t o = (t * B + n) * H + u;
                double z = sigm(rnd(gx[zp + u] + gh[zp + u], dbl), dbl);
                double hn = gh[np + u];
                double nn = th(rnd(gx[np + u] + (ra ? rnd(R[o] * hn, dbl) : hn), dbl), dbl);
                Z[o] = z, N[o] = nn, HN[o] = hn;
                Y[o] = rnd(rnd((1 - z) * nn, dbl) + rnd(z * hp[u], dbl), dbl);
            }
        }
        for (int64_t n = 0; n < B; n++)
            for (int64_t u = 0; u < H; u++) h[n * H + u] = Y[(t * B + n) * H + u];
    }
    const double *outs[6] = {Y, Y, Z, R, N, HN};
    for (int k = 0; k < 6 && !rc; k++) rc = store(c, k, outs[k], TBH);
done:
    free(x), free(wi), free(wh), free(bi), free(bh), free(h0), free(out);
    return rc;
}

/* DynamicRNNGrad: back-propagation through time of DynamicRNN from its saved activations.
 * Inputs x, w, b, y, init_h, init_c, h, c, dy, dh, dc, i, j, f, o, tanhc (then seq_length, mask and peephole weights,
 * which are not used); outputs dw, db, dx, dh_prev, dc_prev. dh and dc are the gradients of the last step's h and c.
 * Per step, backwards: dh_t = dy_t + dh_next; dc_t = dc_next + dh_t o (1 - tanhc^2); the gate gradients
 * di = dc_t j i(1-i), dj = dc_t i (1-j^2), df = dc_t c_{t-1} f(1-f), do = dh_t tanhc o(1-o) in gate_order;
 * [dx_t, dh_next] = g w^T, dc_next = dc_t f; dw += [x_t, h_{t-1}]^T g, db += g. */
aclError acl_single_op_dynamic_rnn_grad(const acl_single_op_call *c) {
    if (c->nin < 16 || c->nout != 5)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s takes 16 inputs (x, w, b, y, init_h, init_c, h, c, dy, dh, dc, i, "
                          "j, f, o, tanhc) and 5 outputs; got %d and %d", c->type, c->nin, c->nout);
    ACL_TRY(common_attrs(c, 1));
    double clip = -1;
    if (acl_op_attr_float(c->attr, "cell_clip", &clip) && clip > 0)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: cell_clip is not run by the emulator", c->type);
    shape_t xs, bs;
    ACL_TRY(get_shape(c, "input", 0, c->in_desc[0], &xs));
    ACL_TRY(get_shape(c, "input", 2, c->in_desc[2], &bs));
    if (xs.nd != 3 || bs.nd != 1 || bs.dims[0] % 4)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: x must be [T, B, I] and b [4H]", c->type);
    int64_t T = xs.dims[0], B = xs.dims[1], I = xs.dims[2], H = bs.dims[0] / 4, G = 4 * H;
    int pos[4];
    ACL_TRY(gate_positions(c, "ijfo", "ijfo", pos));
    int dbl = xs.dt == ACL_DOUBLE;
    aclrtSynchronizeStream(c->stream);
    int64_t wd[2] = {I + H, G}, tbh[3] = {T, B, H}, bh[2] = {B, H};
    double *in[16] = {0}, *out = NULL;
    aclError rc = ACL_SUCCESS;
    for (int k = 0; k < 16 && !rc; k++) {
        if (k == 2) continue; /* b: the shape only */
        const int64_t *want = k == 0 ? xs.dims : k == 1 ? wd : (k == 4 || k == 5 || k == 9 || k == 10) ? bh : tbh;
        int nd = k == 0 ? 3 : k == 1 ? 2 : (k == 4 || k == 5 || k == 9 || k == 10) ? 2 : 3;
        /* init_h / init_c may also come as [1, B, H] */
        if ((k == 4 || k == 5) && aclGetTensorDescNumDims(c->in_desc[k]) == 3) {
            int64_t w3[3] = {1, B, H};
            rc = load(c, k, 3, w3, &in[k]);
        } else {
            rc = load(c, k, nd, want, &in[k]);
        }
    }
    if (rc) goto done;
    double *x = in[0], *w = in[1], *h0 = in[4], *c0 = in[5], *hs = in[6], *cs = in[7], *dy = in[8], *Gi = in[11],
           *Gj = in[12], *Gf = in[13], *Go = in[14], *Tc = in[15];
    int64_t TBH = T * B * H;
    out = calloc((size_t)((I + H) * G + G + T * B * I + 2 * B * H + G + (I + H) + 1), sizeof *out);
    if (!out) { rc = ACL_REPORT(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->type); goto done; }
    double *dw = out, *db = dw + (I + H) * G, *dx = db + G, *dhn = dx + T * B * I, *dcn = dhn + B * H, *g = dcn + B * H,
           *dxh = g + G;
    memcpy(dhn, in[9], (size_t)(B * H) * sizeof *dhn);
    memcpy(dcn, in[10], (size_t)(B * H) * sizeof *dcn);
    for (int64_t t = T - 1; t >= 0; t--) {
        for (int64_t n = 0; n < B; n++) {
            const double *hp = t ? hs + ((t - 1) * B + n) * H : h0 + n * H;
            const double *cp = t ? cs + ((t - 1) * B + n) * H : c0 + n * H;
            const double *xt = x + (t * B + n) * I;
            for (int64_t u = 0; u < H; u++) {
                int64_t o = (t * B + n) * H + u;
                double dh = rnd(dy[o] + dhn[n * H + u], dbl);
                double dc = rnd(dcn[n * H + u] + rnd(rnd(dh * Go[o], dbl) * rnd(1 - Tc[o] * Tc[o], dbl), dbl), dbl);
                g[pos[0] * H + u] = rnd(rnd(dc * Gj[o], dbl) * rnd(Gi[o] * (1 - Gi[o]), dbl), dbl);
                g[pos[1] * H + u] = rnd(rnd(dc * Gi[o], dbl) * rnd(1 - Gj[o] * Gj[o], dbl), dbl);
                g[pos[2] * H + u] = rnd(rnd(dc * cp[u], dbl) * rnd(Gf[o] * (1 - Gf[o]), dbl), dbl);
                g[pos[3] * H + u] = rnd(rnd(dh * Tc[o], dbl) * rnd(Go[o] * (1 - Go[o]), dbl), dbl);
                dcn[n * H + u] = rnd(dc * Gf[o], dbl);
            }
            for (int64_t k = 0; k < I + H; k++) {
                double acc = 0, v = k < I ? xt[k] : hp[k - I];
                const double *wr = w + k * G;
                for (int64_t q = 0; q < G; q++) acc += g[q] * wr[q];
                dxh[k] = rnd(acc, dbl);
                double *dwr = dw + k * G;
                for (int64_t q = 0; q < G; q++) dwr[q] += v * g[q];
            }
            for (int64_t q = 0; q < G; q++) db[q] += g[q];
            memcpy(dx + (t * B + n) * I, dxh, (size_t)I * sizeof *dx);
            memcpy(dhn + n * H, dxh + I, (size_t)H * sizeof *dhn);
        }
    }
    (void)TBH;
    rc = store(c, 0, dw, (I + H) * G);
    if (!rc) rc = store(c, 1, db, G);
    if (!rc) rc = store(c, 2, dx, T * B * I);
    if (!rc) rc = store(c, 3, dhn, B * H);
    if (!rc) rc = store(c, 4, dcn, B * H);
done:
    for (int k = 0; k < 16; k++) free(in[k]);
    free(out);
    return rc;
}

/* DynamicGRUV2Grad (reset_after): inputs x, weight_input, weight_hidden, y, init_h, h, dy, dh, update, reset, new,
 * hidden_new (then seq_length and mask, not used); outputs dw_input, dw_hidden, db_input, db_hidden, dx, dh_prev.
 * Per step, backwards: dh_t = dy_t + dh_next; dz = dh_t (h_{t-1} - n) z(1-z); dn = dh_t (1-z)(1-n^2);
 * dr = dn hn r(1-r); x-side gate gradients [dr, dz, dn], hidden-side [dr, dz, dn r] in gate_order;
 * dx_t = gx Wi^T, dh_next = dh_t z + gh Wh^T; dWi += x_t^T gx, dWh += h_{t-1}^T gh, dbi += gx, dbh += gh. */
aclError acl_single_op_dynamic_gru_v2_grad(const acl_single_op_call *c) {
    if (c->nin < 12 || c->nout != 6)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s takes 12 inputs (x, weight_input, weight_hidden, y, init_h, h, "
                          "dy, dh, update, reset, new, hidden_new) and 6 outputs; got %d and %d", c->type, c->nin,
                          c->nout);
    ACL_TRY(common_attrs(c, 0));
    int64_t ra = 1;
    if (acl_op_attr_int(c->attr, "reset_after", &ra) && !ra)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: reset_after false is not run by the emulator", c->type);
    shape_t xs, ws;
    ACL_TRY(get_shape(c, "input", 0, c->in_desc[0], &xs));
    ACL_TRY(get_shape(c, "input", 2, c->in_desc[2], &ws));
    if (xs.nd != 3 || ws.nd != 2 || ws.dims[1] != 3 * ws.dims[0])
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: x must be [T, B, I] and weight_hidden [H, 3H]", c->type);
    int64_t T = xs.dims[0], B = xs.dims[1], I = xs.dims[2], H = ws.dims[0], G = 3 * H;
    int pos[3];
    ACL_TRY(gate_positions(c, "zrh", "rzh", pos));
    int dbl = xs.dt == ACL_DOUBLE;
    aclrtSynchronizeStream(c->stream);
    int64_t wid[2] = {I, G}, whd[2] = {H, G}, tbh[3] = {T, B, H}, bh[2] = {B, H};
    double *in[12] = {0}, *out = NULL;
    aclError rc = ACL_SUCCESS;
    for (int k = 0; k < 12 && !rc; k++) {
        if (k == 3) continue; /* y equals h */
        const int64_t *want = k == 0 ? xs.dims : k == 1 ? wid : k == 2 ? whd : (k == 4 || k == 7) ? bh : tbh;
        rc = load(c, k, (k == 1 || k == 2 || k == 4 || k == 7) ? 2 : 3, want, &in[k]);
    }
    if (rc) goto done;
    double *x = in[0], *wi = in[1], *wh = in[2], *h0 = in[4], *hs = in[5], *dy = in[6], *Z = in[8], *R = in[9],
           *N = in[10], *HN = in[11];
    out = calloc((size_t)(I * G + H * G + 2 * G + T * B * I + B * H + 2 * G + H + 1), sizeof *out);
    if (!out) { rc = ACL_REPORT(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->type); goto done; }
    double *dwi = out, *dwh = dwi + I * G, *dbi = dwh + H * G, *dbh = dbi + G, *dx = dbh + G, *dhn = dx + T * B * I,
           *gx = dhn + B * H, *gh = gx + G, *tmp = gh + G;
    memcpy(dhn, in[7], (size_t)(B * H) * sizeof *dhn);
    int64_t rp = pos[0] * H, zp = pos[1] * H, np = pos[2] * H;
    for (int64_t t = T - 1; t >= 0; t--) {
        for (int64_t n = 0; n < B; n++) {
            const double *hp = t ? hs + ((t - 1) * B + n) * H : h0 + n * H;
            const double *xt = x + (t * B + n) * I;
            double *dhr = dhn + n * H;
            for (int64_t u = 0; u < H; u++) {
                int64_t o = (t * B + n) * H + u;
                double dh = rnd(dy[o] + dhr[u], dbl), z = Z[o], r = R[o], nn = N[o];
                double dz = rnd(rnd(dh * rnd(hp[u] - nn, dbl), dbl) * rnd(z * (1 - z), dbl), dbl);
                double dn = rnd(rnd(dh * rnd(1 - z, dbl), dbl) * rnd(1 - nn * nn, dbl), dbl);
                double dr = rnd(rnd(dn * HN[o], dbl) * rnd(r * (1 - r), dbl), dbl);
                gx[rp + u] = dr, gx[zp + u] = dz, gx[np + u] = dn;
                gh[rp + u] = dr, gh[zp + u] = dz, gh[np + u] = rnd(dn * r, dbl);
                tmp[u] = rnd(dh * z, dbl);
            }
            for (int64_t k = 0; k < I; k++) {
                double acc = 0;
                for (int64_t q = 0; q < G; q++) acc += gx[q] * wi[k * G + q];
                dx[(t * B + n) * I + k] = rnd(acc, dbl);
                for (int64_t q = 0; q < G; q++) dwi[k * G + q] += xt[k] * gx[q];
            }
            for (int64_t k = 0; k < H; k++) {
                double acc = 0;
                for (int64_t q = 0; q < G; q++) acc += gh[q] * wh[k * G + q];
                for (int64_t q = 0; q < G; q++) dwh[k * G + q] += hp[k] * gh[q];
                dhr[k] = rnd(tmp[k] + rnd(acc, dbl), dbl);
            }
            for (int64_t q = 0; q < G; q++) dbi[q] += gx[q], dbh[q] += gh[q];
        }
    }
    rc = store(c, 0, dwi, I * G);
    if (!rc) rc = store(c, 1, dwh, H * G);
    if (!rc) rc = store(c, 2, dbi, G);
    if (!rc) rc = store(c, 3, dbh, G);
    if (!rc) rc = store(c, 4, dx, T * B * I);
    if (!rc) rc = store(c, 5, dhn, B * H);
done:
    for (int k = 0; k < 12; k++) free(in[k]);
    free(out);
    return rc;
}
