"""torch.distributed with backend "hccl" through torch_npu on the emulator: WORLD ranks in separate processes on
one machine (libhccl.so's shared-memory path), each on its own emulated device. Every rank computes what every
collective must give from the seeded inputs of all ranks (on the CPU) and compares.

    python tests/clients/torch_npu_dist.py [WORLD]        (the launcher; prints one line per case and a summary)

Run in the torch_npu environment with set_env.sh sourced (tools/clients/torch_npu.sh does both)."""
import os
import subprocess
import sys
import tempfile


def inputs(rank, n, shape=(4, 5), dtype=None):
    import torch
    g = torch.Generator().manual_seed(100 + rank)
    return torch.randn(*shape, generator=g).to(dtype or torch.float32)


def worker(rank, world, store):
    import torch
    import torch_npu  # noqa: F401
    import torch.distributed as dist
    torch.npu.set_device(rank)
    dev = f"npu:{rank}"
    dist.init_process_group("hccl", init_method="file://" + store, world_size=world, rank=rank)
    results = []

    def case(name, fn):
        try:
            ok = fn()
            results.append((name, "ok" if ok else "MISMATCH"))
        except Exception as e:  # noqa: BLE001
            results.append((name, f"ERROR {type(e).__name__}: {str(e).splitlines()[0][:200]}"))

    xs = [inputs(r, world) for r in range(world)]

    def all_reduce(op, ref):
        def run():
            t = xs[rank].to(dev)
            dist.all_reduce(t, op=op)
            return torch.equal(t.cpu(), ref)
        return run
    ref_sum = xs[0].clone()
    for x in xs[1:]:
        ref_sum = ref_sum + x
    case("all_reduce_sum", all_reduce(dist.ReduceOp.SUM, ref_sum))
    case("all_reduce_max", all_reduce(dist.ReduceOp.MAX, torch.stack(xs).amax(0)))
    case("all_reduce_min", all_reduce(dist.ReduceOp.MIN, torch.stack(xs).amin(0)))

    def all_reduce_dtype(dtype):
        def run():
            vals = [inputs(r, world, dtype=torch.float32).mul(3).round().to(dtype) for r in range(world)]
            t = vals[rank].to(dev)
            dist.all_reduce(t)
            ref = vals[0].float()
            for v in vals[1:]:
                ref = ref + v.float()
            return torch.equal(t.cpu(), ref.to(dtype))
        return run
    for dt in (torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.int8):
        case(f"all_reduce_{str(dt).split('.')[1]}", all_reduce_dtype(dt))

    def broadcast():
        t = xs[rank].to(dev)
        dist.broadcast(t, src=world - 1)
        return torch.equal(t.cpu(), xs[world - 1])
    case("broadcast", broadcast)

    def all_gather():
        out = [torch.empty_like(xs[rank]).to(dev) for _ in range(world)]
        dist.all_gather(out, xs[rank].to(dev))
        return all(torch.equal(o.cpu(), x) for o, x in zip(out, xs))
    case("all_gather", all_gather)

    def all_gather_into_tensor():
        out = torch.empty(world * 4, 5, device=dev)
        dist.all_gather_into_tensor(out, xs[rank].to(dev))
        return torch.equal(out.cpu(), torch.cat(xs))
    case("all_gather_into_tensor", all_gather_into_tensor)

    def reduce_scatter():
        big = [inputs(r, world, shape=(world * 3, 5)) for r in range(world)]
        out = torch.empty(3, 5, device=dev)
        dist.reduce_scatter_tensor(out, big[rank].to(dev))
        ref = big[0][rank * 3:(rank + 1) * 3].clone()
        for b in big[1:]:
            ref = ref + b[rank * 3:(rank + 1) * 3]
        return torch.equal(out.cpu(), ref)
    case("reduce_scatter_tensor", reduce_scatter)

    def reduce():
        t = xs[rank].to(dev)
        dist.reduce(t, dst=0)
        return rank != 0 or torch.equal(t.cpu(), ref_sum)
    case("reduce", reduce)

    def all_to_all_single():
        big = [inputs(r, world, shape=(world * 2, 3)) for r in range(world)]
        out = torch.empty(world * 2, 3, device=dev)
        dist.all_to_all_single(out, big[rank].to(dev))
        ref = torch.cat([big[k][rank * 2:(rank + 1) * 2] for k in range(world)])
        return torch.equal(out.cpu(), ref)
    case("all_to_all_single", all_to_all_single)

    def send_recv():
        if rank == 0:
            dist.send(xs[0].to(dev), dst=1)
            return True
        if rank == 1:
            t = torch.empty(4, 5, device=dev)
            dist.recv(t, src=0)
            return torch.equal(t.cpu(), xs[0])
        return True
    case("send_recv", send_recv)

    def batch_isend_irecv():
        t = torch.empty(4, 5, device=dev)
        ops = [dist.P2POp(dist.isend, xs[rank].to(dev), (rank + 1) % world),
               dist.P2POp(dist.irecv, t, (rank - 1) % world)]
        for r in dist.batch_isend_irecv(ops):
            r.wait()
        return torch.equal(t.cpu(), xs[(rank - 1) % world])
    case("batch_isend_irecv_ring", batch_isend_irecv)

    def barrier():
        dist.barrier()
        return True
    case("barrier", barrier)

    def new_group():
        members = [0, world - 1]
        g = dist.new_group(members)
        t = xs[rank].to(dev)
        if rank in members:
            dist.all_reduce(t, group=g)
            return torch.equal(t.cpu(), xs[0] + xs[world - 1])
        return True
    case("new_group_all_reduce", new_group)

    def ddp_step():
        torch.manual_seed(0)
        net = torch.nn.Linear(5, 2)
        ref = torch.nn.Linear(5, 2)
        ref.load_state_dict(net.state_dict())
        ddp = torch.nn.parallel.DistributedDataParallel(net.to(dev), device_ids=[rank])
        ddp(xs[rank].to(dev)).sum().backward()
        ref(torch.cat(xs)).sum().backward()  # the mean over ranks of each rank's gradient
        return torch.allclose(net.weight.grad.cpu(), ref.weight.grad / world, rtol=1e-5, atol=1e-5)
    case("ddp_gradient", ddp_step)

    dist.destroy_process_group()
    for name, res in results:
        print(f"RESULT {rank} {name} {res}", flush=True)


def main():
    world = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 2
    if len(sys.argv) > 2 and sys.argv[1] == "--rank":
        worker(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        return 0
    store = os.path.join(tempfile.mkdtemp(), "store")
    env = dict(os.environ, PYACLNN_DEVICE_COUNT=str(max(world, int(os.environ.get("PYACLNN_DEVICE_COUNT", "1")))),
               HCCL_EXEC_TIMEOUT=os.environ.get("HCCL_EXEC_TIMEOUT", "120"))
    procs = [subprocess.Popen([sys.executable, __file__, "--rank", str(r), str(world), store], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(world)]
    outs = [p.communicate(timeout=600) for p in procs]
    table = {}
    for r, (p, (out, err)) in enumerate(zip(procs, outs)):
        lines = [ln.split(" ", 3) for ln in out.splitlines() if ln.startswith("RESULT ")]
        for _, rk, name, res in lines:
            table.setdefault(name, {})[int(rk)] = res
        if p.returncode != 0 or not lines:
            sys.stderr.write(f"rank {r} exited with {p.returncode}\n{err[-4000:]}\n")
    good = 0
    for name, per in table.items():
        ok = len(per) == world and all(v == "ok" for v in per.values())
        good += ok
        bad = "; ".join(f"rank {k}: {v}" for k, v in sorted(per.items()) if v != "ok")
        print(f"{name:28s} {'ok' if ok else 'FAIL'} {bad}")
    print(f"torch.distributed hccl, world {world}: {good}/{len(table)} cases equal on every rank")
    return 0 if table and good == len(table) and all(p.returncode == 0 for p in procs) else 1


if __name__ == "__main__":
    sys.exit(main())
