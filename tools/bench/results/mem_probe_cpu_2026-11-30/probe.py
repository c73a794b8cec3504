import sys, torch, transformers as T
sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__file__), '../../../../shim/python'))
import fusednorm
from functorch.compile import make_boxed_func, min_cut_rematerialization_partition
from torch._dynamo.backends.common import aot_autograd

def saved(model, B=2, S=64, vocab=512):
    graphs = []
    def keep(gm, inputs):
        graphs.append(gm); return make_boxed_func(gm.forward)
    torch._dynamo.reset()
    be = aot_autograd(fw_compiler=keep, bw_compiler=keep, partition_fn=min_cut_rematerialization_partition)
    comp = torch.compile(model, fullgraph=True, backend=be)
    ids = torch.randint(3, vocab, (B, S))
    comp(input_ids=ids, labels=ids).loss.backward()
    fw = graphs[0]
    out = [n for n in fw.graph.nodes if n.op == 'output'][0]
    vals = out.args[0]
    res = []
    for v in vals:
        if hasattr(v, 'meta') and 'val' in v.meta and isinstance(v.meta['val'], torch.Tensor):
            t = v.meta['val']
            res.append((v.name, tuple(t.shape), str(t.dtype).replace('torch.', ''), t.numel() * t.element_size(), str(v.target)))
    return res

def build(kind, patched, dtype):
    torch.manual_seed(0)
    if kind == 'qwen3':
        cfg = T.Qwen3Config(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2, head_dim=64,
                            max_position_embeddings=128, pad_token_id=0, tie_word_embeddings=True)
        cls = T.Qwen3ForCausalLM
    elif kind == 'gemma3':
        cfg = T.Gemma3TextConfig(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                                 num_attention_heads=4, num_key_value_heads=1, head_dim=64,
                                 max_position_embeddings=128, sliding_window=32, pad_token_id=0)
        cls = T.Gemma3ForCausalLM
    else:
        cfg = T.LlamaConfig(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, pad_token_id=0)
        cls = T.LlamaForCausalLM
    cfg._attn_implementation = 'sdpa'
    m = cls(cfg).to(dtype)
    if patched:
        fusednorm.patch_hf(m)
    return m

for kind in sys.argv[1].split(','):
    r = {}
    for p in (False, True):
        r[p] = saved(build(kind, p, torch.bfloat16))
        print(kind, 'patched' if p else 'stock', 'saved', len(r[p]), 'bytes', sum(x[3] for x in r[p]))
    from collections import Counter
    cs = Counter((x[1], x[2]) for x in r[False]); cp = Counter((x[1], x[2]) for x in r[True])
    print('  more in patched:', dict(cp - cs)); print('  more in stock:', dict(cs - cp))
