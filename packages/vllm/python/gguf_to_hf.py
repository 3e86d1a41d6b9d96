"""Writes a GGUF model as a Hugging Face folder that vLLM serves (safetensors, config, tokenizer).

Called by `loclab setup vllm` (packages/vllm/src/cpu-test-model.ts) with the virtual
environment's Python: transformers dequantizes the GGUF weights on load (it needs `gguf` and
`accelerate`), then saves them in float32. `save_pretrained` refuses a model that was loaded
from a quantized GGUF ("quantized with QuantizationMethod.GGUF and is not serializable") even
though its weights are already dequantized, so the quantizer and its config are cleared first.

usage: gguf_to_hf.py GGUF_FILE OUT_DIR
"""

import json
import os
import sys


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: gguf_to_hf.py GGUF_FILE OUT_DIR")
    gguf_path, out_dir = sys.argv[1], sys.argv[2]
    # Offline by construction: the only input is the local file.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, name = os.path.split(os.path.abspath(gguf_path))
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    json.dump(
        {"architectures": model.config.architectures, "vocab": len(tokenizer), "parameters": model.num_parameters()},
        sys.stdout,
    )


if __name__ == "__main__":
    main()
