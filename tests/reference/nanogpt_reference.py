"""A GPT in plain PyTorch, written from the model's description (docs/interop.md), not from the
engine's code, under nanoGPT's parameter names: the reference the engine's loss and gradients are
checked against.

  token + learned position embeddings -> dropout
  n_layer pre-norm blocks:  x += c_proj(attention(c_attn(ln_1(x))));  x += mlp.c_proj(gelu(mlp.c_fc(ln_2(x))))
  ln_f -> lm_head (the token embedding's matrix: weights tied) -> mean cross-entropy over all positions

LayerNorm with bias, eps 1e-5; exact (erf) GELU; causal softmax attention scaled by 1/sqrt(head_dim),
q, k and v the first, second and third n_embd columns of c_attn's output, head h the h-th
head_dim slice of each; every Linear has a bias; nn.Linear's [out, in] layout.
"""
import json
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GptConfig:
    vocab_size: int
    block_size: int
    n_layer: int
    n_head: int
    n_embd: int
    dropout: float = 0.0

    @staticmethod
    def from_metadata(metadata):
        c = json.loads(metadata["config"])
        return GptConfig(c["vocab_size"], c["block_size"], c["n_layer"], c["n_head"], c["n_embd"], c["dropout"])


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_head = config.n_head
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.dropout = config.dropout

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.n_head, c // self.n_head).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        probs = F.dropout(F.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1), self.dropout, self.training)
        y = (probs @ v).transpose(1, 2).reshape(b, t, c)
        return F.dropout(self.c_proj(y), self.dropout, self.training)


class Mlp(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)
        self.dropout = config.dropout

    def forward(self, x):
        return F.dropout(self.c_proj(F.gelu(self.c_fc(x))), self.dropout, self.training)


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=1e-5)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=1e-5)
        self.mlp = Mlp(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList(Block(config) for _ in range(config.n_layer)),
            ln_f=nn.LayerNorm(config.n_embd, eps=1e-5),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tied
        for m in self.modules():  # GPT-2's initialisation
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.zeros_(m.bias)

    def forward(self, inputs, targets):
        positions = torch.arange(inputs.size(1), device=inputs.device)
        x = self.transformer.drop(self.transformer.wte(inputs) + self.transformer.wpe(positions))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))
