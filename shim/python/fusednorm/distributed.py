"""DTensor sharding strategies for torch.ops.fusednorm.* (tensor / sequence parallel activations).

Rows are independent, so every op runs shard-local when its activations are sharded over any
leading (row) dim and the weight is replicated: y, residual_out, rstd and dx keep the input's
sharding; dw is a sum over rows, so it comes out Partial (summed when it is redistributed, as
torch's own norms do). Fully replicated inputs give replicated outputs. Nothing else is offered:
activations sharded over the normalized (last) dim, or a sharded weight, are redistributed by
DTensor to one of the above (an all-gather of the normalized dim) before the op runs, so the
result is the gathered one — correct, at the cost of the communication.

FSDP2 (fully_shard) needs none of this: it all-gathers the parameters before each forward, so the
ops see plain tensors. Registered when fusednorm is imported, if torch.distributed is available.
"""

import torch


def _register():
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor.experimental import register_sharding

    ops = torch.ops.fusednorm
    R = Replicate()

    def rows(x):
        return range(x.ndim - 1)  # every leading dim; rstd = x.shape[:-1] shards along

    def wspec(w):
        return None if w is None else R

    @register_sharding(ops.rms_norm_fwd.default)
    def _rms_norm_fwd(x, weight, eps, offset, casting, mode):
        tail = [None] * 4
        out = [([R, R], [R, wspec(weight)] + tail)]
        for d in rows(x):
            out.append(([Shard(d), Shard(d)], [Shard(d), wspec(weight)] + tail))
        return out

    @register_sharding(ops.fused_add_rms_norm_fwd.default)
    def _fused_add_fwd(x, residual, weight, eps, offset, casting, mode):
        tail = [None] * 4
        out = [([R, R, R], [R, R, wspec(weight)] + tail)]
        for d in rows(x):
            s = Shard(d)
            out.append(([s, s, s], [s, s, wspec(weight)] + tail))
        return out

    def dw_out(weight, sharded):
        if weight is None:
            return None
        return Partial() if sharded else R

    @register_sharding(ops.rms_norm_bwd.default)
    def _rms_norm_bwd(dy, s, weight, rstd, eps, offset, casting, mode):
        tail = [None] * 4
        out = [([R, dw_out(weight, False)], [R, R, wspec(weight), R] + tail)]
        for d in rows(s):
            sh = Shard(d)
            out.append(([sh, dw_out(weight, True)], [sh, sh, wspec(weight), sh] + tail))
        return out

    @register_sharding(ops.fused_add_rms_norm_bwd.default)
    def _fused_add_bwd(dy, s, ds, weight, rstd, eps, offset, casting, mode):
        tail = [None] * 4
        dsp = (lambda p: None if ds is None else p)
        out = [([R, dw_out(weight, False)], [R, R, dsp(R), wspec(weight), R] + tail)]
        for d in rows(s):
            sh = Shard(d)
            out.append(([sh, dw_out(weight, True)], [sh, sh, dsp(sh), wspec(weight), sh] + tail))
        return out


registered = False
if torch.distributed.is_available():
    try:
        _register()
        registered = True
    except ImportError:  # a torch without DTensor: nothing to register
        pass
