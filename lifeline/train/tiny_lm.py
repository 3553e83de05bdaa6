"""A tiny chat model built locally (no hub): for GRPO smoke tests and CPU experiments.

:func:`build_tiny_qwen` trains a byte-level BPE tokenizer on text the environments produce, wraps
it with TRL's bundled Qwen3 chat template (which TRL's tool-calling checks recognise), and creates
a randomly initialised 2-layer Qwen3 causal LM. :func:`sft_tool_calls` then teaches it the
``<tool_call>{...}</tool_call>`` format with a few hundred supervised steps on transcripts of an
agent playing through the text face (prompt = the chat with tools and the observation,
completion = the agent's call; by default the ``text_heuristic``'s own reply text), so that GRPO
rollouts exercise the whole chain: generation, parsing, tool execution and reward. Nothing here
pretends to be a capable model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from lifeline.agents import make_agent
from lifeline.core.registry import make, spec
from lifeline.eval.seeds import train_seed_stream
from lifeline.faces.tools import action_to_call, openai_tools, text_observation

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>",
                  "<tool_response>", "</tool_response>", "<think>", "</think>"]


def qwen3_chat_template() -> str:
    """TRL's bundled Qwen3 chat template (tool calls as ``<tool_call>`` JSON)."""
    import trl

    return (Path(trl.__file__).parent / "chat_templates" / "qwen3.jinja").read_text()


def transcripts(env_names: list[str], turns_per_env: int, agent: str | None = None,
                seed: int = 0, scenario: str | None = None) -> list[dict[str, Any]]:
    """``{"env", "prompt" (messages), "tools", "completion"}`` examples: an agent playing
    training seeds through the text face.

    The default agent is ``text_heuristic`` (:mod:`lifeline.agents.text_heuristic`): the env's
    reference heuristic reading only the text observation, so each example is exactly text in
    (the observation it was handed) and tool-call text out (its reply, verbatim). Any other
    agent's actions are written as ``<tool_call>`` JSON. ``scenario`` (default: each env's
    first) pins the scenario.
    """
    from lifeline.agents.text_heuristic import TextHeuristicAgent
    from lifeline.train.grpo import TASK_PROMPT

    examples: list[dict[str, Any]] = []
    seeds = train_seed_stream(seed)
    for env_name in env_names:
        env_spec = spec(env_name)
        env = make(env_name, scenario)
        player = make_agent(agent or "text_heuristic", env_name)
        tools = openai_tools(env)
        task = TASK_PROMPT.format(env=env_spec.name, description=env_spec.description)
        taken = 0
        while taken < turns_per_env:
            s = next(seeds)
            state = env.reset(s)
            player.reset(env, s)
            while not state.done and taken < turns_per_env:
                action = player.act(env, state)
                if isinstance(player, TextHeuristicAgent):
                    observation, completion = player.last_observation, player.last_reply
                else:
                    semantic = env.decode(action) if isinstance(action, int) else action
                    name, args = action_to_call(semantic)
                    observation = text_observation(env, state)
                    completion = ("<tool_call>\n" + json.dumps({"name": name, "arguments": args})
                                  + "\n</tool_call>")
                prompt = [{"role": "user", "content": task + "\n\n" + observation}]
                examples.append({"env": env_name, "prompt": prompt, "tools": tools,
                                 "completion": completion})
                env.step(state, action)
                taken += 1
    return examples


def build_tiny_qwen(path: Path, corpus: list[str], vocab_size: int = 2048,
                    hidden: int = 32, layers: int = 2, seed: int = 0,
                    window: int = 48) -> tuple[Any, Any]:
    """Train a tokenizer on ``corpus``, create a random tiny Qwen3 (attention over the last
    ``window`` tokens only), save both under ``path``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(corpus, trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>",
                                        pad_token="<|endoftext|>",
                                        additional_special_tokens=SPECIAL_TOKENS[3:])
    tokenizer.chat_template = qwen3_chat_template()
    torch.manual_seed(seed)
    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=hidden,
                         intermediate_size=2 * hidden, num_hidden_layers=layers,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=hidden // 2,
                         max_position_embeddings=16384, tie_word_embeddings=True,
                         # Local attention only: what the model learns from the end of a short
                         # context (cheap SFT) carries over unchanged to full-length prompts.
                         use_sliding_window=True, sliding_window=window, max_window_layers=0,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    path.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    return model, tokenizer


def sft_tool_calls(model: Any, tokenizer: Any, examples: list[dict[str, Any]], steps: int = 200,
                   batch: int = 8, lr: float = 3e-3, seed: int = 0,
                   context: int = 96) -> list[float]:
    """Supervised steps on ``examples`` (loss on the completion tokens only); returns losses.

    Only the last ``context`` prompt tokens are kept (the turn's end, where the call starts):
    enough to learn the call format at a fraction of the cost of the full prompt.
    """
    import torch

    encoded = []
    for ex in examples:
        prompt = tokenizer.apply_chat_template(ex["prompt"], tools=ex["tools"],
                                               add_generation_prompt=True, tokenize=True)
        if isinstance(prompt, dict) or hasattr(prompt, "keys"):
            prompt = prompt["input_ids"]
        completion = tokenizer(ex["completion"] + "<|im_end|>", add_special_tokens=False)
        encoded.append((list(prompt)[-context:], list(completion["input_ids"])))
    rng = np.random.default_rng(seed)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    losses = []
    for _ in range(steps):
        picks = rng.choice(len(encoded), size=min(batch, len(encoded)), replace=False)
        seqs = [encoded[i] for i in picks]
        width = max(len(p) + len(c) for p, c in seqs)
        ids = torch.full((len(seqs), width), tokenizer.pad_token_id, dtype=torch.long)
        labels = torch.full((len(seqs), width), -100, dtype=torch.long)
        attention = torch.zeros((len(seqs), width), dtype=torch.long)
        for row, (p, c) in enumerate(seqs):
            ids[row, :len(p) + len(c)] = torch.tensor(p + c)
            labels[row, len(p):len(p) + len(c)] = torch.tensor(c)
            attention[row, :len(p) + len(c)] = 1
        loss = model(input_ids=ids, attention_mask=attention, labels=labels).loss
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(float(loss.detach()))
    model.eval()
    return losses


def build_tiny_model(path: Path, env_names: list[str] | None = None, turns_per_env: int = 60,
                     sft_steps: int = 150, context: int = 64, seed: int = 0) -> dict[str, Any]:
    """Build the tiny local chat model end to end and save it under ``path``.

    What ``lifeline train tiny-lm`` and ``lifeline train grpo --tiny`` run (and the recipe of
    ``tests/train/test_grpo.py``): ``text_heuristic`` transcripts of ``env_names`` (default ``ed``
    and ``dispatch``) on training seeds, a tokenizer trained on them, a random tiny Qwen3
    (:func:`build_tiny_qwen`), ``sft_steps`` supervised steps on the call format
    (:func:`sft_tool_calls`), then the tokenizer and the tuned weights saved (transformers
    format: ``--model PATH`` and ``hf:PATH`` load it). Returns a summary (losses, sizes).
    """
    import torch

    names = env_names or ["ed", "dispatch"]
    examples = transcripts(names, turns_per_env, seed=seed)
    corpus = [e["prompt"][0]["content"] + e["completion"] for e in examples]
    corpus += [json.dumps(e["tools"]) for e in examples[:: max(1, turns_per_env)]]
    model, tokenizer = build_tiny_qwen(path, corpus, seed=seed)
    torch.manual_seed(seed)
    losses = sft_tool_calls(model, tokenizer, examples, steps=sft_steps, context=context,
                            seed=seed) if sft_steps > 0 else []
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    summary = {"path": str(path), "envs": names, "examples": len(examples),
               "parameters": int(sum(p.numel() for p in model.parameters())),
               "sft_steps": sft_steps,
               "sft_loss_first": losses[0] if losses else None,
               "sft_loss_last": losses[-1] if losses else None}
    (path / "lifeline_tiny.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
