"""PyTorch on device "npu" (torch_npu over the pyaclnn toolkit tree) compared with the same program on the CPU.

Run by tools/clients/torch_npu.sh (`make client-torch`), in an environment where torch==2.13.0 and
torch-npu==2.13.0 are installed and set_env.sh is sourced. Prints one row per torch op: ok / MISMATCH / ERROR and
the path it took: "aclnn" (no single-operator call), "single-op <types>" (torch_npu fell back to
aclopCompileAndExecute with those operator types), with the error's first line when it failed. Exit status 0 when
every case in REQUIRED passes.
"""
import os
import sys
import tempfile
import time

import torch
import torch_npu  # noqa: F401

LOG = os.environ.setdefault("PYACLNN_SINGLE_OP_LOG", os.path.join(tempfile.mkdtemp(), "single_op.log"))
DEV = "npu"
torch.manual_seed(0)


def single_ops():
    if not os.path.exists(LOG):
        return []
    with open(LOG) as f:
        types = [line.split()[0] for line in f if line.strip()]
    os.remove(LOG)
    return types


def same(a, b, rtol, atol):
    if isinstance(a, (tuple, list)):
        return all(same(x, y, rtol, atol) for x, y in zip(a, b))
    if not isinstance(a, torch.Tensor):
        return a == b
    b = b.cpu()
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point or a.dtype.is_complex:
        return torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    return torch.equal(a, b)


def to(x, dev):
    if isinstance(x, torch.Tensor):
        return x.to(dev)
    if isinstance(x, (tuple, list)):
        return type(x)(to(v, dev) for v in x)
    return x


ROWS = []


def case(name, fn, *args, rtol=1e-4, atol=1e-5):
    single_ops()
    try:
        want = fn(*args)
        got = fn(*to(args, DEV))
        if isinstance(got, torch.Tensor) or isinstance(got, (tuple, list)):
            torch.npu.synchronize()
        ok = same(want, got, rtol, atol)
        status, err = ("ok" if ok else "MISMATCH"), ""
    except Exception as e:  # noqa: BLE001 - the row records it
        status, err = "ERROR", str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
    types = single_ops()
    path = ("single-op " + ",".join(sorted(set(types)))) if types else "aclnn"
    ROWS.append((name, status, path, err))
    print(f"{name:28s} {status:8s} {path:30s} {err}", flush=True)


def main():
    f32 = torch.randn(4, 5)
    g32 = torch.randn(4, 5)
    row = torch.randn(5)
    # creation
    for nm, mk in [("ones", lambda d: torch.ones(3, 4, device=d)), ("zeros", lambda d: torch.zeros(3, 4, device=d)),
                   ("full", lambda d: torch.full((2, 3), 2.5, device=d)),
                   ("arange", lambda d: torch.arange(0, 10, 2, device=d)),
                   ("arange_f", lambda d: torch.arange(0.0, 1.0, 0.25, device=d)),
                   ("eye", lambda d: torch.eye(3, device=d))]:
        case(nm, lambda dev, mk=mk: mk(dev.device if isinstance(dev, torch.Tensor) else dev),
             torch.empty(0))
    # copies for every dtype
    for dt in [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.uint8, torch.int16,
               torch.int32, torch.int64, torch.bool, torch.complex64]:
        x = (torch.randn(3, 4) * 10).to(dt)
        case(f"copy_{str(dt)[6:]}", lambda t: t.clone(), x)
    case("copy_noncontig", lambda t: t.t().contiguous(), f32)
    # elementwise
    case("add", torch.add, f32, g32)
    case("add_broadcast", torch.add, f32, row)
    case("add_scalar", lambda a: a + 2.5, f32)
    case("sub", torch.sub, f32, g32)
    case("mul_broadcast", torch.mul, f32, row)
    case("div", torch.div, f32, g32 + 3)
    case("pow", torch.pow, f32.abs(), 2.0)
    case("exp", torch.exp, f32)
    case("log", torch.log, f32.abs() + 1)
    case("sqrt", torch.sqrt, f32.abs())
    case("abs", torch.abs, f32)
    case("neg", torch.neg, f32)
    case("add_int", torch.add, torch.arange(6).reshape(2, 3), torch.arange(3))
    case("add_f16", torch.add, f32.half(), g32.half(), rtol=1e-3, atol=1e-3)
    # comparisons / where
    case("gt", torch.gt, f32, g32)
    case("eq_scalar", lambda a: a == 0, torch.arange(6) % 3)
    case("where", torch.where, f32 > 0, f32, g32)
    case("maximum", torch.maximum, f32, g32)
    case("clamp", lambda a: a.clamp(-0.5, 0.5), f32)
    # reductions
    case("sum", torch.sum, f32)
    case("sum_dim", lambda a: a.sum(1), f32)
    case("mean", torch.mean, f32)
    case("mean_dim", lambda a: a.mean(0, keepdim=True), f32)
    case("max_dim", lambda a: a.max(1), f32)
    case("argmax", lambda a: a.argmax(1), f32)
    case("prod", lambda a: a.prod(1), f32)
    case("std", lambda a: a.std(1), f32)
    case("cumsum", lambda a: a.cumsum(1), f32)
    case("sort", lambda a: a.sort(1), f32)
    case("topk", lambda a: a.topk(2, 1), f32)
    # matmul family
    a, b = torch.randn(4, 6), torch.randn(6, 3)
    case("matmul", torch.matmul, a, b, rtol=1e-3, atol=1e-4)
    case("mm", torch.mm, a, b, rtol=1e-3, atol=1e-4)
    case("bmm", torch.bmm, torch.randn(2, 4, 6), torch.randn(2, 6, 3), rtol=1e-3, atol=1e-4)
    case("linear", torch.nn.functional.linear, a, torch.randn(3, 6), torch.randn(3), rtol=1e-3, atol=1e-4)
    case("addmm", torch.addmm, torch.randn(4, 3), a, b, rtol=1e-3, atol=1e-4)
    # activations, softmax
    F = torch.nn.functional
    case("relu", F.relu, f32)
    case("gelu", F.gelu, f32)
    case("sigmoid", torch.sigmoid, f32)
    case("tanh", torch.tanh, f32)
    case("silu", F.silu, f32)
    case("softmax", lambda t: F.softmax(t, 1), f32)
    case("log_softmax", lambda t: F.log_softmax(t, 1), f32)
    # norms
    x4 = torch.randn(2, 4, 5, 5)
    case("layer_norm", lambda t: F.layer_norm(t, (5,)), f32)
    case("group_norm", lambda t: F.group_norm(t, 2), x4)
    case("batch_norm_eval", lambda t, m, v: F.batch_norm(t, m, v), x4, torch.randn(4), torch.rand(4) + 0.5)
    case("batch_norm_train", lambda t: F.batch_norm(t, None, None, training=True), x4)
    # conv, pooling, resampling
    case("conv2d", F.conv2d, x4, torch.randn(3, 4, 3, 3), rtol=1e-3, atol=1e-4)
    case("max_pool2d", lambda t: F.max_pool2d(t, 2), x4)
    case("avg_pool2d", lambda t: F.avg_pool2d(t, 2), x4)
    case("adaptive_avg_pool2d", lambda t: F.adaptive_avg_pool2d(t, 1), x4)
    case("interpolate_nearest", lambda t: F.interpolate(t, scale_factor=2), x4)
    case("interpolate_bilinear", lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"), x4)
    case("grid_sample", lambda t, g: F.grid_sample(t, g, align_corners=False), x4, torch.rand(2, 3, 3, 2) * 2 - 1)
    # indexing
    idx = torch.tensor([0, 2, 1])
    case("index_select", lambda t, i: t.index_select(0, i), f32, idx)
    case("gather", lambda t, i: t.gather(1, i), f32, torch.randint(0, 5, (4, 2)))
    case("scatter_add", lambda t, i, s: t.scatter_add(1, i, s), f32, torch.randint(0, 5, (4, 2)), torch.randn(4, 2))
    case("embedding", F.embedding, torch.tensor([[0, 2], [1, 3]]), torch.randn(4, 3))
    case("getitem_bool", lambda t: t[t > 0], f32)
    # shapes
    case("cat", lambda a, b: torch.cat([a, b], 0), f32, g32)
    case("stack", lambda a, b: torch.stack([a, b], 1), f32, g32)
    case("transpose", lambda t: t.transpose(0, 1).contiguous(), f32)
    case("permute", lambda t: t.permute(1, 0).contiguous(), f32)
    case("flip", lambda t: t.flip(1), f32)
    case("roll", lambda t: t.roll(1, 1), f32)
    case("tril", torch.tril, f32)
    # losses
    case("mse_loss", F.mse_loss, f32, g32)
    case("cross_entropy", F.cross_entropy, f32, torch.tensor([0, 4, 2, 1]))
    case("nll_loss", F.nll_loss, F.log_softmax(f32, 1), torch.tensor([0, 4, 2, 1]))
    case("bce_with_logits", F.binary_cross_entropy_with_logits, f32, torch.rand(4, 5))
    # training: backward of a small CNN, SGD and Adam steps of an MLP
    def cnn_grad(x, w1, w2):
        w1 = w1.clone().requires_grad_()
        w2 = w2.clone().requires_grad_()
        y = F.relu(F.conv2d(x, w1, padding=1))
        y = F.max_pool2d(y, 2).flatten(1) @ w2
        y.sum().backward()
        return w1.grad, w2.grad
    case("cnn_backward", cnn_grad, x4, torch.randn(3, 4, 3, 3), torch.randn(12, 2), rtol=1e-3, atol=1e-3)

    def mlp_train(opt_name):
        def run(x, y):
            torch.manual_seed(1)
            net = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
            net = net.to(x.device)
            opt = (torch.optim.SGD(net.parameters(), lr=0.1) if opt_name == "sgd"
                   else torch.optim.Adam(net.parameters(), lr=0.01, foreach=False))
            for _ in range(3):
                opt.zero_grad()
                F.mse_loss(net(x), y).backward()
                opt.step()
            return [p.detach() for p in net.parameters()]
        return run
    y = torch.randn(4, 1)
    case("mlp_sgd_3_steps", mlp_train("sgd"), f32, y, rtol=1e-3, atol=1e-4)
    case("mlp_adam_3_steps", mlp_train("adam"), f32, y, rtol=1e-3, atol=1e-4)

    # torch.distributed over libhccl.so, a world of one rank: collectives leave the data as it is
    def dist_one_rank(x):
        import torch.distributed as dist
        if x.device.type == "cpu":
            return [x.clone(), x.clone()]
        dist.init_process_group("hccl", init_method="file://" + os.path.join(tempfile.mkdtemp(), "store"),
                                world_size=1, rank=0)
        try:
            t = x.clone()
            dist.all_reduce(t)
            out = [torch.empty_like(t)]
            dist.all_gather(out, t)
            dist.broadcast(t, 0)
            return [t, out[0]]
        finally:
            dist.destroy_process_group()
    case("hccl_one_rank", dist_one_rank, f32)

    # one training step's time
    def step_time(dev):
        torch.manual_seed(1)
        net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).to(dev)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        x, t = torch.randn(32, 64).to(dev), torch.randint(0, 10, (32,)).to(dev)
        best = 1e9
        for _ in range(3):
            t0 = time.perf_counter()
            opt.zero_grad()
            F.cross_entropy(net(x), t).backward()
            opt.step()
            if dev != "cpu":
                torch.npu.synchronize()
            best = min(best, time.perf_counter() - t0)
        return best
    try:
        print(f"training step (MLP 64-128-10, batch 32): cpu {step_time('cpu')*1e3:.2f} ms, "
              f"npu {step_time(DEV)*1e3:.2f} ms")
    except Exception as e:  # noqa: BLE001
        print("training step on npu failed:", str(e).splitlines()[0][:160] if str(e) else type(e).__name__)
    n_ok = sum(r[1] == "ok" for r in ROWS)
    print(f"{n_ok}/{len(ROWS)} torch ops equal to the CPU")
    return 0 if n_ok == len(ROWS) else 1


if __name__ == "__main__":
    sys.exit(main())
