"""A local ``transformers`` causal LM as a chat backend (``--agent hf:PATH``).

Same prompt, tools and parser as the endpoint agent (:mod:`lifeline.agents.llm`): the chat
template renders the messages *and the tools* (templates such as Qwen3's list them in the system
turn), the model generates, and the reply text goes through the common tool-call parser. Weights
are read from ``PATH`` only (``local_files_only``): nothing is downloaded.
"""

from __future__ import annotations

import time
from typing import Any

from lifeline.agents.llm import ChatBackend, Completion, LLMConfig
from lifeline.core.extras import require


def _require_transformers() -> Any:
    require("grpo", "an hf:PATH agent")  # MissingExtra (an ImportError) naming the extra
    import torch
    import transformers

    return torch, transformers


class HFChat(ChatBackend):
    """Greedy (temperature 0) or sampled generation with a local model and its chat template."""

    def __init__(self, path: str, config: LLMConfig) -> None:
        torch, transformers = _require_transformers()
        self.torch, self.config = torch, config
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(path,
                                                                        local_files_only=True)
            self.model = transformers.AutoModelForCausalLM.from_pretrained(
                path, local_files_only=True)
        except OSError as exc:
            raise ValueError(f"hf:{path}: cannot load a model there ({exc})") from None
        self.model.eval()

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 seed: int) -> Completion:
        start = time.perf_counter()
        ids = self.tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True,
                                                 return_tensors="pt", return_dict=True)
        sample = self.config.temperature > 0
        self.torch.manual_seed(seed)
        with self.torch.no_grad():
            out = self.model.generate(
                **ids, max_new_tokens=self.config.max_tokens, do_sample=sample,
                temperature=self.config.temperature if sample else None,
                pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id)
        prompt_len = int(ids["input_ids"].shape[1])
        new = out[0, prompt_len:]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        return Completion({"role": "assistant", "content": text}, prompt_len, int(new.shape[0]),
                          time.perf_counter() - start)
