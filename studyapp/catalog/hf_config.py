"""A Hugging Face ``config.json`` read into a catalog ``Model``: study your own model.

Reads the decoder shape of the architectures the calculator knows: Llama, Mistral,
Mixtral, Qwen2, Qwen3, Qwen3-MoE, DeepSeek-V3 and Kimi K2 (MLA), DeepSeek-V3.2 (MLA plus
the lightning indexer's key), gpt-oss (alternating sliding window), Gemma 3 (five local
sliding-window layers to one global) and Llama 4 (its ``text_config``). Parameter
counts are summed from the config's matrix shapes (embeddings, attention, MLP or experts,
norms), total and active per token; multi-token-prediction layers (DeepSeek's
``num_nextn_predict_layers``) and vision towers are not counted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studyapp.catalog.models import Model
from studyapp.files import FileRefused, read_regular

KNOWN = ("llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "deepseek_v3",
         "deepseek_v32", "kimi_k2", "gpt_oss", "gemma3_text", "llama4_text")
"""``model_type`` values read (``llama4``, ``gemma3`` and other wrappers: their
``text_config``)."""

DEEPSEEK = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2")
"""DeepSeek-style mixtures of experts: dense first layers, shared experts, biased router."""

GEMMA3_DEFAULTS: dict[str, Any] = {
    "vocab_size": 262_208, "max_position_embeddings": 131_072, "head_dim": 256,
    "sliding_window": 4096, "sliding_window_pattern": 6, "tie_word_embeddings": True,
}
"""What ``Gemma3TextConfig`` assumes for a key a published config leaves out (Gemma 3 27B's
config.json gives neither its vocabulary nor its context): transformers,
src/transformers/models/gemma3/configuration_gemma3.py."""

MAX_CONFIG_BYTES = 2_000_000


_WORDS = {
    "unreadable": "cannot read the file: {reason}",
    "too_large": "over {limit} bytes; a config.json is far smaller",
    "not_utf8": "not UTF-8 text",
    "not_json": "not JSON: {reason}",
    "too_deep": "nested too deeply",
    "not_object": "a config.json is a JSON object",
    "missing": "config has no {key!r}",
    "not_positive": "{key!r} must be a positive whole number, got {value}",
    "unknown_type": "model_type {kind!r} is not one studyapp reads (reads: {known})",
    "invalid": "not a model studyapp can use: {reason}",
}
"""English words of each problem (``str()``); ``catalog.hfconfig.<name>`` in other languages."""


class HFConfigError(ValueError):
    """A config.json that cannot be read as a model: ``file[:line:col]: what is wrong``."""

    def __init__(self, path: Path | str, name: str, line: int | None = None,
                 col: int | None = None, **fields: str) -> None:
        self.where = f"{path}:{line}:{col}" if line is not None else f"{path}"
        self.name = name
        self.fields = fields
        super().__init__(f"{self.where}: {_WORDS[name].format(**fields)}")

    def render(self, lang: str) -> str:
        """The problem in ``lang`` (English is ``str(self)``)."""
        if lang == "en":
            return str(self)
        from studyapp.i18n import t  # only when a failure is shown

        return f"{self.where}: {t(f'catalog.hfconfig.{self.name}', lang, **self.fields)}"


@dataclass(frozen=True)
class ParamCount:
    total: int
    active: int


def _int(cfg: dict[str, Any], key: str, path: Path | str, default: int | None = None) -> int:
    value = cfg.get(key, default)
    if value is None:
        raise HFConfigError(path, "missing", key=key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 10**9:
        raise HFConfigError(path, "not_positive", key=key, value=repr(value)[:40])
    return value


def text_config(config: dict[str, Any]) -> dict[str, Any]:
    """The language model's part of a config (``text_config`` of a multimodal wrapper)."""
    inner = config.get("text_config")
    if isinstance(inner, dict):
        merged = {k: v for k, v in config.items() if k != "text_config"}
        merged.update(inner)
        config = merged
    if config.get("model_type") == "gemma3_text":
        config = {**GEMMA3_DEFAULTS, **config}
    return config


def gemma3_layer_types(cfg: dict[str, Any], layers: int) -> list[str]:
    """Gemma 3's layers: ``layer_types`` where the config lists them, else every
    ``sliding_window_pattern``-th layer global (6: five local, then one global), as
    ``Gemma3TextConfig`` builds them."""
    types = cfg.get("layer_types")
    if isinstance(types, list) and len(types) == layers:
        return [str(t) for t in types]
    pattern = cfg.get("sliding_window_pattern") or GEMMA3_DEFAULTS["sliding_window_pattern"]
    pattern = pattern if isinstance(pattern, int) and pattern > 0 else 6
    return ["sliding_attention" if (i + 1) % pattern else "full_attention"
            for i in range(layers)]


def _is_mla(cfg: dict[str, Any]) -> bool:
    return bool(cfg.get("kv_lora_rank"))


def _experts(cfg: dict[str, Any]) -> int | None:
    for key in ("num_local_experts", "n_routed_experts", "num_experts"):
        if cfg.get(key):
            return int(cfg[key])
    return None


def _per_token(cfg: dict[str, Any]) -> int | None:
    for key in ("num_experts_per_tok", "experts_per_token"):
        if cfg.get(key):
            return int(cfg[key])
    return None


def _moe_layers(cfg: dict[str, Any], layers: int) -> list[bool]:
    """For each layer: does it route to experts (True) or run a dense MLP?"""
    kind = cfg.get("model_type")
    if _experts(cfg) is None:
        return [False] * layers
    if kind in DEEPSEEK:
        first_dense = int(cfg.get("first_k_dense_replace") or 0)
        freq = int(cfg.get("moe_layer_freq") or 1)
        return [i >= first_dense and i % freq == 0 for i in range(layers)]
    if kind == "llama4_text":
        step = int(cfg.get("interleave_moe_layer_step") or 1)
        moe = cfg.get("moe_layers")
        if isinstance(moe, list):
            return [i in moe for i in range(layers)]
        return [(i + 1) % step == 0 for i in range(layers)]
    if kind == "qwen3_moe":
        step = int(cfg.get("decoder_sparse_step") or 1)
        dense = set(cfg.get("mlp_only_layers") or [])
        return [i not in dense and (i + 1) % step == 0 for i in range(layers)]
    return [True] * layers


def count_params(config: dict[str, Any], path: Path | str = "config.json") -> ParamCount:
    """Total and per-token active parameters from a config's shapes."""
    cfg = text_config(config)
    kind = cfg.get("model_type")
    hidden = _int(cfg, "hidden_size", path)
    layers = _int(cfg, "num_hidden_layers", path)
    heads = _int(cfg, "num_attention_heads", path)
    vocab = _int(cfg, "vocab_size", path)
    kv_heads = _int(cfg, "num_key_value_heads", path, heads)
    embed = vocab * hidden * (1 if cfg.get("tie_word_embeddings") else 2)
    norms = 2  # per layer: before attention and before the MLP

    if _is_mla(cfg):
        rank = _int(cfg, "kv_lora_rank", path)
        rope = _int(cfg, "qk_rope_head_dim", path)
        nope = _int(cfg, "qk_nope_head_dim", path)
        v_dim = _int(cfg, "v_head_dim", path)
        q_rank = cfg.get("q_lora_rank")
        q_out = heads * (nope + rope)
        q = hidden * q_rank + q_rank + q_rank * q_out if q_rank else hidden * q_out
        attn = q + hidden * (rank + rope) + rank + rank * heads * (nope + v_dim) \
            + heads * v_dim * hidden
        if cfg.get("index_head_dim") and cfg.get("index_n_heads") and q_rank:
            # DeepSeek-V3.2's lightning indexer: queries from the query latent, one key and
            # per-head weights from the hidden state, a LayerNorm (weight and bias) on the key
            index_dim = _int(cfg, "index_head_dim", path)
            index_heads = _int(cfg, "index_n_heads", path)
            attn += q_rank * index_heads * index_dim + hidden * index_dim + 2 * index_dim \
                + hidden * index_heads
    else:
        head_dim = _int(cfg, "head_dim", path, hidden // heads)
        q_dim, kv_dim = heads * head_dim, kv_heads * head_dim
        attn = hidden * q_dim + 2 * hidden * kv_dim + q_dim * hidden
        if cfg.get("attention_bias") or kind == "qwen2":
            attn += q_dim + 2 * kv_dim + (hidden if cfg.get("attention_bias") else 0)
        if kind in ("qwen3", "qwen3_moe", "gemma3_text"):
            attn += 2 * head_dim  # q_norm and k_norm
        if kind == "gemma3_text":
            norms = 4  # and after attention and after the MLP
        if kind == "gpt_oss":
            attn += heads  # attention sinks
    experts = _experts(cfg) or 0
    per_token = _per_token(cfg) or 0
    inter = _int(cfg, "intermediate_size", path, 0) if "intermediate_size" in cfg else 0
    expert_inter = int(cfg.get("moe_intermediate_size") or inter)
    dense_inter = int(cfg.get("intermediate_size_mlp") or inter)
    if kind == "gpt_oss":  # fused gate_up with biases, down with bias
        one_expert = 3 * hidden * expert_inter + 2 * expert_inter + hidden
        router = hidden * experts + experts
    else:
        one_expert = 3 * hidden * expert_inter
        router = hidden * experts + (experts if kind in DEEPSEEK else 0)
    shared = 0
    if kind in DEEPSEEK:
        shared = int(cfg.get("n_shared_experts") or 0) * 3 * hidden * expert_inter
    elif kind == "llama4_text":
        shared = 3 * hidden * inter
    total = active = embed + hidden  # final norm
    for routed in _moe_layers(cfg, layers):
        base = attn + norms * hidden
        if routed:
            total += base + router + shared + experts * one_expert
            active += base + router + shared + per_token * one_expert
        else:
            mlp = 3 * hidden * (dense_inter if kind == "llama4_text" else inter)
            total += base + mlp
            active += base + mlp
    return ParamCount(total, active)


def read_hf_config(path: Path) -> dict[str, Any]:
    """A config.json's data; ``HFConfigError`` for a file that is not one."""
    try:
        raw = read_regular(path, MAX_CONFIG_BYTES, what="config.json")
    except FileRefused as exc:
        if exc.reason == "too_large":
            raise HFConfigError(path, "too_large", limit=str(MAX_CONFIG_BYTES)) from None
        reason = exc.detail or "not a regular file (a device, pipe, socket or folder)"
        raise HFConfigError(path, "unreadable", reason=reason) from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise HFConfigError(path, "not_utf8") from None
    except json.JSONDecodeError as exc:
        raise HFConfigError(path, "not_json", exc.lineno, exc.colno, reason=exc.msg) from None
    except RecursionError:
        raise HFConfigError(path, "too_deep") from None
    if not isinstance(data, dict):
        raise HFConfigError(path, "not_object")
    return data


def model_from_hf_config(config: dict[str, Any], *, path: Path | str = "config.json",
                         model_id: str = "custom", source: str | None = None) -> Model:
    """The catalog ``Model`` a config describes (``HFConfigError`` for what it lacks)."""
    cfg = text_config(config)
    kind = cfg.get("model_type")
    if kind not in KNOWN:
        raise HFConfigError(path, "unknown_type", kind=str(kind), known=", ".join(KNOWN))
    heads = _int(cfg, "num_attention_heads", path)
    hidden = _int(cfg, "hidden_size", path)
    counted = count_params(config, path)
    experts = _experts(cfg)
    fields: dict[str, Any] = {
        "id": model_id,
        "name": cfg.get("_name_or_path") or model_id,
        "sources": [source or "https://huggingface.co/docs/transformers/main_classes/configuration"],
        "params_b": counted.total / 1e9,
        "active_params_b": counted.active / 1e9 if experts else None,
        "layers": _int(cfg, "num_hidden_layers", path),
        "hidden_size": hidden,
        "heads": heads,
        "kv_heads": _int(cfg, "num_key_value_heads", path, heads),
        "head_dim": _int(cfg, "head_dim", path, hidden // heads),
        "context_length": _int(cfg, "max_position_embeddings", path),
        "vocab_size": _int(cfg, "vocab_size", path),
        "attention": "gqa",
        "experts": experts,
        "experts_per_token": _per_token(cfg) if experts else None,
    }
    quant = cfg.get("quantization_config")
    dtype = quant.get("quant_method") if isinstance(quant, dict) else None
    fields["weights_dtype"] = str(dtype or cfg.get("torch_dtype") or "") or None
    if _is_mla(cfg):
        fields.update(attention="mla", kv_heads=heads,
                      head_dim=_int(cfg, "v_head_dim", path),
                      kv_lora_rank=_int(cfg, "kv_lora_rank", path),
                      qk_rope_head_dim=_int(cfg, "qk_rope_head_dim", path))
        if cfg.get("index_head_dim"):  # DeepSeek-V3.2: the indexer caches its own key
            fields.update(index_head_dim=_int(cfg, "index_head_dim", path),
                          index_n_heads=_int(cfg, "index_n_heads", path))
    elif fields["kv_heads"] == heads:
        fields["attention"] = "mha"
    window = cfg.get("sliding_window")
    uses_window = cfg.get("use_sliding_window", True) is not False
    if "sliding_window" in Model.model_fields and isinstance(window, int) and uses_window:
        fields["sliding_window"] = window
        types = cfg.get("layer_types")
        if "sliding_window_layers" in Model.model_fields and isinstance(types, list):
            fields["sliding_window_layers"] = sum(t == "sliding_attention" for t in types)
    if kind == "gemma3_text" and "sliding_window" in fields:
        # Gemma 3: local layers keep the window, every sixth (global) layer keeps everything
        types = gemma3_layer_types(cfg, fields["layers"])
        fields["sliding_window_layers"] = types.count("sliding_attention") or None
    chunk = cfg.get("attention_chunk_size")
    rope_layers = cfg.get("no_rope_layers")
    if isinstance(chunk, int) and chunk > 0 and isinstance(rope_layers, list):
        # Llama 4: the layers that use RoPE (1 in no_rope_layers) attend within chunks of
        # attention_chunk_size tokens, so they keep at most that many; the rest are global
        chunked = sum(1 for flag in rope_layers if flag)
        if chunked > 0:
            fields["sliding_window"] = chunk
            fields["sliding_window_layers"] = chunked
    try:
        return Model.model_validate(fields)
    except ValueError as exc:
        raise HFConfigError(path, "invalid", reason=str(exc).splitlines()[0]) from None


def load_model_config(path: Path) -> Model:
    """``--model-config FILE``: a config.json read into a model named after its file."""
    stem = path.parent.name if path.name == "config.json" else path.stem
    model_id = "".join(c if c.isalnum() or c in ".-" else "-" for c in stem.lower()).strip(".-")
    return model_from_hf_config(read_hf_config(path), path=path, model_id=model_id or "custom")
