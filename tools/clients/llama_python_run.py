"""Greedy generation with llama-cpp-python on the CPU backend and on the emulated CANN device, compared.

Run by tools/clients/llama_python.sh inside its virtual environment (llama_cpp built with -DGGML_CANN=on, gguf,
numpy) after set_env.sh of the toolkit tree. Writes a tiny llama-architecture model with random weights (fixed seed)
with the `gguf` package - one file with f32 weights, one with f16 matrices (norms stay f32, as llama.cpp's own
converter writes them) - loads each with llama_cpp.Llama twice, n_gpu_layers=0 (CPU backend) and n_gpu_layers=-1
(every layer and the output on CANN0), and generates the same number of tokens greedily (temp 0, top_k 1) from the
same prompt. Prints both token lists, whether they are equal, the first step whose logits differ most, and the time
per token; writes WORK/result.json. Exit status 0 when every compared model generates the same tokens on both.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

# the model: 2 layers, dim 128, 4 query heads sharing 2 kv heads (GQA), SwiGLU FFN, 512-token SentencePiece-style vocab
N_LAYER, N_EMBD, N_HEAD, N_HEAD_KV, N_FF, N_VOCAB, N_CTX = 2, 128, 4, 2, 256, 512, 256
PROMPT = b"Once upon a time, there was a little robot who lived in a quiet town"

WORDS = ("the a an and of to in is was it he she they we you i that this with for on at by from as but not be "
         "have had has do did said there then when what who where why how one two little big old new good time day "
         "night robot cat dog town house tree sun moon star sea boat king queen girl boy man woman friend home way "
         "once upon lived quiet happy sad run ran walk play saw see look went go come came went back up down out "
         "very so all some many more most other any each every no yes").split()


def vocab():
    """A SentencePiece ("llama") vocabulary llama.cpp's loader accepts: <unk>, <s>, </s>, the 256 byte-fallback
    tokens <0xXX>, then pieces (letters, '▁'-prefixed words, two-letter pieces), scores decreasing by position."""
    toks = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    types = [2, 3, 3] + [6] * 256
    pieces = ["\u2581"] + [chr(c) for c in range(ord("a"), ord("z") + 1)] + [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    pieces += list(".,!?'")
    seen = set(toks) | set(pieces)
    for w in WORDS:
        for p in ("\u2581" + w, "\u2581" + w.capitalize()):
            if p not in seen:
                pieces.append(p)
                seen.add(p)
    letters = "etaoinshrdlucmfwyp"
    for a in letters:
        for b in letters:
            if len(toks) + len(pieces) >= N_VOCAB:
                break
            if a + b not in seen:
                pieces.append(a + b)
                seen.add(a + b)
    pieces = pieces[:N_VOCAB - len(toks)]
    toks += pieces
    types += [1] * len(pieces)
    scores = [0.0] * 259 + [-float(i) for i in range(len(pieces))]
    assert len(toks) == N_VOCAB and len(set(toks)) == N_VOCAB
    return toks, scores, types


def write_model(path, dtype, seed=1234):
    import gguf
    rng = np.random.default_rng(seed)
    head_dim = N_EMBD // N_HEAD

    def mat(rows, cols, scale=1.0):
        return (rng.standard_normal((rows, cols)) * (scale / np.sqrt(cols))).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("pyaclnn-tiny-llama-%s" % dtype)
    w.add_context_length(N_CTX)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(N_VOCAB)
    w.add_file_type(gguf.LlamaFileType.ALL_F32 if dtype == "f32" else gguf.LlamaFileType.MOSTLY_F16)
    toks, scores, types = vocab()
    w.add_tokenizer_model("llama")
    w.add_token_list(toks)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_unk_token_id(0)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(True)

    cast = (lambda a: a) if dtype == "f32" else (lambda a: a.astype(np.float16))
    # numpy shape (rows, cols) is ggml's ne = [cols, rows]: token_embd [n_vocab, n_embd] holds one row per token
    w.add_tensor("token_embd.weight", cast(rng.standard_normal((N_VOCAB, N_EMBD)).astype(np.float32)))
    for i in range(N_LAYER):
        b = "blk.%d." % i
        w.add_tensor(b + "attn_norm.weight", norm(N_EMBD))
        w.add_tensor(b + "attn_q.weight", cast(mat(N_HEAD * head_dim, N_EMBD)))
        w.add_tensor(b + "attn_k.weight", cast(mat(N_HEAD_KV * head_dim, N_EMBD)))
        w.add_tensor(b + "attn_v.weight", cast(mat(N_HEAD_KV * head_dim, N_EMBD)))
        w.add_tensor(b + "attn_output.weight", cast(mat(N_EMBD, N_HEAD * head_dim)))
        w.add_tensor(b + "ffn_norm.weight", norm(N_EMBD))
        w.add_tensor(b + "ffn_gate.weight", cast(mat(N_FF, N_EMBD)))
        w.add_tensor(b + "ffn_up.weight", cast(mat(N_FF, N_EMBD)))
        w.add_tensor(b + "ffn_down.weight", cast(mat(N_EMBD, N_FF)))
    w.add_tensor("output_norm.weight", norm(N_EMBD))
    # logits of standard deviation ~4: greedy choices are not near-ties, so the comparison is about the ops
    w.add_tensor("output.weight", cast(mat(N_VOCAB, N_EMBD, scale=4.0)))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def reference_logits(path, prompt, tokens, linear_f16):
    """The model's logits at each generation step, in numpy (float64 plus explicit f16 roundings), teacher-forced with
    `tokens`: an oracle independent of both backends. Both: the KV cache holds f16 (llama.cpp's default
    type_k/type_v). linear_f16=None models the CPU backend: q and the attention probabilities meet the f16 cache as
    f16 (ggml's f16 mul_mat converts its other operand), and with f16 weights so do the activations (its f16
    vec_dot). linear_f16=True models ggml-cann on a real device: the 2-d matmuls of the linear layers run as aclnnMm
    with cubeMathType USE_FP16 (f16 inputs, an f16 result), the attention products as aclnnMatmul with
    ALLOW_FP32_DOWN_PRECISION (f32 against the f16 cache)."""
    import gguf
    rd = gguf.GGUFReader(str(path))
    W = {t.name: np.array(t.data, dtype=np.float64).reshape(tuple(int(d) for d in reversed(t.shape)))
         if len(t.shape) > 1 else np.array(t.data, dtype=np.float64) for t in rd.tensors}
    w16 = any(t.tensor_type.name == "F16" for t in rd.tensors)
    f16 = lambda a: a.astype(np.float16).astype(np.float64)
    hd, rep, eps = N_EMBD // N_HEAD, N_HEAD // N_HEAD_KV, 1e-5

    def lin(w, x):  # x: [n, in] -> [n, out]
        if linear_f16:
            return f16(f16(x) @ f16(w).T)
        return (f16(x) if w16 else x) @ w.T

    def rms(x, w):
        return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * w

    def rope(x, pos):  # x: [n, heads, hd], llama's NORM mode: pairs (2i, 2i+1)
        th = pos[:, None] * 10000.0 ** (-np.arange(0, hd, 2) / hd)[None, :]
        c, s_ = np.cos(th)[:, None, :], np.sin(th)[:, None, :]
        x0, x1 = x[..., 0::2], x[..., 1::2]
        out = np.empty_like(x)
        out[..., 0::2], out[..., 1::2] = x0 * c - x1 * s_, x0 * s_ + x1 * c
        return out

    kc = [np.zeros((0, N_HEAD_KV, hd)) for _ in range(N_LAYER)]
    vc = [np.zeros((0, N_HEAD_KV, hd)) for _ in range(N_LAYER)]
    seq, out = list(prompt), []
    feed = list(prompt)
    for step in range(len(tokens)):
        n0 = len(seq) - len(feed)
        pos = np.arange(n0, len(seq), dtype=np.float64)
        x = W["token_embd.weight"][feed]
        for i in range(N_LAYER):
            b = "blk.%d." % i
            h = rms(x, W[b + "attn_norm.weight"])
            q = rope(lin(W[b + "attn_q.weight"], h).reshape(-1, N_HEAD, hd), pos)
            k = rope(lin(W[b + "attn_k.weight"], h).reshape(-1, N_HEAD_KV, hd), pos)
            v = lin(W[b + "attn_v.weight"], h).reshape(-1, N_HEAD_KV, hd)
            kc[i] = np.concatenate([kc[i], f16(k)])
            vc[i] = np.concatenate([vc[i], f16(v)])
            att = np.empty((len(feed), N_HEAD, hd))
            for hh in range(N_HEAD):
                # ggml-cann: the GQA-broadcast attention products are > 3-d, so they go to aclnnMatmul with
                # ALLOW_FP32_DOWN_PRECISION: f32 (HF32 on a device) against the f16 cache, no f16 result
                sc = (q[:, hh] if linear_f16 else f16(q[:, hh])) @ kc[i][:, hh // rep].T / np.sqrt(hd)
                sc = sc + np.where(np.arange(len(seq))[None, :] > pos[:, None], -np.inf, 0.0)
                pr = np.exp(sc - sc.max(axis=1, keepdims=True))
                pr /= pr.sum(axis=1, keepdims=True)
                att[:, hh] = (pr if linear_f16 else f16(pr)) @ vc[i][:, hh // rep]
            x = x + lin(W[b + "attn_output.weight"], att.reshape(len(feed), -1))
            h = rms(x, W[b + "ffn_norm.weight"])
            g, u = lin(W[b + "ffn_gate.weight"], h), lin(W[b + "ffn_up.weight"], h)
            x = x + lin(W[b + "ffn_down.weight"], g / (1.0 + np.exp(-g)) * u)
        out.append(lin(W["output.weight"], rms(x[-1:], W["output_norm.weight"]))[0])
        seq.append(tokens[step])
        feed = [tokens[step]]
    return np.stack(out)


def generate(model, n_gpu_layers, n_tokens, threads):
    import llama_cpp
    t0 = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(model), n_gpu_layers=n_gpu_layers, n_ctx=N_CTX, n_batch=N_CTX,
                          n_threads=threads, n_threads_batch=threads, seed=0, verbose=False,
                          op_offload=n_gpu_layers != 0)
    t_load = time.perf_counter() - t0
    prompt = llm.tokenize(PROMPT, add_bos=True)
    toks, logits, stamps = [], [], []
    t0 = time.perf_counter()
    for tok in llm.generate(prompt, top_k=1, top_p=1.0, min_p=0.0, temp=0.0, repeat_penalty=1.0):
        stamps.append(time.perf_counter())
        toks.append(int(tok))
        # the logits the token was chosen from: the context's last output row (llama_get_logits_ith(ctx, -1))
        row = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),))
        logits.append(row.astype(np.float32))
        if len(toks) == n_tokens:
            break
    first = stamps[0] - t0  # prompt evaluation + the first token
    per_tok = (stamps[-1] - stamps[0]) / max(1, len(stamps) - 1)
    # llama.cpp's own counters: prompt evaluation, and the single-token decodes (the last token is never decoded)
    perf = llama_cpp.llama_perf_context(llm._ctx.ctx)
    text = llm.detokenize(toks).decode("utf-8", "replace")
    del llm
    return dict(tokens=toks, prompt=list(prompt), prompt_tokens=len(prompt), load_s=t_load, first_token_s=first,
                s_per_token=per_tok, llama_prompt_ms=perf.t_p_eval_ms, llama_eval_ms=perf.t_eval_ms,
                llama_n_eval=perf.n_eval, text=text), np.stack(logits)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--work", required=True)
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--models", default="f32,f16")
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "2")))
    ap.add_argument("--repeat", type=int, default=3, help="runs per backend; the fastest is reported")
    ap.add_argument("--no-reference", action="store_true", help="skip the numpy reference forward pass")
    ap.add_argument("--only", choices=["cpu", "cann"], help="run one backend (for debugging)")
    a = ap.parse_args()
    import llama_cpp
    with open("/proc/self/maps") as f:  # which emulator library the CANN backend runs on
        libs = sorted({ln.split()[-1] for ln in f if "libpyaclnn" in ln or "libggml-cann" in ln})
    print("llama_cpp %s, %d threads; loaded: %s" % (llama_cpp.__version__, a.threads, ", ".join(libs) or "?"))
    results, ok = {}, True
    for dt in a.models.split(","):
        path = os.path.join(a.work, "tiny-llama-%s.gguf" % dt)
        write_model(path, dt)
        print("\n== model %s (%s): %d layers, dim %d, %d heads / %d kv heads, ffn %d, vocab %d"
              % (dt, path, N_LAYER, N_EMBD, N_HEAD, N_HEAD_KV, N_FF, N_VOCAB))
        r, lg = {}, {}
        for name, ngl in (("cpu", 0), ("cann", -1)):
            if a.only and a.only != name:
                continue
            runs = [generate(path, ngl, a.tokens, a.threads) for _ in range(a.repeat)]
            # the fastest of the repeats (the machine is shared); every repeat must produce the same tokens and
            # bit-identical logits (determinism of both backends)
            r[name], lg[name] = min(runs, key=lambda x: x[0]["s_per_token"])
            r[name]["repeats_identical"] = all(x[0]["tokens"] == runs[0][0]["tokens"] and
                                               np.array_equal(x[1], runs[0][1]) for x in runs)
            r[name]["s_per_token_all"] = [x[0]["s_per_token"] for x in runs]
            ok = ok and r[name]["repeats_identical"]
            np.save(os.path.join(a.work, "logits-%s-%s.npy" % (dt, name)), lg[name])
            print("%-4s n_gpu_layers=%2d: %s" % (name, ngl, r[name]["tokens"]))
            q = r[name]
            print("     %.2f ms/token (llama.cpp: %.2f ms per decode of 1 token over %d, prompt of %d tokens %.1f ms);"
                  " load %.2f s; text %r"
                  % (1e3 * q["s_per_token"], q["llama_eval_ms"] / max(1, q["llama_n_eval"]), q["llama_n_eval"],
                     q["prompt_tokens"], q["llama_prompt_ms"], q["load_s"], q["text"]))
            print("     %d runs, ms/token %s; tokens and logits identical in every run: %s"
                  % (a.repeat, " ".join("%.2f" % (1e3 * t) for t in q["s_per_token_all"]), q["repeats_identical"]))
        if len(r) == 2:
            c, n = r["cpu"]["tokens"], r["cann"]["tokens"]
            eq = c == n
            r["equal"] = eq
            diff = [i for i in range(min(len(c), len(n))) if c[i] != n[i]]
            # logits are comparable up to (and including) the first step whose token differs
            last = diff[0] if diff else min(len(c), len(n)) - 1
            d = np.abs(lg["cpu"][:last + 1] - lg["cann"][:last + 1])
            r["max_abs_logit_diff"] = float(d.max())
            r["max_rel_logit_diff"] = float((d / np.abs(lg["cpu"][:last + 1]).max(axis=1, keepdims=True)).max())
            srt = np.sort(lg["cpu"], axis=1)
            r["min_top2_gap_cpu"] = float((srt[:, -1] - srt[:, -2]).min())
            print("tokens %s; logits max |cpu - cann| %.3g (relative to each step's max %.3g) over steps 0..%d; "
                  "smallest top-2 logit gap on the CPU %.3g"
                  % ("EQUAL" if eq else "DIFFER at step %d" % diff[0], r["max_abs_logit_diff"],
                     r["max_rel_logit_diff"], last, r["min_top2_gap_cpu"]))
            if diff:
                i = diff[0]
                for name in ("cpu", "cann"):
                    top = np.argsort(-lg[name][i])[:3]
                    print("     step %d %s top-3: %s" % (i, name, ", ".join("%d:%.5f" % (t, lg[name][i][t]) for t in top)))
            ok = ok and eq
            # the independent oracle: which rounding model does each backend follow?
            if not a.no_reference:
                ref = {"plain": reference_logits(path, r["cpu"]["prompt"], c, None),
                       "usefp16": reference_logits(path, r["cpu"]["prompt"], c, True)}
                r["reference"] = {}
                for name in ("cpu", "cann"):
                    for rn, rl in ref.items():
                        d = float(np.abs(lg[name][:last + 1] - rl[:last + 1]).max())
                        r["reference"]["%s_vs_%s" % (name, rn)] = d
                # the same in units of the f16 spacing at each step's largest logit (the device's output projection
                # rounds the logits to f16, so about 0.5 is the floor)
                rl = ref["usefp16"][:last + 1]
                ulp = 2.0 ** (np.floor(np.log2(np.abs(rl).max(axis=1, keepdims=True))) - 10)
                r["reference"]["cann_vs_usefp16_ulps"] = float((np.abs(lg["cann"][:last + 1] - rl) / ulp).max())
                print("     numpy reference, max |logits - ref| over those steps: " + ", ".join(
                    "%s %.3g" % (k, v) for k, v in r["reference"].items()))
                print("     (plain: the CPU backend's roundings; usefp16: ggml-cann's - f16 linear layers "
                      "(cubeMathType USE_FP16), f32 attention products; ulps: f16 spacing at the step's largest logit)")
        results[dt] = r
    with open(os.path.join(a.work, "result.json"), "w") as f:
        json.dump(results, f, indent=1)
    print("\nresult: %s" % ("every model generates the same tokens on CPU and CANN0" if ok else "DIFFERENT tokens"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
