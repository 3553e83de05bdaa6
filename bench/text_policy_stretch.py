"""Issue 16 stretch: a tiny text policy, SFT on ``text_heuristic`` transcripts then GRPO, on CPU,
against masked random on ``ed night_shift`` — through the text face only.

The policy is the tiny local Qwen3 of :mod:`lifeline.train.tiny_lm` (no hub). Each turn it gets
the same user message as in training (the task line plus :func:`text_observation`), decodes
greedily, and its text goes through the one tool-call parser; an unreadable or illegal reply is
played as an invalid action (a wasted turn), as for any LLM agent. Masked random plays the same
held-out seeds. Writes ``results/llm/text_policy_stretch.json``.

    nice python bench/text_policy_stretch.py --episodes 10 --sft-steps 600 --grpo-steps 10
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np

from lifeline.agents import make_agent
from lifeline.agents.toolcall import extract_calls
from lifeline.core.registry import make, spec
from lifeline.eval.seeds import EVAL_SEED_BASE
from lifeline.eval.stats import mean_ci
from lifeline.faces.tools import ToolCallError, openai_tools, parse_tool_call, text_observation
from lifeline.train.grpo import TASK_PROMPT, GRPOSettings, train
from lifeline.train.tiny_lm import build_tiny_qwen, sft_tool_calls, transcripts

ENV, SCENARIO = "ed", "night_shift"


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def play_model(model: Any, tokenizer: Any, seed: int, context: int) -> tuple[float, int, int]:
    """One episode through the text face; returns (score, turns, invalid replies)."""
    import torch

    env = make(ENV, SCENARIO)
    tools = openai_tools(env)
    task = TASK_PROMPT.format(env=ENV, description=spec(ENV).description)
    state = env.reset(seed)
    turns = invalid = 0
    while not state.done:
        messages = [{"role": "user", "content": task + "\n\n" + text_observation(env, state)}]
        ids = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True,
                                            tokenize=True)
        if hasattr(ids, "keys"):
            ids = ids["input_ids"]
        # Sliding-window attention: tokens further back than layers x window cannot matter.
        prompt = torch.tensor([list(ids)[-context:]])
        with torch.no_grad():
            out = model.generate(prompt, attention_mask=torch.ones_like(prompt),
                                 max_new_tokens=48, do_sample=False,
                                 eos_token_id=tokenizer.eos_token_id,
                                 pad_token_id=tokenizer.pad_token_id)
        reply = tokenizer.decode(out[0, prompt.shape[1]:], skip_special_tokens=False)
        calls = extract_calls(reply)
        action: Any = -1
        if calls:
            try:
                action = parse_tool_call(env, *calls[0])
            except ToolCallError:
                action = -1
        if action == -1 or env.validate(state, action):
            invalid += 1
        env.step(state, action)
        turns += 1
    return float(env.grade(state).score), turns, invalid


def play_agent(name: str, seed: int) -> float:
    env = make(ENV, SCENARIO)
    agent = make_agent(name, ENV)
    state = env.reset(seed)
    agent.reset(env, seed)
    while not state.done:
        env.step(state, agent.act(env, state))
    return float(env.grade(state).score)


def evaluate_model(model: Any, tokenizer: Any, seeds: list[int], context: int) -> dict[str, Any]:
    rows = [play_model(model, tokenizer, s, context) for s in seeds]
    return {"score": mean_ci([r[0] for r in rows]).to_dict(),
            "invalid_share": float(sum(r[2] for r in rows) / max(1, sum(r[1] for r in rows))),
            "scores": [r[0] for r in rows]}


def main() -> None:
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=10)
    ap.add_argument("--turns", type=int, default=4000, help="SFT examples (turns)")
    ap.add_argument("--sft-steps", type=int, default=600)
    ap.add_argument("--grpo-steps", type=int, default=10)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--window", type=int, default=192)
    ap.add_argument("--out", default="results/llm/text_policy_stretch.json")
    ap.add_argument("--workdir", default="/tmp/lifeline_text_policy")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    context = 2 * args.window  # the receptive field of the 2-layer sliding-window model
    start, wall = cpu_s(), time.perf_counter()
    log: dict[str, Any] = {"env": ENV, "scenario": SCENARIO, "args": vars(args)}

    seeds = list(range(EVAL_SEED_BASE, EVAL_SEED_BASE + args.episodes))
    random_scores = [play_agent("random", s) for s in seeds]
    log["random"] = mean_ci(random_scores).to_dict()
    log["random"]["scores"] = random_scores
    log["text_heuristic"] = mean_ci([play_agent("text_heuristic", s) for s in seeds]).to_dict()
    print("random", log["random"]["mean"], "text_heuristic", log["text_heuristic"]["mean"],
          flush=True)

    examples = transcripts([ENV], args.turns, scenario=SCENARIO)
    corpus = [e["prompt"][0]["content"] + e["completion"] for e in examples[:400]]
    corpus += [json.dumps(examples[0]["tools"])]
    work = Path(args.workdir)
    model, tokenizer = build_tiny_qwen(work / "tiny", corpus, hidden=args.hidden,
                                       window=args.window)
    losses = sft_tool_calls(model, tokenizer, examples, steps=args.sft_steps, batch=16,
                            lr=3e-3, context=context)
    log["sft"] = {"examples": len(examples), "loss_first": losses[0], "loss_last": losses[-1],
                  "cpu_s": cpu_s() - start}
    print("sft", log["sft"], flush=True)
    log["after_sft"] = evaluate_model(model, tokenizer, seeds, context)
    log["after_sft"]["cpu_s"] = cpu_s() - start
    print("after sft", log["after_sft"]["score"], log["after_sft"]["invalid_share"], flush=True)

    if args.grpo_steps:
        os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
        settings = GRPOSettings(steps=args.grpo_steps, batch_size=4, num_generations=4,
                                learning_rate=1e-4, max_completion_length=1024,
                                max_tool_calling_iterations=16)
        result = train([ENV], model, work / "grpo", settings, scenario=SCENARIO,
                       tokenizer=tokenizer)
        rewards = [r.get("reward") for r in result["history"] if "reward" in r]
        log["grpo"] = {"steps": args.grpo_steps, "rewards": rewards, "cpu_s": cpu_s() - start}
        log["after_grpo"] = evaluate_model(model, tokenizer, seeds, context)
        log["after_grpo"]["cpu_s"] = cpu_s() - start
        print("after grpo", log["after_grpo"]["score"], flush=True)
    log["cpu_s_total"] = cpu_s() - start
    log["wall_s_total"] = time.perf_counter() - wall
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(log, indent=2))
    print(json.dumps({k: v for k, v in log.items() if k != "args"}, indent=1)[:3000])


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
