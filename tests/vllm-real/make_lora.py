"""Writes a tiny LoRA adapter for the test model, the same bytes every time (seeded).

usage: make_lora.py MODEL_DIR OUT_DIR

The PEFT layout vLLM loads (`adapter_config.json`, `adapter_model.safetensors`): rank 8 on every
layer's q_proj and v_proj, A and B drawn from a normal distribution with a fixed seed and B scaled
so the adapter moves the logits visibly (a zero B, PEFT's own initialisation, would change nothing).
"""

import json
import os
import sys

import torch
from safetensors.torch import save_file


def main() -> None:
    model_dir, out_dir = sys.argv[1], sys.argv[2]
    config = json.load(open(os.path.join(model_dir, "config.json")))
    hidden = config["hidden_size"]
    head_dim = config.get("head_dim") or hidden // config["num_attention_heads"]
    kv_out = config["num_key_value_heads"] * head_dim
    rank = 8
    generator = torch.Generator().manual_seed(20261206)
    tensors = {}
    for layer in range(config["num_hidden_layers"]):
        for module, out in (("q_proj", config["num_attention_heads"] * head_dim), ("v_proj", kv_out)):
            prefix = f"base_model.model.model.layers.{layer}.self_attn.{module}"
            tensors[f"{prefix}.lora_A.weight"] = torch.randn(rank, hidden, generator=generator) * 0.05
            tensors[f"{prefix}.lora_B.weight"] = torch.randn(out, rank, generator=generator) * 0.05
    os.makedirs(out_dir, exist_ok=True)
    save_file(tensors, os.path.join(out_dir, "adapter_model.safetensors"))
    adapter = {
        "peft_type": "LORA",
        "task_type": "CAUSAL_LM",
        "base_model_name_or_path": model_dir,
        "r": rank,
        "lora_alpha": 16,
        "lora_dropout": 0.0,
        "target_modules": ["q_proj", "v_proj"],
        "bias": "none",
        "fan_in_fan_out": False,
        "modules_to_save": None,
        "use_rslora": False,
        "use_dora": False,
        "inference_mode": True,
    }
    with open(os.path.join(out_dir, "adapter_config.json"), "w") as handle:
        json.dump(adapter, handle, indent=2, sort_keys=True)


if __name__ == "__main__":
    main()
