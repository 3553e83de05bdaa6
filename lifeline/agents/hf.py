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


PROGRESS_EVERY_S = 10.0
"""Seconds between two progress lines on stderr (set ``LIFELINE_HF_PROGRESS=0`` to silence)."""


class HFChat(ChatBackend):
    """Greedy (temperature 0) or sampled generation with a local model and its chat template.

    Local generation on a CPU takes seconds per turn and an episode has hundreds of turns, so
    the backend says what it does on stderr: one line when the model is loaded, then at most
    one line per ``PROGRESS_EVERY_S`` (turns, tokens, seconds per turn); a progress bar that
    advances per episode would sit still for minutes.
    """

    def __init__(self, path: str, config: LLMConfig) -> None:
        import os

        torch, transformers = _require_transformers()
        self.torch, self.config = torch, config
        self.path = path
        self.verbose = os.environ.get("LIFELINE_HF_PROGRESS", "1") != "0"
        self.turns, self.tokens, self.busy_s = 0, 0, 0.0
        self._last_note = time.perf_counter()
        self._note(f"hf:{path}: loading the model ...")
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(path,
                                                                        local_files_only=True)
            self.model = transformers.AutoModelForCausalLM.from_pretrained(
                path, local_files_only=True)
        except OSError as exc:
            raise ValueError(f"hf:{path}: cannot load a model there ({exc})") from None
        self.model.eval()
        params = sum(int(p.numel()) for p in self.model.parameters())
        self._note(f"hf:{path}: {params:,} parameters loaded; generating (progress every "
                   f"{PROGRESS_EVERY_S:.0f} s)")

    def _note(self, line: str) -> None:
        import sys

        if self.verbose:
            print(line, file=sys.stderr, flush=True)

    def _progress(self, new_tokens: int, seconds: float) -> None:
        self.turns += 1
        self.tokens += new_tokens
        self.busy_s += seconds
        now = time.perf_counter()
        if now - self._last_note >= PROGRESS_EVERY_S:
            self._last_note = now
            self._note(f"hf:{self.path}: {self.turns} turns, {self.tokens:,} tokens generated, "
                       f"{self.busy_s / self.turns:.2f} s per turn")

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
        elapsed = time.perf_counter() - start
        self._progress(int(new.shape[0]), elapsed)
        return Completion({"role": "assistant", "content": text}, prompt_len, int(new.shape[0]),
                          elapsed)
